package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
)

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// errInterrupted reports a run stopped by Ctrl-C after writing what was
// complete: exit status 130.
var errInterrupted = errors.New("interrupted: partial results written")

// errFailed is returned when the command printed its own verdict (e.g. a
// failed validation) and only needs a non-zero status.
var errFailed = errors.New("")

// exitCode maps run's error to the process exit status and prints it.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errFailed):
		return 1
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "simulate:", err)
		return 130
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "simulate:", err)
		fmt.Fprintln(stderr, "run 'simulate help' for usage")
		return 2
	}
	fmt.Fprintln(stderr, "simulate:", err)
	return 1
}

// command is one subcommand of simulate.
type command struct {
	name     string
	synopsis string // one line for the usage text
	run      func(e *env, args []string) error
	// graceful commands watch env.interrupted and write what they have
	// when it is set; a signal ends every other command at once.
	graceful bool
}

// commands holds the subcommands; each command's file registers itself in
// an init function, so commands live in separate files.
var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

func usageText() string {
	var b strings.Builder
	b.WriteString("simulate — budgetsim's discrete-event simulator and capacity planner\n\nUsage:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  %s\n", commands[n].synopsis)
	}
	b.WriteString("  simulate help\n\nA SCENARIO is a path or the name of a bundled scenario (see 'simulate list').\nRun 'simulate COMMAND -h' for a command's flags.\n")
	return b.String()
}

// run is the testable entry point: it never calls os.Exit.
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return usageError{"no command given"}
	}
	var interrupted atomic.Bool
	if c, ok := commands[args[0]]; ok && c.graceful {
		// The first Ctrl-C or SIGTERM asks the command to stop at its next
		// check and write partial results; the handler is then removed, so
		// a second signal ends the process at once (a command blocked in
		// a read, say, never reaches its check).
		sig, done := make(chan os.Signal, 1), make(chan struct{})
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer close(done)
		defer signal.Stop(sig)
		go func() {
			select {
			case <-sig:
				interrupted.Store(true)
				signal.Stop(sig) // the default action again: the next signal ends the process
				fmt.Fprintln(stderr, "simulate: interrupted: stopping and writing partial results (interrupt again to quit at once)")
			case <-done:
			}
		}()
	}
	return runWith(stdout, stderr, args, &interrupted)
}

// runWith runs a command with the given interrupt flag (set by Ctrl-C in
// run; tests set it directly).
func runWith(stdout, stderr io.Writer, args []string, interrupted *atomic.Bool) error {
	e := &env{stdout: stdout, stderr: stderr, interrupted: interrupted}
	name, rest := args[0], args[1:]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		fmt.Fprint(stdout, usageText())
		return nil
	}
	c, ok := commands[name]
	if !ok {
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		return usagef("unknown command %q (commands: %s, help)", name, strings.Join(names, ", "))
	}
	// A command asked for -h returns flag.ErrHelp once its usage is
	// printed: that is a success, not an error.
	if err := c.run(e, rest); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

type env struct {
	stdout, stderr io.Writer
	interrupted    *atomic.Bool
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// parse parses flags that may come before or after positional arguments
// ("run mmc --format json" and "run --format json mmc" both work).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// newScenarioFlagSet is newFlagSet with the flags every command that
// simulates a scenario shares (--set, --seed, --runs, --replications, …)
// registered; the command adds its own.
func newScenarioFlagSet(name string, stderr io.Writer, synopsis string) (*flag.FlagSet, *scenarioFlags) {
	fs := newFlagSet(name, stderr, synopsis)
	sf := &scenarioFlags{}
	sf.register(fs)
	return fs, sf
}

func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: simulate %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// checkOutDir makes sure dir (an --out directory) exists, creating it,
// and that a file can be written there, before anything is simulated: a
// typo in --out then costs nothing rather than the whole simulation.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	return probeWrite("--out "+dir, dir)
}

// checkOutFile makes sure the directory of path (an output file) exists and
// takes a new file, before anything is simulated; flagName names the flag
// in the error.
func checkOutFile(flagName, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usagef("%s %s: is a directory; name a file", flagName, path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: directory %s: %w", flagName, path, dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flagName, path, dir)
	}
	return probeWrite(flagName+" "+path, dir)
}

// probeWrite creates and removes a temporary file in dir.
func probeWrite(what, dir string) error {
	f, err := os.CreateTemp(dir, ".budgetsim-probe-*")
	if err != nil {
		return fmt.Errorf("%s: cannot write there: %w", what, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// onceString is a string flag that refuses to be given twice, where the
// flag package would keep the last silently.
type onceString struct {
	why   string // why once, for the error
	value string
	set   bool
}

func (o *onceString) String() string { return o.value }

// Set implements flag.Value.
func (o *onceString) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (%q and %q): %s", o.value, v, o.why)
	}
	o.value, o.set = v, true
	return nil
}
