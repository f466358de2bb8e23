package readme

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// root is the repository's top directory, relative to this package.
const root = "../.."

// The commands are built once, into a directory TestMain removes, without
// the profile of cmd/simulate (outputs are byte-identical with and without
// it), so that the packages compiled for the other tests are reused.
var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// commands builds cmd/simulate, cmd/plot and cmd/report once and returns
// their directory.
func commands(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "budgetsim-readme-")
		if binErr != nil {
			return
		}
		build := exec.Command(goTool(), "build", "-pgo=off", "-o", binDir, "./cmd/simulate", "./cmd/plot", "./cmd/report")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

// runDocument runs the commands of the Markdown document at path in order,
// in an empty directory (with the repository's plan/ and scenarios/ linked
// in for the files the commands name), checks each output the document
// shows, and returns how many outputs it checked, by program.
func runDocument(t *testing.T, path string) map[string]int {
	t.Helper()
	cmds, err := Commands(path)
	if err != nil {
		t.Fatal(err)
	}
	bin := commands(t)
	dir := t.TempDir()
	for _, d := range []string{"plan", "scenarios", "docs"} {
		abs, err := filepath.Abs(filepath.Join(root, d))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Base(path)
	checked := map[string]int{}
	for _, c := range cmds {
		if !slices.Contains([]string{"simulate", "plot", "report"}, c.Program) {
			t.Errorf("%s:%d: %s: no such command under cmd/", name, c.Line, c)
			continue
		}
		run := exec.Command(filepath.Join(bin, c.Program), c.Args...)
		run.Dir = dir
		var stdout, stderr bytes.Buffer
		run.Stdout, run.Stderr = &stdout, &stderr
		if err := run.Run(); err != nil {
			t.Errorf("%s:%d: %s: %v\n%s", name, c.Line, c, err, stderr.String())
			continue
		}
		if stdout.Len() == 0 {
			t.Errorf("%s:%d: %s printed nothing", name, c.Line, c)
		}
		if c.Want != nil {
			if err := Check(c.Want, stdout.String()); err != nil {
				t.Errorf("%s:%d: %s: %v\nit printed:\n%s", name, c.Line, c, err, stdout.String())
			}
			checked[c.Program]++
		}
	}
	return checked
}

// TestReadme follows the README as a new user would: it runs every
// `go run ./cmd/…` line of the README in order, with the commands built
// from this checkout, and checks each output the README shows.
func TestReadme(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands and runs the README's")
	}
	checked := runDocument(t, filepath.Join(root, "README.md"))
	// The first scenario's walk-through shows what run, plan, compare and
	// plot print; report writes a page and says where.
	if checked["simulate"] < 3 || checked["plot"] < 1 {
		t.Errorf("the README shows the output of %d simulate and %d plot commands; want ≥ 3 and ≥ 1", checked["simulate"], checked["plot"])
	}
}

// TestDocs runs the commands of every document under docs/ the same way.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands and runs the documents'")
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, doc := range docs {
		t.Run(filepath.Base(doc), func(t *testing.T) {
			cmds, err := Commands(doc)
			if err != nil {
				t.Fatal(err)
			}
			n += len(cmds)
			if len(cmds) > 0 {
				runDocument(t, doc)
			}
		})
	}
	if n < 10 {
		t.Errorf("found %d commands in docs/*.md; they hold more", n)
	}
}

// TestFirstScenario checks that the YAML the README writes step by step is
// the bundled agent-service scenario: the same configuration, key by key.
func TestFirstScenario(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	in := false
	for _, line := range strings.Split(string(readme), "\n") {
		switch t := strings.TrimSpace(line); {
		case t == "```yaml":
			in = true
		case in && t == "```":
			in = false
		case in:
			src.WriteString(line + "\n")
		}
	}
	fromReadme, err := scenarios.Parse("README.md", []byte(src.String()), nil, nil)
	if err != nil {
		t.Fatalf("the README's scenario does not load:\n%v\n%s", err, src.String())
	}
	bundled, err := scenarios.Load("agent-service", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromReadme.Config, bundled.Config) {
		t.Errorf("the README's scenario differs from scenarios/agent-service.yaml:\n%s", src.String())
	}
}

// goTool returns the go command that runs the tests.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

func TestCommands(t *testing.T) {
	doc := "# t\n\n```sh\ngo run ./cmd/simulate run mmc   # a comment\n```\n\n```text\n| a |\n…\n| b |\n```\n\n" +
		"```sh\ngo run ./cmd/plot out\ngo run ./cmd/report 'x y' --out r.html\n```\n\n```text\nnot an output: two commands above\n```\n\n" +
		"```sh\ngo run ./cmd/simulate list\n```\n\nprose in between\n\n```text\nnot an output either\n```\n"
	path := filepath.Join(t.TempDir(), "t.md")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Commands(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{File: path, Line: 4, Program: "simulate", Args: []string{"run", "mmc"}, Want: []string{"| a |", "| b |"}},
		{File: path, Line: 14, Program: "plot", Args: []string{"out"}},
		{File: path, Line: 15, Program: "report", Args: []string{"x y", "--out", "r.html"}},
		{File: path, Line: 23, Program: "simulate", Args: []string{"list"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Commands =\n%+v\nwant\n%+v", got, want)
	}
}

func TestFieldsUnclosedQuote(t *testing.T) {
	if _, err := Fields("run 'mmc"); err == nil {
		t.Error("Fields(unclosed quote) = nil error")
	}
}

func TestCheck(t *testing.T) {
	got := "a\nb  \nc\nd\n"
	for _, c := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"a", "c"}, true},
		{[]string{"b", "d"}, true},
		{[]string{"c", "a"}, false},
		{[]string{"e"}, false},
		{nil, true},
	} {
		if err := Check(c.want, got); (err == nil) != c.ok {
			t.Errorf("Check(%q) = %v, want ok %v", c.want, err, c.ok)
		}
	}
}

// TestLinks fails on a relative link in the README or a document under
// docs/ whose file does not exist.
func TestLinks(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(doc), target)); err != nil {
				t.Errorf("%s: link to %s: %v", filepath.Base(doc), m[1], err)
			}
		}
	}
}
