package cli_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/cli"
)

// TestExitCode: each kind of error has its status, and what is printed
// names the program (and, after a usage mistake, where the usage is).
func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{cli.ErrFailed, 1, ""},
		{fmt.Errorf("wrapped: %w", cli.ErrInterrupted), 130, "prog: wrapped: interrupted: partial results written\n"},
		{cli.Usagef("--x: bad %d", 3), 2, "prog: --x: bad 3\nrun 'prog -h'\n"},
		{errors.New("disk full"), 1, "prog: disk full\n"},
	} {
		var b bytes.Buffer
		if got := cli.ExitCode(c.err, &b, "prog", "run 'prog -h'"); got != c.code || b.String() != c.stderr {
			t.Errorf("ExitCode(%v) = %d, stderr %q; want %d, %q", c.err, got, b.String(), c.code, c.stderr)
		}
	}
}

// TestScenarioArg: flags may follow the scenario; one scenario exactly;
// the flags' values are checked; --seed and --runs become --set lines.
func TestScenarioArg(t *testing.T) {
	parse := func(args ...string) (string, *cli.ScenarioFlags, error) {
		fs := cli.NewFlagSet("prog", "cmd", io.Discard, "cmd SCENARIO")
		var sf cli.ScenarioFlags
		sf.Register(fs)
		name, err := cli.ScenarioArg(fs, &sf, args, "cmd")
		return name, &sf, err
	}
	name, sf, err := parse("--seed", "7", "mmc", "--runs", "100", "--set", "workers=3")
	if err != nil || name != "mmc" {
		t.Fatalf("ScenarioArg = %q, %v; want mmc", name, err)
	}
	if got, want := strings.Join(sf.AllSets(), " "), "workers=3 seed=7 runs=100"; got != want {
		t.Errorf("AllSets = %q, want %q", got, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "cmd needs exactly one scenario (a path or one of: "},
		{[]string{"a", "b"}, "cmd needs exactly one scenario"},
		{[]string{"mmc", "--replications", "0"}, "--replications: must be in [1, 10000], got 0"},
		{[]string{"mmc", "--format", "xml"}, `--format: must be table, markdown or json, got "xml"`},
		{[]string{"mmc", "--nosuch"}, "unknown flag --nosuch"},
	} {
		_, _, err := parse(c.args...)
		var ue cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ScenarioArg(%q) = %v; want a usage error containing %q", c.args, err, c.want)
		}
	}
	if _, _, err := parse("-h"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("ScenarioArg(-h) = %v, want flag.ErrHelp", err)
	}
}

// TestCheckOutFile: a directory where a file goes is a usage error, a
// missing directory an error naming it; a writable place passes and is
// left as it was.
func TestCheckOutFile(t *testing.T) {
	dir := t.TempDir()
	var ue cli.UsageError
	if err := cli.CheckOutFile("--out", dir); !errors.As(err, &ue) {
		t.Errorf("CheckOutFile(a directory) = %v, want a usage error", err)
	}
	missing := filepath.Join(dir, "missing", "r.html")
	if err := cli.CheckOutFile("--out", missing); err == nil || !strings.Contains(err.Error(), "--out "+missing) {
		t.Errorf("CheckOutFile(%s) = %v, want an error naming it", missing, err)
	}
	if err := cli.CheckOutFile("--out", filepath.Join(dir, "r.html")); err != nil {
		t.Errorf("CheckOutFile(a new file) = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("CheckOutFile left %d entries in the directory", len(entries))
	}
}

// Flags may come before or after the positional arguments.
func ExampleParse() {
	fs := cli.NewFlagSet("simulate", "run", io.Discard, "run SCENARIO [flags]")
	format := fs.String("format", "table", "output")
	pos, err := cli.Parse(fs, []string{"mmc", "--format", "json", "extra"})
	fmt.Println(pos, *format, err)
	// Output: [mmc extra] json <nil>
}

// TestParseOnce: a flag given twice is refused unless it is repeatable
// (--set), and so is an empty string flag (--out ”).
func TestParseOnce(t *testing.T) {
	newFS := func() (*flag.FlagSet, *cli.ScenarioFlags) {
		fs := cli.NewFlagSet("simulate", "run", io.Discard, "run SCENARIO")
		sf := &cli.ScenarioFlags{}
		sf.Register(fs)
		fs.String("out", "", "DIR")
		fs.Bool("quiet", false, "")
		return fs, sf
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mm1", "--runs", "10000", "--runs", "20000"}, `run: --runs: invalid value "20000": given twice (first "10000"): give it once`},
		{[]string{"--seed=1", "mm1", "--seed=1"}, `run: --seed: invalid value "1": given twice (first "1"): give it once`},
		{[]string{"mm1", "--quiet", "--quiet"}, "given twice"},
		{[]string{"mm1", "--out", ""}, `run: --out: invalid value "": empty: leave the flag out for its default, or give a value`},
		{[]string{"mm1", "--out="}, "--out: invalid value \"\": empty"},
	} {
		fs, _ := newFS()
		_, err := cli.Parse(fs, tc.args)
		var ue cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("cli.Parse(%q) = %v, want a usage error containing %s", tc.args, err, tc.want)
		}
	}
	// The usage text renders each flag from its own value's type.
	var usage bytes.Buffer
	fs, _ := newFS()
	fs.SetOutput(&usage)
	fs.Usage = func() { fs.PrintDefaults() }
	if _, err := cli.Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || strings.Contains(usage.String(), "panic") || !strings.Contains(usage.String(), "(default 0.95)") {
		t.Errorf("Parse(-h) = %v, usage:\n%s", err, usage.String())
	}
	fs, sf := newFS()
	pos, err := cli.Parse(fs, []string{"--set", "workers=2", "mm1", "--set", "seed=3", "--out", "x"})
	if err != nil || len(pos) != 1 || len(sf.Sets) != 2 {
		t.Errorf("cli.Parse(--set twice) = %v, %v; sets %q", pos, err, sf.Sets)
	}
}
