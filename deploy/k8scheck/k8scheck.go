// Package k8scheck decodes the Kubernetes documents in deploy/ strictly into
// their k8s.io/api types, so that a misspelt, misplaced or mistyped field
// fails a test instead of being dropped or refused by the API server. Its
// tests also check that the sweep, rerun and merge Jobs agree with each
// other, run their commands with the real simulate, and run the merge Job's
// wait-for-shards script against a TLS server answering as the API server
// does.
//
// It is a module of its own so that budgetsim's main module does not depend
// on k8s.io/api; .ci/run runs its tests.
package k8scheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// placeholder matches the ${NAME} parameters that deploy/README.md tells
// users to fill in with envsubst.
var placeholder = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Render replaces every ${NAME} in text with params[NAME], as
// `envsubst '${NAME}…'` does. It fails, naming them, if text uses a
// parameter that params does not give.
func Render(text string, params map[string]string) (string, error) {
	var missing []string
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		v, ok := params[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		return v
	})
	if len(missing) > 0 {
		sort.Strings(missing)
		return "", fmt.Errorf("no value for parameter(s) %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// Document is one decoded document of a YAML stream: its position (1-based,
// counting only documents that are not empty) and the typed API object.
type Document struct {
	Index  int
	Object runtime.Object
}

// Decode splits a YAML stream into its documents and decodes each strictly
// into the k8s.io/api type that its apiVersion and kind name: an unknown
// kind, an unknown or duplicated field, or a value of the wrong type is an
// error naming the file and the document. Documents holding only comments
// are skipped. Only the kinds deploy/ uses are known: core/v1, batch/v1 and
// rbac.authorization.k8s.io/v1.
func Decode(name string, data []byte) ([]Document, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme, rbacv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()
	reader := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []Document
	for {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if onlyComments(raw) {
			continue
		}
		index := len(docs) + 1
		obj, _, err := decoder.Decode(raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, index, err)
		}
		docs = append(docs, Document{Index: index, Object: obj})
	}
	return docs, nil
}

// onlyComments reports whether a YAML document has nothing but blank lines,
// comments and document markers.
func onlyComments(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && line != "---" && !strings.HasPrefix(line, "#") {
			return false
		}
	}
	return true
}
