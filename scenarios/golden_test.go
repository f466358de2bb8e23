package scenarios_test

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

var update = flag.Bool("update", false, "rewrite testdata/errors/*.golden from the loader's current messages")

// setDirective is a "# set: path=value" comment at the top of a hostile
// file: the golden test passes each one to Load as a --set override.
const setDirective = "# set: "

// TestErrorsGolden loads every hostile scenario in testdata/errors and
// compares the messages, one per line, with the .golden file next to it.
// Regenerate with go test ./scenarios/ -run ErrorsGolden -update, then
// read the diff: every line must name file:line (or the --set flag) and the
// field, and list the allowed values where there is a choice.
func TestErrorsGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "errors", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d hostile scenarios in testdata/errors, want at least 20", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			sets := setsIn(t, file)
			_, err := scenarios.Load(file, sets)
			if err == nil {
				t.Fatalf("Load(%q, %q) = nil error, want errors", file, sets)
			}
			var es scenarios.Errors
			if !errors.As(err, &es) {
				t.Fatalf("Load(%q, %q) error is %T, want scenarios.Errors: %v", file, sets, err, err)
			}
			got := err.Error() + "\n"
			checkLocated(t, file, es)
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run ErrorsGolden -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("Load(%q) errors differ from %s\ngot:\n%swant:\n%s", file, golden, got, want)
			}
		})
	}
}

// setsIn returns the file's "# set: path=value" directives, in order.
func setsIn(t *testing.T, file string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sets []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), setDirective); ok {
			sets = append(sets, s)
		}
	}
	return sets
}

// pendingLoadGo matches the YAML syntax messages that load.go's Parse
// does not yet locate with yamlSyntaxError.
var pendingLoadGo = regexp.MustCompile(`^invalid YAML: (line [0-9]+: |EOF$)`)

// fileLevel matches the messages about a file as a whole, which name no
// field.
var fileLevel = regexp.MustCompile(`^(invalid YAML|must be a mapping|empty scenario|alias \*|aliases would|a scenario is one YAML document|keys must be single words)`)

// located matches the start of a message: "file:line: " or "--set p=v: ".
var located = regexp.MustCompile(`^(\S+:[1-9][0-9]*|--set \S+=.*?): `)

// checkLocated asserts the rule every loader message follows: it names
// where (file:line, or the --set flag) and, unless it is about the file as
// a whole, which field.
func checkLocated(t *testing.T, file string, es scenarios.Errors) {
	t.Helper()
	for _, e := range es {
		msg := e.Error()
		switch {
		case e.Set != "":
			if !strings.HasPrefix(msg, "--set "+e.Set+": ") {
				t.Errorf("%s: message %q does not start with its --set flag", file, msg)
			}
		case e.Line <= 0 && pendingLoadGo.MatchString(e.Msg):
			// load.go does not yet put go-yaml's line into Line (see
			// yamlLine in document_test.go); the golden shows what it says.
		case e.Line <= 0 && strings.HasPrefix(e.Msg, "empty scenario"):
			// A file without a document has no line to name.
		case e.Line <= 0:
			t.Errorf("%s: message %q has no line number", file, msg)
		case e.File != file:
			t.Errorf("%s: message %q names file %q", file, msg, e.File)
		case !located.MatchString(msg):
			t.Errorf("%s: message %q does not start with file:line", file, msg)
		}
		if e.Field == "" && e.Set == "" && !fileLevel.MatchString(e.Msg) {
			t.Errorf("%s: message %q names no field", file, msg)
		}
	}
}
