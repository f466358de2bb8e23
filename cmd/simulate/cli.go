package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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

const usage = `simulate — budgetsim's discrete-event simulator and capacity planner

Usage:
  simulate run SCENARIO [flags]     simulate a scenario: outcomes, latency percentiles,
                                    Little's law, retries (SCENARIO is a path or a bundled name)
  simulate compare SCENARIO --vary key=v1,v2[,…] [--vary …] [flags]
                                    run variants on common random numbers, one table
  simulate validate [flags]         simulated vs closed-form queueing results, with CIs
  simulate list                     the bundled scenarios
  simulate help                     this text

Run 'simulate COMMAND -h' for a command's flags.
`

// run is the testable entry point: it never calls os.Exit.
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var interrupted atomic.Bool
	go func() {
		<-ctx.Done()
		interrupted.Store(true)
	}()
	env := &env{stdout: stdout, stderr: stderr, interrupted: &interrupted}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return env.run(rest)
	case "compare":
		return env.compare(rest)
	case "validate":
		return env.validate(rest)
	case "list":
		return env.list(rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usagef("unknown command %q (commands: run, compare, validate, list, help)", cmd)
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

func newFlagSet(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: simulate %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}
