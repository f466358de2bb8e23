package scenarios

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/arrival"
	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/dist"
	"github.com/budgetsim/budgetsim/model/hedge"
	"github.com/budgetsim/budgetsim/model/latencylog"
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/system"
)

// Limits on sizes, so that an absurd scenario is refused with a message
// instead of running for days or exhausting memory.
const (
	MaxRuns     = 10_000_000_000
	MaxWorkers  = 100_000_000
	MaxQueue    = 100_000_000
	MaxAttempts = 10_000
	MaxSteps    = 1_000
	MaxTools    = 1_000 // each tool costs per-replication state and a time series
	MaxDuration = 100 * 365 * 24 * time.Hour
	maxFileSize = 16 << 20
)

// Bounds on the guards that stop a runaway model, so that a model stopped
// by both takes at most about 2.6 GB: a run in the system costs about 350
// bytes, a call waiting at a tool about 90 (the resident memory of an
// overloaded M/M/1 stopped by max_in_system, and of a retry storm stopped by
// max_tool_queue, each at two guard values), so 4 M runs and 8 M calls with
// room above that fit a 4 GB address space.
const (
	MaxInSystemGuard  = 4_000_000
	MaxToolQueueGuard = 8_000_000
)

// Scenario is a loaded scenario: its compiled configuration and the text it
// came from (after --set overrides).
type Scenario struct {
	Config *system.Config
	// File is where it was read from ("scenarios/mmc.yaml", or the bundled
	// name's embedded path).
	File string
	// Source is the YAML text as read.
	Source []byte
	// Description is the scenario's description key.
	Description string
	// Overrides are the --set overrides applied to Source, in order;
	// Effective is the text after them (see effective.go).
	Overrides []string
	effective []byte

	fsys fs.FS     // where the files the scenario names are read from
	logs *logCache // the latency logs read for it, shared by Reparse
}

// Load reads a scenario by path, or by the name of a bundled scenario, and
// applies --set overrides ("path=value"). Errors are of type Errors, each
// naming file, line and field.
func Load(nameOrPath string, sets []string) (*Scenario, error) {
	src, file, fsys, err := open(nameOrPath)
	if err != nil {
		return nil, err
	}
	return Parse(file, src, sets, fsys)
}

// open finds nameOrPath on disk first, then among the bundled scenarios.
func open(nameOrPath string) (src []byte, file string, fsys fs.FS, err error) {
	if st, statErr := os.Stat(nameOrPath); statErr == nil && !st.IsDir() {
		if st.Size() > maxFileSize {
			return nil, "", nil, fmt.Errorf("%s: file is %d bytes, larger than the %d-byte limit for a scenario", nameOrPath, st.Size(), maxFileSize)
		}
		f, err := os.Open(nameOrPath)
		if err != nil {
			return nil, "", nil, err
		}
		defer f.Close()
		src, err = io.ReadAll(io.LimitReader(f, maxFileSize+1))
		if err != nil {
			return nil, "", nil, err
		}
		if len(src) > maxFileSize {
			return nil, "", nil, fmt.Errorf("%s: more than the %d-byte limit for a scenario", nameOrPath, maxFileSize)
		}
		return src, nameOrPath, inDir(filepath.Dir(nameOrPath)), nil
	}
	name := strings.TrimSuffix(path.Base(nameOrPath), ".yaml")
	if nameOrPath == name || nameOrPath == "scenarios/"+name+".yaml" {
		if b, err := bundled.ReadFile(name + ".yaml"); err == nil {
			return b, "scenarios/" + name + ".yaml", bundledThenHere{}, nil
		}
	}
	if st, err := os.Stat(nameOrPath); err == nil && st.IsDir() {
		return nil, "", nil, fmt.Errorf("%s: is a directory; name a scenario file or a bundled scenario (bundled: %s)", nameOrPath, strings.Join(Names(), ", "))
	}
	return nil, "", nil, fmt.Errorf("%s: %w (bundled: %s)", nameOrPath, ErrNotFound, strings.Join(Names(), ", "))
}

// ErrNotFound is wrapped by Load's error for a name that is neither a file
// nor a bundled scenario.
var ErrNotFound = errors.New("no such file, and no bundled scenario of that name")

// inDir is the directory a scenario file's data files are read from. Its
// Open refuses a name that leaves the directory through a symbolic link,
// as fs.ValidPath refuses "..": os.OpenInRoot resolves every link inside
// the directory.
type inDir string

// errOutside is wrapped by inDir.Open's error for a name whose symbolic
// links lead out of the directory.
var errOutside = errors.New("a symbolic link leads outside the scenario's directory")

// Open implements fs.FS.
func (d inDir) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := os.OpenInRoot(string(d), name)
	if err == nil {
		return f, nil
	}
	// Tell a link out of the directory from a missing file.
	if full, lerr := filepath.EvalSymlinks(filepath.Join(string(d), name)); lerr == nil {
		if root, rerr := filepath.EvalSymlinks(string(d)); rerr == nil {
			if rel, err := filepath.Rel(root, full); err != nil || !filepath.IsLocal(rel) {
				return nil, &fs.PathError{Op: "open", Path: name, Err: errOutside}
			}
		}
	}
	return nil, err
}

// bundledThenHere resolves the files a bundled scenario names: among the
// bundled files first (its own latency logs), then in the current
// directory, where the user's --set overrides name theirs.
type bundledThenHere struct{}

// Open implements fs.FS.
func (bundledThenHere) Open(name string) (fs.File, error) {
	f, err := bundled.Open(name)
	if err == nil {
		return f, nil
	}
	return os.DirFS(".").Open(name)
}

// Parse compiles a scenario from its YAML source. file names it in errors;
// fsys resolves relative paths in it (empirical distribution files); sets
// are --set overrides.
func Parse(file string, src []byte, sets []string, fsys fs.FS) (*Scenario, error) {
	return parse(file, src, sets, fsys, &logCache{})
}

func parse(file string, src []byte, sets []string, fsys fs.FS, logs *logCache) (*Scenario, error) {
	d := &decoder{file: file, sets: sets}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		return nil, Errors{yamlSyntaxError(file, src, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, Errors{{File: file, Line: extra.Line, Msg: `a scenario is one YAML document: remove this "---" and what follows, or merge it into the first`}}
	case !errors.Is(err, io.EOF):
		return nil, Errors{yamlSyntaxError(file, src, err)}
	}
	root := doc.Content[0]
	for i, s := range sets {
		if err := applySet(root, s, -(i + 1)); err != nil {
			return nil, Errors{{File: file, Set: s, Msg: err.Error()}}
		}
	}
	l := &loader{d: d, fsys: fsys, logs: logs}
	cfg, desc := l.scenario(root)
	if len(d.errs) > 0 {
		return nil, d.errs.sorted()
	}
	eff, err := effectiveText(src, &doc, sets)
	if err != nil {
		return nil, Errors{{File: file, Msg: err.Error()}}
	}
	return &Scenario{Config: cfg, File: file, Source: src, Description: desc, Overrides: slices.Clone(sets), effective: eff, fsys: fsys, logs: logs}, nil
}

// Reparse parses the scenario's YAML text again, as it was read, with sets
// instead of the overrides it was loaded with. No file is read again: the
// latency logs the text names are shared, as read the first time, by
// every scenario reparsed from it (their samples are immutable). So the
// variants of a sweep, comparison or search all come from one text and
// one copy of each log, even if the files change meanwhile. It is safe
// for concurrent use.
func (s *Scenario) Reparse(sets []string) (*Scenario, error) {
	logs := s.logs
	if logs == nil {
		logs = &logCache{}
	}
	return parse(s.File, s.Source, sets, s.fsys, logs)
}

// Variants loads variants of one scenario from a single reading of its
// file: the first Load reads nameOrPath (with that call's overrides, so a
// file valid only with them loads), later ones parse the same text with
// theirs (Scenario.Reparse). The zero value is ready; not safe for
// concurrent use.
type Variants struct {
	text *Scenario
}

// Load returns the variant with overrides sets. nameOrPath is read on the
// first successful call only: pass the same one every time.
func (v *Variants) Load(nameOrPath string, sets []string) (*Scenario, error) {
	if v.text != nil {
		return v.text.Reparse(sets)
	}
	sc, err := Load(nameOrPath, sets)
	if err == nil {
		v.text = sc
	}
	return sc, err
}

// logCache holds the empirical distributions read from latency logs, by
// file name, with the message of a failed read; each file is read once.
type logCache struct {
	mu sync.Mutex
	m  map[string]*logEntry
}

type logEntry struct {
	once sync.Once
	d    dist.Dist
	msg  string // why the file could not be used; "" when d is set
}

// get returns the distribution of latency log name, reading it with read
// the first time.
func (c *logCache) get(name string, read func() (dist.Dist, string)) (dist.Dist, string) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*logEntry{}
	}
	e := c.m[name]
	if e == nil {
		e = &logEntry{}
		c.m[name] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.d, e.msg = read() })
	return e.d, e.msg
}

type loader struct {
	d    *decoder
	fsys fs.FS
	logs *logCache
	// traceLen is the number of arrivals of a trace file, 0 without one.
	traceLen int
	// stepNodes are the steps' YAML nodes, for crossCheck's lines, in the
	// order of Config.PlanSteps; stepPaths the path of each (steps.NAME,
	// classes.CLASS.steps.NAME).
	stepNodes []*yaml.Node
	stepPaths []string
	// arrivalsNode is the arrivals mapping's node, for crossCheck's line.
	arrivalsNode *yaml.Node
	// classDrafts are the classes being read (classes.go).
	classDrafts []classDraft
	// toolCfgs are the tools read, for the steps' checks.
	toolCfgs []system.Tool
}

// retryFields are the retry keys allowed at the top level (under retry:)
// and on each step, which overrides them.
type retryFields struct {
	policy retry.Policy
	budget *system.BudgetSpec
}

func (l *loader) scenario(root *yaml.Node) (*system.Config, string) {
	d := l.d
	f := d.keys(root, "", "scenario")
	if f == nil {
		return nil, ""
	}
	cfg := &system.Config{Seed: 1, QueueCapacity: system.Unbounded}
	if n := f.get("name"); n != nil {
		if s, ok := d.scalar(n, "name"); ok {
			cfg.Name = s
			if s == "" {
				d.errorf(n, "name", "must not be empty")
			}
		}
	} else {
		d.errorf(root, "name", "required")
	}
	desc := ""
	if n := f.get("description"); n != nil {
		desc = d.str(n, "description")
	}
	if n := f.get("seed"); n != nil {
		cfg.Seed = uint64(d.integer(n, "seed", 0, math.MaxInt64))
	}
	runsNode, horizonNode := f.get("runs"), f.get("horizon")
	// A --set of one of runs/horizon replaces the other from the file.
	if runsNode != nil && horizonNode != nil {
		switch {
		case horizonNode.Line < 0 && runsNode.Line >= 0:
			runsNode = nil
		case runsNode.Line < 0 && horizonNode.Line >= 0:
			horizonNode = nil
		}
	}
	if runsNode != nil {
		cfg.Runs = d.integer(runsNode, "runs", 1, MaxRuns)
	}
	if horizonNode != nil {
		before := len(d.errs)
		cfg.Horizon = d.duration(horizonNode, "horizon", MaxDuration)
		if cfg.Horizon == 0 && len(d.errs) == before {
			d.errorf(horizonNode, "horizon", "must be > 0")
		}
	}
	classesNode := f.get("classes")
	if classesNode != nil {
		l.classesEarly(classesNode, cfg)
	}
	switch n := f.get("arrivals"); {
	case n != nil && cfg.OwnClassArrivals():
		d.errorf(n, "arrivals", "every class has arrivals of its own: remove the top-level arrivals, or the classes' arrivals to share these by weight")
	case n != nil:
		l.arrivalsNode = n
		cfg.Arrivals = l.arrivals(n)
	case cfg.OwnClassArrivals():
		// The superposition of the classes' processes (system.classMerge).
		cfg.Arrivals = system.Arrivals{Process: system.Open, Rate: ownArrivalsRate(cfg)}
	default:
		d.errorf(root, "arrivals", "required (e.g. arrivals: {rate: 9/s})")
	}
	switch {
	case cfg.Arrivals.Process == system.Batch:
		if at := cmp.Or(runsNode, horizonNode); at != nil {
			d.errorf(at, "runs", "a batch sets the number of runs itself (arrivals.count); remove runs/horizon")
		}
		cfg.Runs = cfg.Arrivals.Count
	case runsNode != nil && horizonNode != nil:
		d.errorf(horizonNode, "horizon", "give runs or horizon, not both")
	case runsNode == nil && horizonNode == nil && l.traceLen > 0:
		cfg.Runs = int64(l.traceLen) // the whole trace
	case runsNode == nil && horizonNode == nil:
		cfg.Runs = 100_000
	case runsNode != nil && l.traceLen > 0 && cfg.Runs > int64(l.traceLen):
		d.errorf(runsNode, "runs", "%d, but the trace (arrivals.file) has only %d arrivals: set runs ≤ %d, or leave runs out to replay the whole trace", cfg.Runs, l.traceLen, l.traceLen)
	}
	if horizonNode != nil && cfg.Horizon > 0 {
		if n := cfg.Arrivals.Rate * cfg.Horizon.Seconds(); n > MaxRuns {
			d.errorf(horizonNode, "horizon", "%s at %s would make about %.3g runs, more than %d: shorten the horizon", shortDuration(cfg.Horizon), FormatRate(cfg.Arrivals.Rate), n, int64(MaxRuns))
		}
	}
	if n := f.get("warmup"); n != nil {
		l.warmup(n, cfg)
	}
	if n := f.get("workers"); n != nil {
		cfg.Workers = int(d.integer(n, "workers", 1, MaxWorkers))
	} else {
		d.errorf(root, "workers", "required: how many runs are served at once (≥ 1)")
	}
	if n := f.get("queue"); n != nil {
		if q := d.keys(n, "queue", "queue"); q != nil {
			if c := q.get("capacity"); c != nil {
				cfg.QueueCapacity = int(d.integer(c, "queue.capacity", 0, MaxQueue))
			}
			q.finish()
		}
	}
	if n := f.get("deadline"); n != nil {
		cfg.Deadline = d.duration(n, "deadline", MaxDuration)
	}
	if n := f.get("floor"); n != nil {
		cfg.Floor = d.duration(n, "floor", MaxDuration)
	}
	if n := f.get("min_lease"); n != nil {
		cfg.MinLease = d.duration(n, "min_lease", MaxDuration)
	}
	defaults := retryFields{policy: retry.Policy{Attempts: 1, HonorRetryAfter: true, RetryAfterJitter: retry.DefaultRetryAfterJitter, Backoff: defaultBackoff()}}
	if n := f.get("retry"); n != nil {
		if rf := d.keys(n, "retry", "retry"); rf != nil {
			l.retryKeys(rf, &defaults)
			rf.finish()
		}
	}
	toolIndex := map[string]int{}
	if n := f.get("tools"); n != nil {
		cfg.Tools = l.tools(n, toolIndex)
		l.toolCfgs = cfg.Tools
	} else {
		d.errorf(root, "tools", "required: the backends the steps call")
	}
	stepsNode := f.get("steps")
	if stepsNode != nil {
		cfg.Steps, cfg.Groups = l.steps(stepsNode, toolIndex, cfg.Tools, defaults)
	}
	if classesNode != nil {
		l.classesLate(cfg, toolIndex, defaults)
	}
	switch {
	case stepsNode != nil || everyClassHasSteps(cfg):
	case len(cfg.Classes) > 0:
		d.errorf(root, "steps", "required: the plan of the classes without steps of their own")
	default:
		d.errorf(root, "steps", "required: the plan each run executes")
	}
	if n := f.get("guards"); n != nil {
		cfg.Guards = l.guards(n)
	}
	if n := f.get("cost"); n != nil {
		if cf := d.keys(n, "cost", "budget_cost"); cf != nil {
			if v := cf.get("run_budget"); v != nil {
				cfg.RunBudget = l.amount(v, "cost.run_budget")
			}
			if v := cf.get("scenario_budget"); v != nil {
				cfg.ScenarioBudget = l.amount(v, "cost.scenario_budget")
			}
			cf.finish()
		}
	}
	l.scheduling(f, cfg)
	f.finish()
	if len(d.errs) == 0 {
		l.crossCheck(root, cfg)
	}
	return cfg, desc
}

func defaultBackoff() backoff.Policy {
	return backoff.Policy{Base: 50 * time.Millisecond, Multiplier: 2, Cap: 5 * time.Second, Jitter: backoff.Full}
}

func (l *loader) arrivals(n *yaml.Node) system.Arrivals {
	return l.arrivalsAt(n, "arrivals")
}

// arrivalsAt reads an arrivals mapping at path (arrivals, or a class's
// classes.NAME.arrivals).
func (l *loader) arrivalsAt(n *yaml.Node, ap string) system.Arrivals {
	d := l.d
	var a system.Arrivals
	f := d.keys(n, ap, "arrivals")
	if f == nil {
		return a
	}
	process := "poisson"
	if p := f.get("process"); p != nil {
		process = d.oneOf(p, ap+".process", "poisson", "constant", "batch", "schedule", "diurnal", "trace", "closed")
		if process == "" {
			// Already reported: do not report the process's keys as unknown.
			f.known = append(f.known, "rate", "count", "rates", "repeat", "amplitude", "period", "peak", "file", "users", "think")
		}
	}
	rate := func(required bool) float64 {
		r := f.get("rate")
		if r == nil {
			if required {
				d.errorf(n, ap+".rate", "required for %s arrivals (e.g. rate: 9/s)", process)
			}
			return 0
		}
		before := len(d.errs)
		v := d.rate(r, ap+".rate")
		if v <= 0 && len(d.errs) == before {
			d.errorf(r, ap+".rate", "must be > 0")
		}
		return v
	}
	var err error
	switch process {
	case "poisson", "constant":
		a.Process = system.Poisson
		if process == "constant" {
			a.Process = system.Constant
		}
		a.Rate = rate(true)
	case "batch":
		a.Process = system.Batch
		if c := f.get("count"); c != nil {
			a.Count = d.integer(c, ap+".count", 1, 100_000_000)
		} else {
			d.errorf(n, ap+".count", "required for a batch: how many runs arrive at once")
		}
	case "schedule":
		a.Process = system.Open
		var pts []arrival.RatePoint
		rs := f.get("rates")
		if rs == nil {
			d.errorf(n, ap+".rates", "required: a list of {at, rate}, e.g. [{at: 0h, rate: 2/s}, {at: 9h, rate: 8/s}]")
			break
		}
		for i, item := range d.sequence(rs, ap+".rates") {
			p := fmt.Sprintf("%s.rates[%d]", ap, i)
			pf := d.keys(item, p, "rate_point")
			if pf == nil {
				continue
			}
			var pt arrival.RatePoint
			if v := pf.get("at"); v != nil {
				pt.At = d.duration(v, p+".at", MaxDuration)
			} else {
				d.errorf(item, p+".at", "required")
			}
			if v := pf.get("rate"); v != nil {
				pt.Rate = d.rate(v, p+".rate")
			} else {
				d.errorf(item, p+".rate", "required")
			}
			pf.finish()
			pts = append(pts, pt)
		}
		var repeat time.Duration
		if v := f.get("repeat"); v != nil {
			repeat = d.duration(v, ap+".repeat", MaxDuration)
		}
		if len(d.errs) == 0 {
			a.Source, err = arrival.Schedule(pts, repeat)
			l.arrivalErr(err, rs, ap+".")
		}
	case "diurnal":
		a.Process = system.Open
		mean := rate(true)
		amp := 0.5
		if v := f.get("amplitude"); v != nil {
			amp = d.number(v, ap+".amplitude", 0, 1)
		}
		period := 24 * time.Hour
		if v := f.get("period"); v != nil {
			before := len(d.errs)
			period = d.duration(v, ap+".period", MaxDuration)
			if period == 0 && len(d.errs) == before {
				d.errorf(v, ap+".period", "must be > 0")
			}
		}
		var peak time.Duration
		hasPeak := false
		if v := f.get("peak"); v != nil {
			peak = d.duration(v, ap+".peak", MaxDuration)
			hasPeak = true
		}
		if len(d.errs) == 0 && period > 0 {
			// rate(t) = mean(1 + a·sin(2πt/period + φ)) peaks where the
			// sine's argument is π/2.
			phase := 0.0
			if hasPeak {
				phase = math.Pi/2 - 2*math.Pi*float64(peak)/float64(period)
			}
			a.Source, err = arrival.Diurnal(mean, amp, period, phase)
			l.arrivalErr(err, n, ap+".")
		}
	case "trace":
		a.Process = system.Open
		v := f.get("file")
		if v == nil {
			d.errorf(n, ap+".file", "required: a file of arrival timestamps, one per line")
			break
		}
		name, ok := d.scalar(v, ap+".file")
		switch {
		case !ok:
		case name == "":
			d.errorf(v, ap+".file", "must not be empty")
		case l.fsys == nil:
			d.errorf(v, ap+".file", "cannot read %q: no directory to resolve it in", name)
		}
		if !ok || name == "" || l.fsys == nil {
			break
		}
		if !fs.ValidPath(filepath.ToSlash(name)) {
			d.errorf(v, ap+".file", "%q is outside the scenario's directory: give a path relative to it, without \"..\"", name)
			break
		}
		file, ferr := l.fsys.Open(filepath.ToSlash(name))
		if errors.Is(ferr, errOutside) {
			d.errorf(v, ap+".file", "%q is outside the scenario's directory (%v): give a path relative to it, without \"..\"", name, errOutside)
			break
		}
		if ferr != nil {
			d.errorf(v, ap+".file", "cannot read %q: %v", name, unwrapPathError(ferr))
			break
		}
		times, rerr := arrival.ReadTrace(file, name)
		file.Close()
		if rerr != nil {
			d.errorf(v, ap+".file", "%v", rerr)
			break
		}
		a.Source, err = arrival.Trace(times)
		l.arrivalErr(err, v, ap+".file: ")
		if err == nil && ap == "arrivals" {
			l.traceLen = len(times)
		}
	case "closed":
		a.Process = system.Closed
		if v := f.get("users"); v != nil {
			a.Users = int(d.integer(v, ap+".users", 1, 10_000_000))
		} else {
			d.errorf(n, ap+".users", "required for a closed population: how many agents loop")
		}
		if v := f.get("think"); v != nil {
			a.Think = l.dist(v, ap+".think", true)
		} else {
			d.errorf(n, ap+".think", "required: each agent's think time between runs (e.g. {dist: exponential, mean: 30s})")
		}
	}
	if a.Source != nil {
		a.Rate = a.Source.MeanRate()
	}
	f.finish()
	return a
}

func (l *loader) warmup(n *yaml.Node, cfg *system.Config) {
	d := l.d
	s, ok := d.scalar(n, "warmup")
	if !ok {
		return
	}
	if strings.ContainsAny(s, "smhµu") {
		cfg.WarmupTime = d.duration(n, "warmup", MaxDuration)
		if cfg.Horizon > 0 && cfg.WarmupTime >= cfg.Horizon {
			d.errorf(n, "warmup", "must be < horizon (%v): no run would be measured", cfg.Horizon)
		}
		return
	}
	cfg.WarmupRuns = d.integer(n, "warmup", 0, MaxRuns)
	if cfg.Runs > 0 && cfg.WarmupRuns >= cfg.Runs {
		d.errorf(n, "warmup", "must be < runs (%d): no run would be measured", cfg.Runs)
	}
}

// retryKeys reads the retry keys present in f into r (overriding it).
func (l *loader) retryKeys(f *fields, r *retryFields) {
	d := l.d
	if n := f.get("attempts"); n != nil {
		r.policy.Attempts = int(d.integer(n, f.field("attempts"), 1, MaxAttempts))
	}
	if n := f.get("backoff"); n != nil {
		if b := d.keys(n, f.field("backoff"), "backoff"); b != nil {
			p := &r.policy.Backoff
			if v := b.get("base"); v != nil {
				p.Base = d.duration(v, b.field("base"), MaxDuration)
			}
			if v := b.get("multiplier"); v != nil {
				p.Multiplier = d.number(v, b.field("multiplier"), 1, 1000)
			}
			if v := b.get("cap"); v != nil {
				p.Cap = d.duration(v, b.field("cap"), MaxDuration)
			}
			if v := b.get("jitter"); v != nil {
				s := d.oneOf(v, b.field("jitter"), "none", "full", "equal", "decorrelated", "proportional")
				if s != "" {
					j, err := backoff.ParseJitter(s)
					if err != nil {
						d.errorf(v, b.field("jitter"), "%v", err)
					}
					p.Jitter = j
				}
			}
			if v := b.get("spread"); v != nil {
				p.Spread = d.number(v, b.field("spread"), 0, 1)
			}
			if p.Cap > 0 && p.Base > p.Cap {
				d.errorf(b.node, b.field("cap"), "must be ≥ base (%v), got %v", p.Base, p.Cap)
			}
			b.finish()
		}
	}
	if n := f.get("retry_after"); n != nil {
		r.policy.HonorRetryAfter = d.oneOf(n, f.field("retry_after"), "honor", "ignore") == "honor"
	}
	if n := f.get("retry_after_jitter"); n != nil {
		r.policy.RetryAfterJitter = d.number(n, f.field("retry_after_jitter"), 0, retry.MaxRetryAfterJitter)
	}
	if n := f.get("idempotent"); n != nil {
		r.policy.Idempotent = d.boolean(n, f.field("idempotent"))
	}
	if n := f.get("idempotency_key"); n != nil {
		r.policy.IdempotencyKey = d.boolean(n, f.field("idempotency_key"))
	}
	if n := f.get("allow_unsafe"); n != nil {
		r.policy.AllowUnsafe = d.boolean(n, f.field("allow_unsafe"))
	}
	if n := f.get("budget"); n != nil {
		r.budget = l.budget(n, f.field("budget"))
	}
}

func (l *loader) budget(n *yaml.Node, path string) *system.BudgetSpec {
	d := l.d
	f := d.keys(n, path, "budget")
	if f == nil {
		return nil
	}
	var b system.BudgetSpec
	kind := ""
	if k := f.get("kind"); k != nil {
		kind = d.oneOf(k, f.field("kind"), "token_bucket", "throttle", "ratio")
	} else {
		d.errorf(n, f.field("kind"), "required: token_bucket (AWS SDK standard mode), throttle (gRPC) or ratio (Finagle/Envoy)")
	}
	if kind == "" {
		// Already reported: do not report the kinds' keys as unknown.
		f.known = append(f.known, "capacity", "retry_cost", "timeout_cost", "success_increment", "max_tokens", "token_ratio", "ratio", "min_per_second", "ttl")
	}
	num := func(key string, def, lo, hi float64) float64 {
		if v := f.get(key); v != nil {
			return d.number(v, f.field(key), lo, hi)
		}
		return def
	}
	whole := func(key string, def, lo int64) float64 {
		if v := f.get(key); v != nil {
			return float64(d.integer(v, f.field(key), lo, 1_000_000_000))
		}
		return float64(def)
	}
	switch kind {
	case "token_bucket":
		b.Kind = system.TokenBucketBudget
		// Defaults: AWS SDK standard retry mode (aws-sdk-go-v2 aws/retry).
		b.Capacity = whole("capacity", 500, 1)
		b.RetryCost = whole("retry_cost", 5, 1)
		b.TimeoutCost = whole("timeout_cost", 10, 1)
		b.NoRetryIncrement = whole("success_increment", 1, 0)
	case "throttle":
		b.Kind = system.ThrottleBudget
		// Defaults: gRPC retry throttling example values (gRFC A6).
		b.MaxTokens = whole("max_tokens", 10, 1)
		b.TokenRatio = num("token_ratio", 0.1, 0.001, 1000)
	case "ratio":
		b.Kind = system.RatioBudget
		// Defaults: Finagle RetryBudget (20 %, 10 retries/s floor, 10 s TTL).
		b.Ratio = num("ratio", 0.2, 0, 1000)
		b.MinPerSecond = num("min_per_second", 10, 0, 1e9)
		b.TTL = 10 * time.Second
		if v := f.get("ttl"); v != nil {
			before := len(d.errs)
			b.TTL = d.duration(v, f.field("ttl"), MaxDuration)
			if b.TTL <= 0 && len(d.errs) == before {
				d.errorf(v, f.field("ttl"), "must be > 0")
			}
		}
	}
	f.finish()
	return &b
}

func (l *loader) steps(n *yaml.Node, toolIndex map[string]int, tools []system.Tool, defaults retryFields) ([]system.Step, []system.Group) {
	var groups []system.Group
	steps := l.stepsAt(n, "steps", toolIndex, tools, defaults, &groups)
	return steps, groups
}

// stepsAt reads a list of steps at path sp (steps, or a class's
// classes.NAME.steps). Its parallel and hedged steps are added to groups;
// with groups nil (a class's own steps), it has none.
func (l *loader) stepsAt(n *yaml.Node, sp string, toolIndex map[string]int, tools []system.Tool, defaults retryFields, groupsOut *[]system.Group) []system.Step {
	d := l.d
	items := d.sequence(n, sp)
	if items == nil {
		return nil
	}
	if len(items) == 0 {
		d.errorf(n, sp, "needs at least one step")
	}
	if len(items) > MaxSteps {
		d.errorf(n, sp, "at most %d steps, got %d", MaxSteps, len(items))
		return nil
	}
	seen := map[string]int{}
	earlier := map[string]int{} // step name → index, for tokens.input_from
	var out []system.Step
	var groups []system.Group
	if groupsOut != nil {
		groups = *groupsOut
		defer func() { *groupsOut = groups }()
	}
	for i, item := range items {
		path := fmt.Sprintf("%s[%d]", sp, i)
		f := d.keys(item, path, "step")
		if f == nil {
			continue
		}
		st := system.Step{}
		st.Name = l.stepName(f, item, path, sp, seen)
		if groupsOut == nil {
			bad := false
			for _, key := range []string{"parallel", "wait", "hedge"} {
				if v := f.get(key); v != nil {
					d.errorf(v, f.field(key), "only the top-level steps have parallel steps and hedges")
					bad = true
				}
			}
			if bad {
				continue // the rest of the step is not read: it would add errors of its own
			}
		}
		if pn := f.get("parallel"); pn != nil && groupsOut != nil {
			for _, key := range []string{"tool", "fallback", "requires", "hedge", "tokens"} {
				if v := f.get(key); v != nil {
					d.errorf(v, f.field(key), "a parallel step has none: each member has its own (under parallel)")
				}
			}
			rf := defaults
			l.retryKeys(f, &rf)
			var timeout time.Duration
			if v := f.get("timeout"); v != nil {
				timeout = d.duration(v, f.field("timeout"), MaxDuration)
			}
			g := system.Group{Name: st.Name, First: len(out)}
			members := d.sequence(pn, f.field("parallel"))
			if len(members) == 0 && members != nil {
				d.errorf(pn, f.field("parallel"), "needs at least one member")
			}
			for j, mn := range members {
				mpath := fmt.Sprintf("%s.parallel[%d]", f.path, j)
				mf := d.keys(mn, mpath, "member")
				if mf == nil {
					continue
				}
				l.stepNodes = append(l.stepNodes, mn)
				ms := system.Step{Timeout: timeout, Group: len(groups) + 1}
				ms.Name = l.stepName(mf, mn, mpath, sp, seen)
				l.stepPaths = append(l.stepPaths, mf.path)
				l.call(mf, mn, &ms, toolIndex)
				mrf := rf
				l.retryKeys(mf, &mrf)
				ms.Retry, ms.Budget = mrf.policy, mrf.budget
				mf.finish()
				earlier[ms.Name] = len(out)
				out = append(out, ms)
			}
			g.Members = len(out) - g.First
			if len(out)+len(groups) > MaxSteps {
				d.errorf(pn, f.field("parallel"), "at most %d steps and members in all", MaxSteps)
			}
			g.K = g.Members
			if v := f.get("wait"); v != nil {
				g.K = l.wait(v, f.field("wait"), g.Members)
			}
			f.finish()
			if g.Members > 0 {
				groups = append(groups, g)
			}
			continue
		}
		if v := f.get("wait"); v != nil {
			d.errorf(v, f.field("wait"), "only a parallel step waits for its members")
		}
		l.stepNodes = append(l.stepNodes, item)
		l.stepPaths = append(l.stepPaths, f.path)
		if f.get("tool") == nil {
			d.errorf(item, f.field("tool"), "required: which tool the step calls")
		}
		l.call(f, item, &st, toolIndex)
		if v := f.get("tokens"); v != nil {
			st.Tokens = l.stepTokens(v, f.field("tokens"), earlier)
			if tools := l.toolCfgs; st.Tool >= 0 && st.Tool < len(tools) && tools[st.Tool].Tokens == nil && st.Tokens != nil {
				d.errorf(v, f.field("tokens"), "tool %s declares no tokens: a step's tokens override those of a model call", tools[st.Tool].Name)
			}
		}
		rf := defaults
		l.retryKeys(f, &rf)
		st.Retry = rf.policy
		st.Budget = rf.budget
		if v := f.get("hedge"); v != nil && groupsOut != nil {
			if h := l.hedge(v, f.field("hedge"), st, tools); h != nil {
				groups = append(groups, system.Group{Name: st.Name, First: len(out), Members: 1, K: 1, Hedge: h})
				st.Group = len(groups)
			}
		}
		f.finish()
		earlier[st.Name] = len(out)
		out = append(out, st)
	}
	return out
}

// stepName reads the name of a step or member (f, at node item), unique
// in the plan.
func (l *loader) stepName(f *fields, item *yaml.Node, path, sp string, seen map[string]int) string {
	d := l.d
	v := f.get("name")
	if v == nil {
		d.errorf(item, path+".name", "required")
		return ""
	}
	s, ok := d.scalar(v, path+".name")
	if ok && s == "" {
		d.errorf(v, path+".name", "must not be empty")
	}
	if line, dup := seen[s]; dup {
		d.errorf(v, path+".name", "duplicate step name %q (first at line %d)", s, line)
	}
	seen[s] = v.Line
	if !strings.Contains(path, ".parallel[") {
		f.path = sp + "." + s
	} else {
		f.path = path[:strings.LastIndex(path, ".parallel[")] + ".parallel." + s
	}
	return s
}

// call reads the keys of one call (a step or a member): its tool, timeout,
// fallbacks and required capabilities.
func (l *loader) call(f *fields, item *yaml.Node, st *system.Step, toolIndex map[string]int) {
	d := l.d
	if v := f.get("tool"); v != nil {
		name, isScalar := d.scalar(v, f.field("tool"))
		idx, ok := toolIndex[name]
		if !ok && isScalar && len(toolIndex) > 0 {
			names := sortedKeys(toolIndex)
			d.errorf(v, f.field("tool"), "tool %q is not defined under tools%s (defined: %s)", name, suggest(name, names), strings.Join(names, ", "))
		}
		st.Tool = idx
	} else if f.sec.Name == "member" {
		d.errorf(item, f.field("tool"), "required: which tool the member calls")
	}
	if v := f.get("timeout"); v != nil {
		st.Timeout = d.duration(v, f.field("timeout"), MaxDuration)
	}
	if v := f.get("fallback"); v != nil {
		for _, name := range l.stringList(v, f.field("fallback")) {
			idx, ok := toolIndex[name]
			if !ok {
				names := sortedKeys(toolIndex)
				d.errorf(v, f.field("fallback"), "tool %q is not defined under tools%s (defined: %s)", name, suggest(name, names), strings.Join(names, ", "))
				continue
			}
			if idx == st.Tool {
				d.errorf(v, f.field("fallback"), "tool %q is the step's own tool", name)
				continue
			}
			for _, prev := range st.Fallbacks {
				if prev == idx {
					d.errorf(v, f.field("fallback"), "tool %q is listed twice", name)
				}
			}
			st.Fallbacks = append(st.Fallbacks, idx)
		}
	}
	if v := f.get("requires"); v != nil {
		st.Requires = l.stringList(v, f.field("requires"))
	}
}

// wait reads a parallel step's wait: all, any or {first: K}, and returns K.
func (l *loader) wait(n *yaml.Node, path string, members int) int {
	d := l.d
	if resolve(n).Kind == yaml.ScalarNode {
		switch d.oneOf(n, path, "all", "any") {
		case "any":
			return 1
		default:
			return members
		}
	}
	f := d.keys(n, path, "wait")
	if f == nil {
		return members
	}
	k := members
	if v := f.get("first"); v != nil {
		k = int(d.integer(v, f.field("first"), 1, math.MaxInt64))
		if k > members && members > 0 {
			d.errorf(v, f.field("first"), "must be at most the number of members (%d), got %d", members, k)
			k = members
		}
	} else {
		d.errorf(n, f.field("first"), "required: how many members must succeed")
	}
	f.finish()
	return max(k, 1)
}

// hedge reads step st's hedging policy; only an idempotent step hedges.
func (l *loader) hedge(n *yaml.Node, path string, st system.Step, tools []system.Tool) *system.Hedge {
	d := l.d
	f := d.keys(n, path, "hedge")
	if f == nil {
		return nil
	}
	h := &system.Hedge{MaxAttempts: 2}
	if !st.Retry.Idempotent {
		d.errorf(n, path, "only an idempotent step hedges: running the call twice must be safe (set idempotent: true on the step, or in retry)")
	}
	if v := f.get("max_attempts"); v != nil {
		h.MaxAttempts = int(d.integer(v, f.field("max_attempts"), 1, hedge.MaxAttemptsLimit))
	}
	minSamples, initial := f.get("min_samples"), f.get("initial_delay")
	if v := f.get("delay"); v != nil {
		s, ok := d.scalar(v, f.field("delay"))
		if ok && strings.HasPrefix(s, "p") {
			q, err := strconv.ParseFloat(s[1:], 64)
			if err != nil || !(q > 0 && q < 100) {
				d.errorf(v, f.field("delay"), "a percentile is p followed by a number in (0, 100), e.g. p95; got %q", s)
			}
			h.Percentile = q / 100
			h.MinSamples = 100
			if minSamples != nil {
				h.MinSamples = int(d.integer(minSamples, f.field("min_samples"), 1, 1_000_000))
			}
			if initial != nil {
				h.Delay = d.duration(initial, f.field("initial_delay"), MaxDuration)
			} else if err == nil && st.Tool < len(tools) && tools[st.Tool].Latency != nil && h.Percentile > 0 && h.Percentile < 1 {
				h.Delay = time.Duration(math.Round(float64(tools[st.Tool].Latency.Quantile(h.Percentile) * 1e9)))
			}
		} else if ok {
			h.Delay = d.duration(v, f.field("delay"), MaxDuration)
			for key, kv := range map[string]*yaml.Node{"min_samples": minSamples, "initial_delay": initial} {
				if kv != nil {
					d.errorf(kv, f.field(key), "only a percentile delay (e.g. delay: p95) has one")
				}
			}
		}
	} else {
		d.errorf(n, f.field("delay"), "required: a duration, or a percentile of observed latency such as p95")
	}
	f.finish()
	return h
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

func (l *loader) tools(n *yaml.Node, index map[string]int) []system.Tool {
	d := l.d
	f := d.mapping(n, "tools")
	if f == nil {
		return nil
	}
	if len(f.keys) == 0 {
		d.errorf(n, "tools", "needs at least one tool")
	}
	if len(f.keys) > MaxTools {
		d.errorf(n, "tools", "at most %d tools, got %d", MaxTools, len(f.keys))
		return nil
	}
	var out []system.Tool
	for _, k := range f.keys {
		name := k.Value
		path := "tools." + name
		index[name] = len(out)
		t := system.Tool{Name: name}
		tf := d.keys(f.get(name), path, "tool")
		if tf == nil {
			out = append(out, t)
			continue
		}
		if v, ttft := tf.get("latency"), tf.get("ttft"); v != nil {
			t.Latency = l.dist(v, tf.field("latency"), true)
			if ttft != nil {
				d.errorf(ttft, tf.field("ttft"), "give latency or ttft (a model call's time to first token), not both")
			}
		} else if ttft != nil {
			t.Latency = l.dist(ttft, tf.field("ttft"), true)
		} else {
			d.errorf(k, tf.field("latency"), "required (e.g. latency: {dist: exponential, mean: 1s}), or ttft for a model call")
		}
		if v := tf.get("tokens"); v != nil {
			t.Tokens = l.tokens(v, tf.field("tokens"))
		}
		if v := tf.get("per_output_token"); v != nil && t.Tokens != nil {
			t.Tokens.PerOutputToken = l.dist(v, tf.field("per_output_token"), true)
		}
		if v := tf.get("description"); v != nil {
			d.str(v, tf.field("description"))
		}
		if v := tf.get("errors"); v != nil {
			if ef := d.keys(v, tf.field("errors"), "errors"); ef != nil {
				prob := func(key string) float64 {
					if p := ef.get(key); p != nil {
						return d.number(p, ef.field(key), 0, 1)
					}
					return 0
				}
				t.Errors.Transient = prob("transient")
				t.Errors.RateLimited = prob("rate_limited")
				t.Errors.Permanent = prob("permanent")
				ef.finish()
			}
		}
		if v := tf.get("hang"); v != nil {
			t.Errors.Hang = d.number(v, tf.field("hang"), 0, 1)
		}
		if e := t.Errors; e.Transient+e.RateLimited+e.Permanent+e.Hang > 1+1e-12 {
			d.errorf(tf.node, tf.field("errors"), "transient + rate_limited + permanent + hang must be ≤ 1, got %g", e.Transient+e.RateLimited+e.Permanent+e.Hang)
		}
		if v := tf.get("retry_after"); v != nil {
			t.RetryAfter = l.dist(v, tf.field("retry_after"), true)
		}
		if v := tf.get("outages"); v != nil {
			t.Outages = l.outages(v, tf.field("outages"))
		}
		if v := tf.get("script"); v != nil {
			t.Script = l.script(v, tf.field("script"))
		}
		if v := tf.get("contention"); v != nil {
			t.Contention = d.boolean(v, tf.field("contention"))
		}
		t.QueueCapacity = system.Unbounded
		if v := tf.get("concurrency"); v != nil {
			t.Concurrency = int(d.integer(v, tf.field("concurrency"), 1, MaxWorkers))
		}
		if v := tf.get("queue"); v != nil {
			if qf := d.keys(v, tf.field("queue"), "tool_queue"); qf != nil {
				if c := qf.get("capacity"); c != nil {
					t.QueueCapacity = int(d.integer(c, qf.field("capacity"), 0, MaxQueue))
				}
				if c := qf.get("discipline"); c != nil {
					t.Discipline = l.discipline(c, qf.field("discipline"))
				}
				qf.finish()
			}
			if t.Concurrency == 0 && !tf.has("concurrency") {
				d.errorf(v, tf.field("queue"), "a tool queue needs concurrency (the number of requests served at once)")
			}
		}
		if v := tf.get("deadline_aware"); v != nil {
			t.DeadlineAware = d.boolean(v, tf.field("deadline_aware"))
			if t.DeadlineAware && !tf.has("concurrency") {
				d.errorf(v, tf.field("deadline_aware"), "needs concurrency: only a tool with a queue can drop work at dequeue")
			}
		}
		if v := tf.get("drop_floor"); v != nil {
			t.DropFloor = d.duration(v, tf.field("drop_floor"), MaxDuration)
		}
		if v := tf.get("rate_limit"); v != nil {
			t.RateLimit, t.TokenLimit = l.rateLimit(v, tf.field("rate_limit"))
		}
		if v := tf.get("cache"); v != nil {
			if cf := d.keys(v, tf.field("cache"), "cache"); cf != nil {
				c := &system.Cache{}
				if h := cf.get("hit_ratio"); h != nil {
					c.HitRatio = d.number(h, cf.field("hit_ratio"), 0, 1)
				} else {
					d.errorf(v, cf.field("hit_ratio"), "required: the share of calls the cache answers, in [0, 1]")
				}
				if lat := cf.get("latency"); lat != nil {
					c.Latency = l.dist(lat, cf.field("latency"), true)
				} else {
					d.errorf(v, cf.field("latency"), "required (e.g. latency: {dist: constant, value: 2ms})")
				}
				cf.finish()
				t.Cache = c
			}
		}
		if v := tf.get("cost"); v != nil {
			t.Cost = l.toolCost(v, tf.field("cost"))
		}
		if v := tf.get("adaptive_concurrency"); v != nil {
			t.Adaptive = l.adaptiveConcurrency(v, tf.field("adaptive_concurrency"))
		}
		if v := tf.get("capabilities"); v != nil {
			t.Capabilities = l.stringList(v, tf.field("capabilities"))
		}
		if v := tf.get("circuit_breaker"); v != nil {
			t.CircuitBreaker = l.circuitBreaker(v, tf.field("circuit_breaker"))
		}
		l.checkTokenTool(&t, tf)
		for _, o := range t.Outages {
			if o.Stall && t.Concurrency == 0 {
				d.errorf(v0(tf.get("outages")), tf.field("outages"), "mode stall needs concurrency: a tool without a queue has nothing to stall")
			}
		}
		tf.finish()
		out = append(out, t)
	}
	return out
}

// outcomeWords maps scenario words to attempt outcomes; "hang" is a timeout
// that only the lease ends.
var outcomeWords = []string{"ok", "hang", "transient", "rate_limited", "permanent"}

func parseOutcome(s string) retry.Outcome {
	switch s {
	case "ok":
		return retry.OK
	case "hang":
		return retry.Timeout
	case "transient":
		return retry.Transient
	case "rate_limited":
		return retry.RateLimited
	case "permanent":
		return retry.Permanent
	}
	return retry.OK
}

func (l *loader) outages(n *yaml.Node, path string) []system.Outage {
	d := l.d
	var out []system.Outage
	for i, item := range d.sequence(n, path) {
		p := fmt.Sprintf("%s[%d]", path, i)
		f := d.keys(item, p, "outage")
		if f == nil {
			continue
		}
		var o system.Outage
		if v := f.get("start"); v != nil {
			o.Start = d.duration(v, p+".start", MaxDuration)
		} else {
			d.errorf(item, p+".start", "required")
		}
		if v := f.get("end"); v != nil {
			o.End = d.duration(v, p+".end", MaxDuration)
			if o.End <= o.Start {
				d.errorf(v, p+".end", "must be after start (%v), got %v", o.Start, o.End)
			}
		} else {
			d.errorf(item, p+".end", "required")
		}
		if v := f.get("mode"); v != nil {
			mode := d.oneOf(v, p+".mode", "hang", "transient", "rate_limited", "stall", "slow")
			o.Stall = mode == "stall"
			o.Mode = parseOutcome(mode)
			if mode == "slow" {
				if fv := f.get("factor"); fv != nil {
					o.Slow = d.number(fv, p+".factor", 1, 1e6)
				} else {
					d.errorf(item, p+".factor", "required with mode slow: what the calls' latency is multiplied by (e.g. factor: 5)")
				}
			}
		} else {
			d.errorf(item, p+".mode", "required: hang, transient, rate_limited, stall or slow")
		}
		f.finish()
		out = append(out, o)
	}
	return out
}

func (l *loader) script(n *yaml.Node, path string) []system.ScriptEntry {
	d := l.d
	var out []system.ScriptEntry
	for i, item := range d.sequence(n, path) {
		p := fmt.Sprintf("%s[%d]", path, i)
		f := d.keys(item, p, "script_entry")
		if f == nil {
			continue
		}
		e := system.ScriptEntry{Run: -1}
		if v := f.get("run"); v != nil {
			e.Run = d.integer(v, p+".run", 0, MaxRuns)
		}
		if v := f.get("attempt"); v != nil {
			e.Attempt = int(d.integer(v, p+".attempt", 1, MaxAttempts))
		} else {
			d.errorf(item, p+".attempt", "required")
		}
		if v := f.get("outcome"); v != nil {
			e.Outcome = parseOutcome(d.oneOf(v, p+".outcome", outcomeWords...))
		} else {
			d.errorf(item, p+".outcome", "required: one of %s", strings.Join(outcomeWords, ", "))
		}
		if v := f.get("latency"); v != nil {
			e.Latency = d.duration(v, p+".latency", MaxDuration)
		}
		f.finish()
		out = append(out, e)
	}
	return out
}

func (l *loader) guards(n *yaml.Node) system.Guards {
	d := l.d
	var g system.Guards
	f := d.keys(n, "guards", "guards")
	if f == nil {
		return g
	}
	if v := f.get("max_events"); v != nil {
		g.MaxEvents = uint64(d.integer(v, "guards.max_events", 1, math.MaxInt64))
	}
	if v := f.get("max_time"); v != nil {
		g.MaxTime = d.duration(v, "guards.max_time", MaxDuration)
	}
	if v := f.get("max_in_system"); v != nil {
		g.MaxInSystem = int(d.integer(v, "guards.max_in_system", 1, MaxInSystemGuard))
	}
	if v := f.get("max_tool_queue"); v != nil {
		g.MaxToolQueue = int(d.integer(v, "guards.max_tool_queue", 1, MaxToolQueueGuard))
	}
	if v := f.get("max_wall"); v != nil {
		g.MaxWall = d.duration(v, "guards.max_wall", MaxDuration)
	}
	f.finish()
	return g
}

// timeParams are the distribution parameters that are durations when the
// distribution is time-valued; the others (sigma, alpha, shape, cv) are
// plain numbers.
var timeParams = map[string]bool{"mean": true, "value": true, "min": true, "max": true, "median": true, "p99": true, "scale": true}

// dist decodes a distribution; timeValued says whether its values are
// durations (converted to seconds) or plain numbers.
func (l *loader) dist(n *yaml.Node, path string, timeValued bool) dist.Dist {
	d := l.d
	f := d.keys(n, path, "distribution")
	if f == nil {
		return nil
	}
	fam := ""
	if v := f.get("dist"); v != nil {
		all := append(dist.Families(), "mixture", "empirical")
		sortStrings(all)
		fam = d.oneOf(v, f.field("dist"), all...)
	} else {
		d.errorf(n, f.field("dist"), "required: which distribution (exponential, constant, uniform, lognormal, pareto, weibull, gamma, mixture, empirical)")
		return nil
	}
	switch fam {
	case "":
		return nil
	case "mixture":
		return l.mixture(f, timeValued)
	case "empirical":
		return l.empirical(f)
	}
	before := len(d.errs)
	allowed, _ := dist.Params(fam)
	params := map[string]float64{}
	lines := map[string]*yaml.Node{}
	for _, p := range allowed {
		v := f.get(p)
		if v == nil {
			continue
		}
		lines[p] = v
		if timeValued && timeParams[p] {
			params[p] = d.duration(v, f.field(p), MaxDuration).Seconds()
		} else {
			params[p] = d.number(v, f.field(p), -math.MaxFloat64, math.MaxFloat64)
		}
	}
	f.finish()
	if len(d.errs) > before {
		return nil
	}
	ds, err := dist.Build(fam, params)
	if err != nil {
		if pe, ok := err.(*dist.ParamError); ok {
			at := lines[pe.Param]
			if at == nil {
				at = n
			}
			d.errorf(at, f.field(pe.Param), "%s", pe.Msg)
		} else {
			d.errorf(n, path, "%v", err)
		}
		return nil
	}
	return ds
}

func (l *loader) mixture(f *fields, timeValued bool) dist.Dist {
	d := l.d
	of := f.get("of")
	f.finish()
	if of == nil {
		d.errorf(f.node, f.field("of"), "required: a list of {weight, dist, …}")
		return nil
	}
	before := len(d.errs)
	var weights []float64
	var comps []dist.Dist
	for i, item := range d.sequence(of, f.field("of")) {
		p := fmt.Sprintf("%s[%d]", f.field("of"), i)
		m := resolve(item)
		if m.Kind != yaml.MappingNode {
			d.errorf(item, p, "must be a mapping {weight, dist, …}, got %s", describe(item))
			continue
		}
		// Split off the weight and decode the rest as a distribution.
		rest := &yaml.Node{Kind: yaml.MappingNode, Line: m.Line, Column: m.Column}
		w, hasWeight := 0.0, false
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == "weight" {
				hasWeight = true
				before := len(d.errs)
				w = d.number(m.Content[j+1], p+".weight", -math.MaxFloat64, math.MaxFloat64)
				if w <= 0 && len(d.errs) == before {
					d.errorf(m.Content[j+1], p+".weight", "must be > 0, got %s", m.Content[j+1].Value)
				}
				continue
			}
			rest.Content = append(rest.Content, m.Content[j], m.Content[j+1])
		}
		if !hasWeight {
			d.errorf(item, p+".weight", "required")
		}
		weights = append(weights, w)
		comps = append(comps, l.dist(rest, p, timeValued))
	}
	if len(d.errs) > before || len(comps) == 0 {
		if len(comps) == 0 && len(d.errs) == before {
			d.errorf(of, f.field("of"), "needs at least one component")
		}
		return nil
	}
	mx, err := dist.Mixture(weights, comps)
	if err != nil {
		d.errorf(of, f.field("of"), "%v", err)
		return nil
	}
	return mx
}

func (l *loader) empirical(f *fields) dist.Dist {
	d := l.d
	v := f.get("file")
	maxSamples := latencylog.DefaultMaxSamples
	if m := f.get("max_samples"); m != nil {
		maxSamples = int(d.integer(m, f.field("max_samples"), 1000, latencylog.MaxMaxSamples))
	}
	f.finish()
	if v == nil {
		d.errorf(f.node, f.field("file"), "required: a file of durations, one per line")
		return nil
	}
	name := d.str(v, f.field("file"))
	if name == "" {
		return nil
	}
	if l.fsys == nil {
		d.errorf(v, f.field("file"), "cannot read %q: no directory to resolve it in", name)
		return nil
	}
	if !fs.ValidPath(filepath.ToSlash(name)) {
		d.errorf(v, f.field("file"), "%q is outside the scenario's directory: give a path relative to it, without \"..\"", name)
		return nil
	}
	key := filepath.ToSlash(name)
	if maxSamples != latencylog.DefaultMaxSamples {
		key += "\x00" + strconv.Itoa(maxSamples) // a different limit can give a different answer
	}
	e, msg := l.logs.get(key, func() (dist.Dist, string) {
		file, err := l.fsys.Open(filepath.ToSlash(name))
		if errors.Is(err, errOutside) {
			return nil, fmt.Sprintf("%q is outside the scenario's directory (%v): give a path relative to it, without \"..\"", name, errOutside)
		}
		if err != nil {
			return nil, fmt.Sprintf("cannot read %q: %v", name, unwrapPathError(err))
		}
		defer file.Close()
		log, err := latencylog.Read(file, latencylog.Options{Name: name, MaxSamples: maxSamples})
		if errors.Is(err, latencylog.ErrTooManySamples) {
			return nil, fmt.Sprintf("%v: an empirical distribution holds at most %d by default; raise it with max_samples (up to %d, 8 bytes each)", err, latencylog.DefaultMaxSamples, latencylog.MaxMaxSamples)
		}
		if err != nil {
			return nil, err.Error()
		}
		e, err := dist.Empirical(log.Samples)
		if err != nil {
			return nil, err.Error()
		}
		return e, ""
	})
	if msg != "" {
		d.errorf(v, f.field("file"), "%s", msg)
		return nil
	}
	return e
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// crossCheck validates relations between parts of a scenario that decoded
// cleanly on their own.
func (l *loader) crossCheck(root *yaml.Node, cfg *system.Config) {
	d := l.d
	for i, st := range cfg.PlanSteps() {
		root, path := l.stepNodes[i], l.stepPaths[i]
		t := cfg.Tools[st.Tool]
		canHang := t.Errors.Hang > 0
		for _, o := range t.Outages {
			canHang = canHang || o.Mode == retry.Timeout
		}
		for _, s := range t.Script {
			canHang = canHang || s.Outcome == retry.Timeout
		}
		if canHang && st.Timeout == 0 && !cfg.StepHasDeadline(i) {
			d.errorf(root, path+".timeout", "tool %q can hang but the step has no timeout and %s no deadline: its runs would never end; set a timeout or a deadline", t.Name, deadlineOwner(cfg, i))
		}
		if !hasAll(t.Capabilities, st.Requires) && len(t.Capabilities) > 0 {
			d.errorf(root, path+".requires", "tool %q declares capabilities %v, not all of %v", t.Name, t.Capabilities, st.Requires)
		}
		if err := st.Retry.Backoff.Validate(); err != nil {
			d.errorf(root, path+".backoff", "%v", err)
		}
	}
	if a := cfg.Arrivals; a.Process == system.Closed && cfg.Runs == 0 && a.Think != nil && a.Think.Mean() == 0 && zeroTimeRun(cfg) {
		// With runs: N the loop ends after N runs, at time 0; only a
		// horizon waits for a clock that never moves.
		d.errorf(l.arrivalsNode, "arrivals.think", "always 0 s, and so is every call of a run: the agents' loop never advances the clock, so the horizon is never reached (it would run to the max_events guard at one instant); give the think time or a tool's latency a positive mean, or bound the scenario by runs")
	}
}

// zeroTimeRun reports whether a run surely takes 0 s: every tool it can
// call answers in 0 s (a non-negative latency with mean 0 is 0 always, a
// cache hit's too) and nothing makes it wait instead (an error, hang,
// outage or scripted outcome that a timeout or a backoff might follow, a
// rate limit, contention).
func zeroTimeRun(cfg *system.Config) bool {
	instant := func(t *system.Tool) bool {
		return t.Latency.Mean() == 0 && (t.Cache == nil || t.Cache.Latency == nil || t.Cache.Latency.Mean() == 0) &&
			t.Errors == (system.Errors{}) && len(t.Outages) == 0 && len(t.Script) == 0 && t.RateLimit == nil && !t.Contention
	}
	for _, st := range cfg.PlanSteps() {
		if !instant(&cfg.Tools[st.Tool]) {
			return false
		}
		for _, f := range st.Fallbacks {
			if !instant(&cfg.Tools[f]) {
				return false
			}
		}
	}
	return true
}

func v0(n *yaml.Node) *yaml.Node { return n }

// stringList reads a list of words, or a single word.
func (l *loader) stringList(n *yaml.Node, path string) []string {
	d := l.d
	n = resolve(n)
	if n.Kind == yaml.ScalarNode {
		if s := d.str(n, path); s != "" {
			return []string{s}
		}
		return nil
	}
	var out []string
	for i, item := range d.sequence(n, path) {
		if s := d.str(item, fmt.Sprintf("%s[%d]", path, i)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// amount parses a cost amount (abstract units, up to 6 decimals).
func (l *loader) amount(n *yaml.Node, path string) cost.Amount {
	d := l.d
	s, ok := d.scalar(n, path)
	if !ok {
		return 0
	}
	a, err := cost.ParseAmount(s)
	if err != nil {
		d.errorf(n, path, "%v", err)
		return 0
	}
	if a < 0 {
		d.errorf(n, path, "must be ≥ 0, got %s", s)
		return 0
	}
	return a
}

func (l *loader) rateLimit(n *yaml.Node, path string) (*system.RateLimit, *system.TokenLimit) {
	d := l.d
	f := d.keys(n, path, "rate_limit")
	if f == nil {
		return nil, nil
	}
	if f.has("rpm") || f.has("tpm") || f.has("itpm") || f.has("otpm") {
		// Per-minute limits instead of a bucket of calls.
		tl := l.tokenLimits(f)
		for _, k := range []string{"rate", "burst"} {
			if v := f.get(k); v != nil {
				d.errorf(v, f.field(k), "give rate (and burst) or the per-minute limits rpm, tpm, itpm, otpm, not both")
			}
		}
		if v := f.get("enforce"); v != nil {
			tl.Client = d.oneOf(v, f.field("enforce"), "server", "client") == "client"
		}
		f.finish()
		return nil, tl
	}
	l.tokenLimits(f) // none: marks the keys read
	rl := &system.RateLimit{Burst: 1}
	if v := f.get("rate"); v != nil {
		before := len(d.errs)
		rl.Rate = d.rate(v, f.field("rate"))
		if rl.Rate <= 0 && len(d.errs) == before {
			d.errorf(v, f.field("rate"), "must be > 0")
		}
	} else {
		d.errorf(n, f.field("rate"), "required (e.g. rate: 2/s), or per-minute limits (rpm, tpm, itpm, otpm)")
	}
	if v := f.get("burst"); v != nil {
		rl.Burst = int(d.integer(v, f.field("burst"), 1, 1_000_000_000))
	}
	if v := f.get("enforce"); v != nil {
		rl.Client = d.oneOf(v, f.field("enforce"), "server", "client") == "client"
	}
	f.finish()
	if rl.Rate > 0 {
		if _, err := ratelimit.NewTokenBucket(rl.Rate, rl.Burst); err != nil {
			d.errorf(n, path, "%v", err)
		}
	}
	return rl, nil
}

func (l *loader) toolCost(n *yaml.Node, path string) *system.ToolCost {
	d := l.d
	f := d.keys(n, path, "tool_cost")
	if f == nil {
		return nil
	}
	c := &system.ToolCost{}
	if v := f.get("input_token"); v != nil {
		c.InputToken = d.number(v, f.field("input_token"), 0, 1e9)
	}
	if v := f.get("output_token"); v != nil {
		c.OutputToken = d.number(v, f.field("output_token"), 0, 1e9)
	}
	if v := f.get("reserve"); v != nil {
		c.Reserve = l.amount(v, f.field("reserve"))
	} else if !f.has("input_token") && !f.has("output_token") {
		d.errorf(n, f.field("reserve"), "required: the call's declared maximum, reserved before dialing")
	}
	if v := f.get("usage"); v != nil {
		c.Usage = l.dist(v, f.field("usage"), false)
	}
	if v := f.get("dims"); v != nil {
		if df := d.mapping(v, f.field("dims")); df != nil {
			for _, k := range df.keys {
				p := df.field(k.Value)
				item := resolve(df.get(k.Value))
				if item.Kind != yaml.MappingNode {
					d.errorf(item, p, "must be a mapping {price, dist, …}, got %s", describe(item))
					continue
				}
				rest := &yaml.Node{Kind: yaml.MappingNode, Line: item.Line, Column: item.Column}
				price := -1.0
				for j := 0; j+1 < len(item.Content); j += 2 {
					if item.Content[j].Value == "price" {
						price = d.number(item.Content[j+1], p+".price", 0, math.MaxFloat64)
						continue
					}
					rest.Content = append(rest.Content, item.Content[j], item.Content[j+1])
				}
				if price < 0 {
					d.errorf(item, p+".price", "required: cost units per unit of usage")
				}
				c.Dims = append(c.Dims, system.CostDim{Name: k.Value, Price: price, Usage: l.dist(rest, p, false)})
			}
			df.finish()
		}
	}
	if v := f.get("billed"); v != nil {
		c.BillSuccessOnly = d.oneOf(v, f.field("billed"), "request", "success") == "success"
	}
	f.finish()
	if c.Usage == nil && len(c.Dims) == 0 && !f.has("input_token") && !f.has("output_token") && len(d.errs) == 0 {
		d.errorf(n, f.field("usage"), "required: usage (a distribution of units per call) or dims")
	}
	return c
}

func hasAll(have, need []string) bool {
	for _, n := range need {
		found := false
		for _, h := range have {
			found = found || h == n
		}
		if !found {
			return false
		}
	}
	return true
}

// arrivalErr reports an arrival constructor's error at n.
func (l *loader) arrivalErr(err error, n *yaml.Node, prefix string) {
	if err == nil {
		return
	}
	var pe *arrival.ParamError
	if errors.As(err, &pe) {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(prefix, ": "), "."), ".file")
		l.d.errorf(n, base+"."+strings.Replace(pe.Param, "points", "rates", 1), "%s", pe.Msg)
		return
	}
	l.d.errorf(n, strings.TrimSuffix(strings.TrimSuffix(prefix, ": "), "."), "%v", err)
}
