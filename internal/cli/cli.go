// Package cli is what budgetsim's commands (simulate, report) share on the
// command line: usage errors and exit statuses, flags that may follow
// positional arguments, the flags of every command that simulates a
// scenario, checks of output paths made before anything is simulated, and
// the Ctrl-C protocol of commands that write partial results.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/budgetsim/budgetsim/scenarios"
)

// UsageError is a command-line mistake: exit status 2.
type UsageError struct {
	Msg string
	// Hint is the one line printed after the message, saying where the
	// usage is ("run 'simulate help run' for its flags"); empty, the
	// program's general hint is printed.
	Hint string
}

// Error returns the message.
func (e UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error { return UsageError{Msg: fmt.Sprintf(format, args...)} }

// ErrInterrupted reports a run stopped by Ctrl-C after writing what was
// complete: exit status 130.
var ErrInterrupted = errors.New("interrupted: partial results written")

// ErrFailed is returned when the command printed its own verdict (e.g. a
// failed validation) and only needs a non-zero status.
var ErrFailed = errors.New("")

// ExitCode maps a command's error to the process exit status and prints
// it on stderr after the program's name prog; help is the hint printed
// after a usage error ("run 'simulate help' for usage").
func ExitCode(err error, stderr io.Writer, prog, help string) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrFailed):
		return 1
	case errors.Is(err, ErrInterrupted):
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 130
	}
	var ue UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		if ue.Hint != "" {
			help = ue.Hint
		}
		fmt.Fprintln(stderr, help)
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return 1
}

// WatchInterrupt installs the graceful commands' signal protocol: the
// first Ctrl-C or SIGTERM sets interrupted and asks the command to stop at
// its next check and write partial results; the handler is then removed,
// so a second signal ends the process at once (a command blocked in a
// read, say, never reaches its check). The returned stop undoes it.
func WatchInterrupt(stderr io.Writer, prog string, interrupted *atomic.Bool) (stop func()) {
	// Room for two: a second signal that arrives before this goroutine
	// has taken the first must not be dropped (signal.Notify never blocks).
	sig, done := make(chan os.Signal, 2), make(chan struct{})
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
			interrupted.Store(true)
			signal.Stop(sig) // the default action again: the next signal ends the process
			select {
			case s := <-sig:
				// The second came before Stop: deliver it again, now to
				// the default action (a signal ignored at start stays
				// ignored).
				if n, ok := s.(syscall.Signal); ok {
					syscall.Kill(os.Getpid(), n)
				}
			default:
			}
			fmt.Fprintf(stderr, "%s: interrupted: stopping and writing partial results (interrupt again to quit at once)\n", prog)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

// StringList is a repeatable string flag.
type StringList []string

// String implements flag.Value: the values, comma-separated.
func (s *StringList) String() string { return strings.Join(*s, ",") }

// Set implements flag.Value.
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }

// OnceString is a string flag that refuses to be given twice, where the
// flag package would keep the last silently.
type OnceString struct {
	Why   string // why once, for the error
	Value string
	set   bool
}

// String implements flag.Value.
func (o *OnceString) String() string { return o.Value }

// Set implements flag.Value.
func (o *OnceString) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (%q and %q): %s", o.Value, v, o.Why)
	}
	o.Value, o.set = v, true
	return nil
}

// NewFlagSet returns an empty flag set for command name of program prog,
// whose -h prints "Usage: prog synopsis" and the flags. When name differs
// from prog it is a subcommand, and a mistake in its flags points to
// "prog help name".
func NewFlagSet(prog, name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	full := name
	if name != prog {
		full = prog + " " + name
	}
	fs := flag.NewFlagSet(full, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s %s\n\nFlags:\n", prog, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// Repeatable is implemented by flag values that may be given more than
// once (StringList: --set, --unset, --vary, --slo). Parse refuses any other
// flag given twice, where the flag package would keep the last silently.
type Repeatable interface{ Repeatable() bool }

// Repeatable reports true: each --set, --vary or --slo adds one.
func (s *StringList) Repeatable() bool { return true }

// once wraps a flag's value so that a second Set is an error, as is an
// empty value for a string flag (its default, given explicitly: --out ”
// would otherwise be ignored without a word).
type once struct {
	flag.Value
	first   string
	set     bool
	noEmpty bool
}

func (o *once) Set(v string) error {
	if o.set {
		return fmt.Errorf("given twice (first %q): give it once", o.first)
	}
	if o.noEmpty && v == "" {
		return errors.New("empty: leave the flag out for its default, or give a value")
	}
	o.first, o.set = v, true
	return o.Value.Set(v)
}

// onceBool is once for a boolean flag, which the flag package recognises
// by its IsBoolFlag method.
type onceBool struct{ *once }

func (o onceBool) IsBoolFlag() bool { return true }

// giveOnce makes every flag of fs that is not Repeatable refuse a second
// value, until restore puts the flags' own values back (for the usage
// text, which the flag package renders from their types).
func giveOnce(fs *flag.FlagSet) (restore func()) {
	orig := map[*flag.Flag]flag.Value{}
	restore = func() {
		for f, v := range orig {
			f.Value = v
		}
		clear(orig)
	}
	fs.VisitAll(func(f *flag.Flag) {
		switch v := f.Value.(type) {
		case *once, onceBool, *OnceString:
			return
		case Repeatable:
			if v.Repeatable() {
				return
			}
		}
		orig[f] = f.Value
		o := &once{Value: f.Value, noEmpty: fmt.Sprintf("%T", f.Value) == "*flag.stringValue"}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = onceBool{o}
		} else {
			f.Value = o
		}
	})
	return restore
}

// Parse parses flags that may come before or after positional arguments
// ("run mmc --format json" and "run --format json mmc" both work) and
// returns the positional ones. -h prints fs.Usage and returns
// flag.ErrHelp. A flag given twice that is not Repeatable is refused. A
// malformed flag is a UsageError of one line, naming the
// closest defined flag when the flag is misspelt ("unknown flag --sed (did
// you mean --seed?)"), with a hint saying where the flags are listed,
// rather than the whole usage.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	// The flag package prints each error and the usage itself: silence it
	// while parsing.
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = usage; fs.SetOutput(out) }()
	restore := giveOnce(fs)
	defer restore()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				restore()
				fs.SetOutput(out)
				if usage != nil {
					usage()
				}
				return nil, err
			}
			return nil, flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// invalidValue matches the flag package's message for a value its flag
// refused.
var invalidValue = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for flag -(\S+): (.*)$`)

// flagError turns the flag package's error into a UsageError: an unknown
// flag with the closest defined one, and a hint naming the command's help.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("--%s: invalid value %s: %s", m[2], m[1], m[3])
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = "unknown flag --" + name
		if best := scenarios.Suggest(name, names); best != "" {
			msg += " (did you mean --" + best + "?)"
		}
	}
	prog, cmd, sub := strings.Cut(fs.Name(), " ")
	hint := fmt.Sprintf("run '%s -h' for the flags", prog)
	if sub {
		msg = cmd + ": " + msg
		hint = fmt.Sprintf("run '%s help %s' for its flags", prog, cmd)
	}
	return UsageError{Msg: msg, Hint: hint}
}

// ScenarioFlags are the flags shared by commands that load a scenario.
type ScenarioFlags struct {
	Sets         StringList
	Unsets       StringList
	Seed         int64
	Runs         int64
	Replications int
	Level        float64
	Parallel     int
	Format       string
	Wide         bool
}

// Register defines the flags on fs.
func (f *ScenarioFlags) Register(fs *flag.FlagSet) {
	fs.Var(&f.Sets, "set", "override a scenario key: `path=value` (dot paths; list items by name, e.g. steps.fetch.timeout=300ms); repeatable")
	fs.Var(&f.Unsets, "unset", "remove a scenario key or list item: `path` (retry.budget, steps.fetch); applied before the --set overrides; repeatable")
	fs.Int64Var(&f.Seed, "seed", -1, "override the scenario's seed (≥ 0; -1 keeps the scenario's)")
	fs.Int64Var(&f.Runs, "runs", -1, "override the number of arrivals to simulate (≥ 1; -1 keeps the scenario's)")
	fs.IntVar(&f.Replications, "replications", 1, "independent replications; ≥ 2 adds Student-t confidence intervals")
	fs.Float64Var(&f.Level, "level", 0.95, "confidence level of the intervals")
	fs.IntVar(&f.Parallel, "parallel", 0, "goroutines for replications (0: all cores); results do not depend on it")
	RegisterOutput(fs, &f.Format, &f.Wide)
}

// FormatUsage is the help text of --format for a command that prints
// tables.
const FormatUsage = "output: table (fitted to the terminal's width, or 100 columns in a pipe), markdown (the tables in Markdown, for a document) or json"

// RegisterOutput defines --format (table, markdown or json) and --wide on
// fs, the flags that choose how a command prints its tables.
func RegisterOutput(fs *flag.FlagSet, format *string, wide *bool) {
	fs.StringVar(format, "format", "table", FormatUsage)
	fs.BoolVar(wide, "wide", false, "print each table whole, as wide as its contents, rather than fitted to the width (wrapped, transposed or split)")
}

// CheckFormat checks a --format value among formats ("table", "markdown",
// "json").
func CheckFormat(format string, formats ...string) error {
	if slices.Contains(formats, format) {
		return nil
	}
	return Usagef("--format: must be %s, got %q", orList(formats), format)
}

// orList joins "a", "b", "c" as "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// Check validates the flags' values.
func (f *ScenarioFlags) Check() error {
	if err := CheckFormat(f.Format, "table", "markdown", "json"); err != nil {
		return err
	}
	if f.Replications < 1 || f.Replications > 10000 {
		return Usagef("--replications: must be in [1, 10000], got %d", f.Replications)
	}
	if !(f.Level > 0 && f.Level < 1) { // NaN fails too
		return Usagef("--level: must be in (0, 1), got %g", f.Level)
	}
	if f.Parallel < 0 {
		return Usagef("--parallel: must be ≥ 0, got %d", f.Parallel)
	}
	if f.Runs == 0 || f.Runs < -1 {
		return Usagef("--runs: must be ≥ 1 (or -1 for the scenario's own), got %d", f.Runs)
	}
	if f.Seed < -1 {
		return Usagef("--seed: must be ≥ 0 (or -1 for the scenario's own), got %d", f.Seed)
	}
	return nil
}

// AllSets returns the overrides the flags make, in the order they apply:
// the --unset removals (scenarios.Unset), the --set overrides, then --seed
// and --runs, so that they are validated exactly like the file.
func (f *ScenarioFlags) AllSets() []string {
	var sets []string
	for _, p := range f.Unsets {
		sets = append(sets, scenarios.Unset(p))
	}
	sets = append(sets, f.Sets...)
	if f.Seed >= 0 {
		sets = append(sets, "seed="+strconv.FormatInt(f.Seed, 10))
	}
	if f.Runs > 0 {
		sets = append(sets, "runs="+strconv.FormatInt(f.Runs, 10))
	}
	return sets
}

// ScenarioArg parses args with fs and returns the one scenario they name;
// cmd names the command in the error.
func ScenarioArg(fs *flag.FlagSet, sf *ScenarioFlags, args []string, cmd string) (string, error) {
	pos, err := Parse(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", Usagef("%s needs exactly one scenario (a path or one of: %s)", cmd, ScenarioNames())
	}
	if err := sf.Check(); err != nil {
		return "", err
	}
	return pos[0], nil
}

// ScenarioNames returns the bundled scenarios' names, comma-separated.
func ScenarioNames() string { return strings.Join(scenarios.Names(), ", ") }

// CheckOutDir makes sure dir (an --out directory) exists, creating it,
// and that a file can be written there, before anything is simulated: a
// typo in --out then costs nothing rather than the whole simulation.
func CheckOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	return probeWrite("--out "+dir, dir)
}

// CheckOutFile makes sure the directory of path (an output file) exists
// and takes a new file, before anything is simulated; flagName names the
// flag in the error.
func CheckOutFile(flagName, path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return Usagef("%s %s: is a directory; name a file", flagName, path)
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

// SuggestDir returns the directory beside path whose name is closest to
// path's (scenarios.Suggest: a typo of it), or "" when there is none: a
// "did you mean" for a results directory that does not exist.
func SuggestDir(path string) string {
	parent, base := filepath.Split(filepath.Clean(path))
	if parent == "" {
		parent = "."
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return ""
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			dirs = append(dirs, e.Name())
		}
	}
	best := scenarios.Suggest(base, dirs)
	if best == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Clean(path)), best)
}
