package generate

import (
	"bytes"
	"io/fs"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// Minimize shrinks a scenario that breaks an invariant: it removes keys and
// list items one at a time, keeping each removal after which the text
// still loads and fails still reports true, until no single removal does.
// It returns the smallest text found (src itself when nothing could go).
// fsys resolves the files the scenario names, as for scenarios.Parse.
func Minimize(src []byte, fsys fs.FS, fails func(cfg *system.Config) bool) []byte {
	best := src
	for {
		var doc yaml.Node
		if err := yaml.Unmarshal(best, &doc); err != nil || len(doc.Content) == 0 {
			return best
		}
		shrunk := false
		for i := 0; ; i++ {
			cand, ok := without(&doc, i)
			if !ok {
				break
			}
			sc, err := scenarios.Parse("minimized.yaml", cand, nil, fsys)
			if err != nil || !fails(sc.Config) {
				continue
			}
			best, shrunk = cand, true
			break
		}
		if !shrunk {
			return best
		}
	}
}

// without returns doc's text without its i-th removable node (in
// document order: a mapping's key with its value, or a list item), and
// false when doc has fewer.
func without(doc *yaml.Node, i int) ([]byte, bool) {
	n := 0
	var out []byte
	var walk func(node *yaml.Node) bool
	walk = func(node *yaml.Node) bool {
		switch node.Kind {
		case yaml.DocumentNode:
			for _, c := range node.Content {
				if walk(c) {
					return true
				}
			}
		case yaml.MappingNode:
			for j := 0; j+1 < len(node.Content); j += 2 {
				if node == doc.Content[0] && slices.Contains(minimizeKeeps, node.Content[j].Value) {
					continue
				}
				if n == i {
					saved := node.Content
					node.Content = append(append([]*yaml.Node{}, saved[:j]...), saved[j+2:]...)
					out = encode(doc)
					node.Content = saved
					return true
				}
				n++
				if walk(node.Content[j+1]) {
					return true
				}
			}
		case yaml.SequenceNode:
			for j := range node.Content {
				if n == i {
					saved := node.Content
					node.Content = append(append([]*yaml.Node{}, saved[:j]...), saved[j+1:]...)
					out = encode(doc)
					node.Content = saved
					return true
				}
				n++
				if walk(node.Content[j]) {
					return true
				}
			}
		}
		return false
	}
	return out, walk(doc)
}

func encode(doc *yaml.Node) []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil
	}
	enc.Close()
	return b.Bytes()
}
