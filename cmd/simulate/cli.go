package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/budgetsim/budgetsim/internal/buildinfo"
	"github.com/budgetsim/budgetsim/internal/cli"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/scenarios"
)

// versionText is what --version prints: the build (buildinfo) and the
// scenario format it reads.
func versionText(prog string) string {
	return buildinfo.Read().Long(prog) + fmt.Sprintf("scenario format %d\n", scenarios.FormatVersion)
}

// exitCode maps run's error to the process exit status and prints it.
func exitCode(err error, stderr io.Writer) int {
	return cli.ExitCode(err, stderr, "simulate", "run 'simulate help' for usage")
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
	b.WriteString("  simulate help [COMMAND]\n  simulate version                     the build and the scenario format it reads (also --version, -v)\n\nA SCENARIO is a path or the name of a bundled scenario (see 'simulate list').\nRun 'simulate help COMMAND' for a command's flags.\n")
	return b.String()
}

// interruptWatched is called once a graceful command's signal handler is
// installed. The tests that signal a child process replace it to learn
// when a signal will reach the handler rather than end the process.
var interruptWatched = func() {}

// run is the testable entry point: it never calls os.Exit.
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return cli.UsageError{Msg: "no command given"}
	}
	var interrupted atomic.Bool
	if c, ok := commands[args[0]]; ok && c.graceful {
		defer cli.WatchInterrupt(stderr, "simulate", &interrupted)()
		interruptWatched()
	}
	return runWith(stdout, stderr, args, &interrupted)
}

// runWith runs a command with the given interrupt flag (set by Ctrl-C in
// run; tests set it directly).
func runWith(stdout, stderr io.Writer, args []string, interrupted *atomic.Bool) error {
	out := newOut(stdout)
	err := runOut(out, stderr, args, interrupted)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// newOut wraps standard output in the layout of its tables: as wide as
// the terminal, or render.DefaultWidth in a pipe or a file; in colour on a
// terminal unless NO_COLOR is set. Each command chooses the layout for its
// --format and --wide with env.setFormat.
func newOut(stdout io.Writer) *render.Out {
	width := cli.TerminalWidth(stdout)
	if width <= 0 {
		width = render.DefaultWidth
	}
	return render.NewOut(stdout, width, cli.Colour(stdout))
}

func runOut(stdout *render.Out, stderr io.Writer, args []string, interrupted *atomic.Bool) error {
	e := &env{stdout: stdout, stderr: stderr, interrupted: interrupted}
	if buildinfo.WantsVersion(args) || len(args) == 1 && args[0] == "version" {
		fmt.Fprint(stdout, versionText("simulate"))
		return nil
	}
	name, rest := args[0], args[1:]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		if name == "help" && len(rest) > 0 {
			return helpCommand(stdout, rest)
		}
		fmt.Fprint(stdout, usageText())
		return nil
	}
	if name == "report" {
		// The report left simulate (it links the chart, font and PDF
		// libraries, which every simulate process paid for at start-up).
		return cli.Usagef("report is a command of its own now: go run ./cmd/report %s (or go install ./cmd/report)", strings.Join(rest, " "))
	}
	c, err := lookup(name)
	if err != nil {
		return err
	}
	// A command asked for -h returns flag.ErrHelp once its usage is
	// printed: that is a success, not an error. A usage mistake points to
	// the command's help.
	err = c.run(e, rest)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	var ue cli.UsageError
	if errors.As(err, &ue) && ue.Hint == "" {
		ue.Hint = fmt.Sprintf("run 'simulate help %s' for its flags", name)
		return ue
	}
	return err
}

// lookup returns the command called name, or a usage error naming the
// closest command when name is misspelt.
func lookup(name string) (command, error) {
	if c, ok := commands[name]; ok {
		return c, nil
	}
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	msg := fmt.Sprintf("unknown command %q", name)
	if best := scenarios.Suggest(name, names); best != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", best)
	}
	return command{}, cli.UsageError{Msg: msg, Hint: "commands: " + strings.Join(names, ", ") + "; run 'simulate help COMMAND' for one's flags"}
}

// helpCommand prints the usage of the command args name ("simulate help
// run") on stdout: asked for, it is the output, not a complaint.
func helpCommand(stdout io.Writer, args []string) error {
	if len(args) > 1 {
		return cli.Usagef("help takes one command, got %d: %s", len(args), strings.Join(args, " "))
	}
	c, err := lookup(args[0])
	if err != nil {
		return err
	}
	var never atomic.Bool
	err = c.run(&env{stdout: stdout, stderr: stdout, interrupted: &never}, []string{"-h"})
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err == nil {
		return fmt.Errorf("help %s: the command printed no usage", args[0])
	}
	return err
}

type env struct {
	stdout, stderr io.Writer
	interrupted    *atomic.Bool
}

// setFormat lays out what the command prints next for its --format and
// --wide flags (render.Out.SetFormat).
func (e *env) setFormat(format string, wide bool) {
	if o, ok := e.stdout.(*render.Out); ok {
		o.SetFormat(format, wide)
	}
}

// newScenarioFlagSet is newFlagSet with the flags every command that
// simulates a scenario shares (--set, --seed, --runs, --replications, …)
// registered; the command adds its own.
func newScenarioFlagSet(name string, stderr io.Writer, synopsis string) (*flag.FlagSet, *cli.ScenarioFlags) {
	fs := newFlagSet(name, stderr, synopsis)
	sf := &cli.ScenarioFlags{}
	sf.Register(fs)
	return fs, sf
}

func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	return cli.NewFlagSet("simulate", name, stderr, synopsis)
}
