package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/budgetsim/budgetsim/model/arrival"
	"github.com/budgetsim/budgetsim/model/backoff"
	"github.com/budgetsim/budgetsim/model/cost"
	"github.com/budgetsim/budgetsim/model/dist"
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

	fsys fs.FS             // where the files the scenario names are read from
	logs *logCache         // the latency logs read for it, shared by Reparse
	data map[string]string // DataFiles
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
	return &Scenario{Config: cfg, File: file, Source: src, Description: desc, Overrides: slices.Clone(sets), effective: eff, fsys: fsys, logs: logs, data: l.data}, nil
}

// DataFiles returns the data files the scenario read (trace arrivals,
// latency logs), by path relative to its directory, each with the hex
// SHA-256 of its bytes as read; nil when it reads none. A sweep's shard
// files record them, so that a merge refuses shards that simulated
// different data under the same name.
func (s *Scenario) DataFiles() map[string]string { return maps.Clone(s.data) }

// dataFile records that the scenario read data file name, of SHA-256 sum.
func (l *loader) dataFile(name, sum string) {
	if l.data == nil {
		l.data = map[string]string{}
	}
	l.data[name] = sum
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
	sum  string // the hex SHA-256 of the file's bytes, when d is set
	msg  string // why the file could not be used; "" when d is set
}

// get returns the distribution of latency log name and the SHA-256 of its
// bytes, reading it with read the first time.
func (c *logCache) get(name string, read func() (dist.Dist, string, string)) (dist.Dist, string, string) {
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
	e.once.Do(func() { e.d, e.sum, e.msg = read() })
	return e.d, e.sum, e.msg
}

// hashingReader is r, hashing what is read through it.
func hashingReader(r io.Reader) (io.Reader, hash.Hash) {
	h := sha256.New()
	return io.TeeReader(r, h), h
}

type loader struct {
	d    *decoder
	fsys fs.FS
	logs *logCache
	// traceLen is the number of arrivals of a trace file, 0 without one:
	// the top-level trace's, or the sum of the classes' when every class
	// replays a trace of its own (traceWhere names them for errors).
	// classTraces and classTraceRuns count the classes' traces and their
	// arrivals.
	traceLen int
	// data maps each data file read (a trace, a latency log), by its path
	// relative to the scenario's directory, to its hex SHA-256.
	data                        map[string]string
	traceWhere                  string
	classTraces, classTraceRuns int
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
	// loops are the agent loops read with the top-level steps.
	loops []system.Loop
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
	}
	desc, _ := f.str("description")
	if v, ok := f.integer("seed"); ok {
		cfg.Seed = uint64(v)
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
		cfg.Runs = d.integerKey(f.key("runs"), runsNode, "runs")
	}
	if horizonNode != nil {
		cfg.Horizon = d.durationKey(f.key("horizon"), horizonNode, "horizon")
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
		if runsNode != nil {
			d.errorf(runsNode, "runs", "a batch sets the number of runs itself (arrivals.count); remove runs")
		}
		if horizonNode != nil {
			d.errorf(horizonNode, "horizon", "a batch sets the number of runs itself (arrivals.count) and ends when they have; remove horizon")
		}
		cfg.Runs = cfg.Arrivals.Count
	case runsNode != nil && horizonNode != nil:
		d.errorf(horizonNode, "horizon", "give runs or horizon, not both")
	case runsNode == nil && horizonNode == nil && l.traceLen > 0:
		cfg.Runs = int64(l.traceLen) // the whole trace
	case runsNode == nil && horizonNode == nil:
		cfg.Runs = 100_000
	case runsNode != nil && l.traceLen > 0 && cfg.Runs > int64(l.traceLen):
		d.errorf(runsNode, "runs", "%d, but %s only %d arrivals: set runs ≤ %d, or leave runs out to replay the whole trace", cfg.Runs, l.traceWhere, l.traceLen, l.traceLen)
	}
	if horizonNode != nil && cfg.Horizon > 0 {
		if n := cfg.Arrivals.Rate * cfg.Horizon.Seconds(); n > MaxRuns {
			d.errorf(horizonNode, "horizon", "%s at %s would make about %.3g runs, more than %d: shorten the horizon", shortDuration(cfg.Horizon), FormatRate(cfg.Arrivals.Rate), n, int64(MaxRuns))
		}
	}
	if n := f.get("warmup"); n != nil {
		l.warmup(n, f.key("warmup"), cfg, runsNode, horizonNode)
	}
	if v, ok := f.integer("workers"); ok {
		cfg.Workers = int(v)
	}
	if n := f.get("queue"); n != nil {
		if q := d.keys(n, "queue", "queue"); q != nil {
			if v, ok := q.integer("capacity"); ok {
				cfg.QueueCapacity = int(v)
			}
			q.finish()
		}
	}
	cfg.Deadline, _ = f.duration("deadline")
	cfg.Floor, _ = f.duration("floor")
	cfg.MinLease, _ = f.duration("min_lease")
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
	}
	stepsNode := f.get("steps")
	if stepsNode != nil {
		cfg.Steps, cfg.Groups = l.steps(stepsNode, toolIndex, cfg.Tools, defaults)
		cfg.Loops = l.loops
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
			if v := cf.get("currency"); v != nil {
				if c, ok := d.scalar(v, "cost.currency"); ok {
					if !currencyLabel(c) {
						d.errorf(v, "cost.currency", "must be a short label of 1 to 12 characters without spaces (USD, EUR, €), got %q", c)
					}
					cfg.Currency = c
				}
			}
			cf.finish()
		}
	}
	l.scheduling(f, cfg)
	f.finish()
	if len(d.errs) == 0 {
		l.crossCheck(root, cfg)
		l.moneyCheck(root, cfg)
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
	// The process is built when its own keys are valid, whatever the rest
	// of the scenario: its errors are reported with the others.
	before := len(d.errs)
	process := "poisson"
	if p, ok := f.word("process"); ok {
		process = p
	}
	rate := func() float64 {
		v, _ := f.rate("rate")
		return v
	}
	var err error
	switch process {
	case "poisson", "constant":
		a.Process = system.Poisson
		if process == "constant" {
			a.Process = system.Constant
		}
		a.Rate = rate()
	case "batch":
		a.Process = system.Batch
		a.Count, _ = f.integer("count")
	case "schedule":
		a.Process = system.Open
		var pts []arrival.RatePoint
		rs := f.get("rates")
		if rs == nil {
			break
		}
		for i, item := range d.sequence(rs, ap+".rates") {
			p := fmt.Sprintf("%s.rates[%d]", ap, i)
			pf := d.keys(item, p, "rate_point")
			if pf == nil {
				continue
			}
			var pt arrival.RatePoint
			pt.At, _ = pf.duration("at")
			pt.Rate, _ = pf.rate("rate")
			pf.finish()
			pts = append(pts, pt)
		}
		repeat, _ := f.duration("repeat")
		if len(d.errs) == before {
			a.Source, err = arrival.Schedule(pts, repeat)
			l.arrivalErr(err, rs, ap+".")
		}
	case "diurnal":
		a.Process = system.Open
		mean := rate()
		amp := 0.5
		if v, ok := f.number("amplitude"); ok {
			amp = v
		}
		period := 24 * time.Hour
		if v, ok := f.duration("period"); ok {
			period = v
		}
		peak, hasPeak := f.duration("peak")
		if len(d.errs) == before && period > 0 {
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
		r, h := hashingReader(file)
		times, rerr := arrival.ReadTrace(r, name)
		if rerr == nil {
			_, rerr = io.Copy(h, r) // what the reader left unread
		}
		file.Close()
		if rerr == nil {
			l.dataFile(filepath.ToSlash(name), hex.EncodeToString(h.Sum(nil)))
		}
		if rerr != nil {
			d.errorf(v, ap+".file", "%v", rerr)
			break
		}
		a.Source, err = arrival.Trace(times)
		l.arrivalErr(err, v, ap+".file: ")
		if err == nil && ap == "arrivals" {
			l.traceLen, l.traceWhere = len(times), "the trace (arrivals.file) has"
		} else if err == nil {
			l.classTraces++
			l.classTraceRuns += len(times)
		}
	case "renewal":
		a.Process = system.Open
		if v := f.get("interarrival"); v != nil {
			inter := l.dist(v, ap+".interarrival", true)
			if len(d.errs) == before && inter != nil {
				a.Source, err = arrival.Renewal(inter)
				l.arrivalErr(err, v, ap+".")
			}
		}
	case "mmpp":
		a.Process = system.Open
		ss := f.get("states")
		if ss == nil {
			break
		}
		var states []arrival.State
		for i, item := range d.sequence(ss, ap+".states") {
			sf := d.keys(item, fmt.Sprintf("%s.states[%d]", ap, i), "mmpp_state")
			if sf == nil {
				continue
			}
			var st arrival.State
			st.Rate, _ = sf.rate("rate")
			st.Sojourn, _ = sf.duration("sojourn")
			sf.finish()
			states = append(states, st)
		}
		if len(d.errs) == before {
			a.Source, err = arrival.MMPP(states)
			l.arrivalErr(err, ss, ap+".")
		}
	case "closed":
		a.Process = system.Closed
		users, _ := f.integer("users")
		a.Users = int(users)
		if v := f.get("think"); v != nil {
			a.Think = l.dist(v, ap+".think", true)
		}
	}
	if a.Source != nil {
		a.Rate = a.Source.MeanRate()
	}
	f.finish()
	return a
}

// warmup reads the warmup key k's value n: a number of runs in k's range,
// or a duration. A warm-up that leaves no run to measure is reported at
// the key that made it so: the warmup, or the runs or horizon when an
// override (--set, --runs) shortened the scenario below the file's own
// warm-up.
func (l *loader) warmup(n *yaml.Node, k Key, cfg *system.Config, runsNode, horizonNode *yaml.Node) {
	d := l.d
	s, ok := d.scalar(n, "warmup")
	if !ok {
		return
	}
	overridden := func(bound *yaml.Node) bool { return bound != nil && bound.Line < 0 && n.Line > 0 }
	if strings.ContainsAny(s, "smhµu") {
		cfg.WarmupTime = d.duration(n, "warmup", MaxDuration)
		switch {
		case cfg.Horizon <= 0 || cfg.WarmupTime < cfg.Horizon:
		case overridden(horizonNode):
			d.errorf(horizonNode, "horizon", "must be > the scenario's warmup (%s, line %d), got %s: no run would be measured; lengthen the horizon, or shorten the warm-up too (--set warmup=…)", s, n.Line, shortDuration(cfg.Horizon))
		default:
			d.errorf(n, "warmup", "must be < horizon (%s), got %s: no run would be measured", shortDuration(cfg.Horizon), s)
		}
		return
	}
	cfg.WarmupRuns = d.integerKey(k, n, "warmup")
	switch {
	case cfg.Runs <= 0 || cfg.WarmupRuns < cfg.Runs:
	case overridden(runsNode):
		d.errorf(runsNode, "runs", "must be > the scenario's warmup (%s runs, line %d), got %d: no run would be measured; give more runs, or a shorter warm-up too (--set warmup=…)", s, n.Line, cfg.Runs)
	default:
		d.errorf(n, "warmup", "must be < runs (%d), got %s: no run would be measured", cfg.Runs, s)
	}
}

// retryKeys reads the retry keys present in f into r (overriding it).
func (l *loader) retryKeys(f *fields, r *retryFields) {
	d := l.d
	if v, ok := f.integer("attempts"); ok {
		r.policy.Attempts = int(v)
	}
	if n := f.get("backoff"); n != nil {
		if b := d.keys(n, f.field("backoff"), "backoff"); b != nil {
			p := &r.policy.Backoff
			if v, ok := b.duration("base"); ok {
				p.Base = v
			}
			if v, ok := b.number("multiplier"); ok {
				p.Multiplier = v
			}
			if v, ok := b.duration("cap"); ok {
				p.Cap = v
			}
			if s, ok := b.word("jitter"); ok && s != "" {
				j, err := backoff.ParseJitter(s)
				if err != nil {
					d.errorf(b.get("jitter"), b.field("jitter"), "%v", err)
				}
				p.Jitter = j
			}
			if v, ok := b.number("spread"); ok {
				p.Spread = v
			}
			if p.Cap > 0 && p.Base > p.Cap {
				d.errorf(b.node, b.field("cap"), "must be ≥ base (%v), got %v", p.Base, p.Cap)
			}
			b.finish()
		}
	}
	if w, ok := f.word("retry_after"); ok {
		r.policy.HonorRetryAfter = w == "honor"
	}
	if v, ok := f.number("retry_after_jitter"); ok {
		r.policy.RetryAfterJitter = v
	}
	if v, ok := f.boolean("idempotent"); ok {
		r.policy.Idempotent = v
	}
	if v, ok := f.boolean("idempotency_key"); ok {
		r.policy.IdempotencyKey = v
	}
	if v, ok := f.boolean("allow_unsafe"); ok {
		r.policy.AllowUnsafe = v
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
	kind, _ := f.word("kind")
	num := func(key string, def float64) float64 {
		if v, ok := f.number(key); ok {
			return v
		}
		return def
	}
	whole := func(key string, def int64) float64 {
		if v, ok := f.integer(key); ok {
			return float64(v)
		}
		return float64(def)
	}
	switch kind {
	case "token_bucket":
		b.Kind = system.TokenBucketBudget
		// Defaults: AWS SDK standard retry mode (aws-sdk-go-v2 aws/retry).
		b.Capacity = whole("capacity", 500)
		b.RetryCost = whole("retry_cost", 5)
		b.TimeoutCost = whole("timeout_cost", 10)
		b.NoRetryIncrement = whole("success_increment", 1)
	case "throttle":
		b.Kind = system.ThrottleBudget
		// Defaults: gRPC retry throttling example values (gRFC A6).
		b.MaxTokens = whole("max_tokens", 10)
		b.TokenRatio = num("token_ratio", 0.1)
	case "ratio":
		b.Kind = system.RatioBudget
		// Defaults: Finagle RetryBudget (20 %, 10 retries/s floor, 10 s TTL).
		b.Ratio = num("ratio", 0.2)
		b.MinPerSecond = num("min_per_second", 10)
		b.TTL = 10 * time.Second
		if v, ok := f.duration("ttl"); ok {
			b.TTL = v
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
	var one func(item *yaml.Node, path, sp string, loop int, defaults retryFields)
	one = func(item *yaml.Node, path, sp string, loop int, defaults retryFields) {
		f := d.keys(item, path, "step")
		if f == nil {
			return
		}
		st := system.Step{Loop: loop}
		st.Name = l.stepName(f, item, path, sp, seen)
		if groupsOut == nil {
			bad := false
			for _, key := range []string{"parallel", "wait", "hedge", "loop"} {
				if v := f.get(key); v != nil {
					d.errorf(v, f.field(key), "only the top-level steps have parallel steps, hedges and loops")
					bad = true
				}
			}
			if bad {
				return // the rest of the step is not read: it would add errors of its own
			}
		}
		if ln := f.get("loop"); ln != nil && groupsOut != nil {
			if loop > 0 {
				d.errorf(ln, f.field("loop"), "a loop's steps cannot loop themselves: write the inner turns into the loop's own")
				return
			}
			for _, key := range []string{"tool", "choose", "fallback", "requires", "hedge", "tokens", "parallel", "wait", "calls", "timeout", "first_token_timeout"} {
				if v := f.get(key); v != nil {
					d.errorf(v, f.field(key), "a loop step has none: each of its steps has its own (under loop.steps)")
				}
			}
			rf := defaults
			l.retryKeys(f, &rf)
			lf := d.keys(ln, f.field("loop"), "loop")
			f.finish()
			if lf == nil {
				return
			}
			lp, cp := l.loopHead(lf, toolIndex)
			lp.Name, lp.First = st.Name, len(out)
			idx := len(l.loops) + 1
			if cp != nil {
				// The compaction call is the loop's first step, made only
				// in the turns whose context passes the threshold.
				cst := system.Step{Name: st.Name + "_compact", Tool: cp.tool, Timeout: cp.timeout, Loop: idx, Retry: rf.policy, Budget: rf.budget,
					Tokens: &system.StepTokens{Output: cp.output, InputFrom: -1}}
				if line, dup := seen[cst.Name]; dup {
					d.errorf(cp.node, cp.path, "its step is named %s, which a step at line %d has already", cst.Name, line)
				}
				seen[cst.Name] = cp.node.Line
				l.stepNodes = append(l.stepNodes, cp.node)
				l.stepPaths = append(l.stepPaths, cp.path)
				out = append(out, cst)
			}
			var body []*yaml.Node
			if sn := lf.get("steps"); sn != nil {
				body = d.sequence(sn, lf.field("steps"))
			}
			if len(body) > MaxSteps {
				d.errorf(lf.get("steps"), lf.field("steps"), "at most %d steps, got %d", MaxSteps, len(body))
				body = nil
			}
			if len(body) == 0 && body != nil {
				d.errorf(lf.get("steps"), lf.field("steps"), "needs at least one step")
			}
			for j, bn := range body {
				one(bn, fmt.Sprintf("%s[%d]", lf.field("steps"), j), lf.field("steps"), idx, rf)
			}
			lp.Len = len(out) - lp.First
			if cp != nil && out[lp.First].Tool < 0 {
				// The loop's first model call's tool.
				out[lp.First].Tool = 0
				for _, bs := range out[lp.First+1:] {
					if bs.Tool >= 0 && bs.Tool < len(tools) && tools[bs.Tool].Tokens != nil {
						out[lp.First].Tool = bs.Tool
						break
					}
				}
			}
			if cp != nil && lp.Len == 1 {
				lp.Len = 0 // no steps of its own: the error is the loop's
			}
			lf.finish()
			if lp.Len > 0 {
				l.checkLoop(&lp, lf, out, tools)
				l.loops = append(l.loops, lp)
			}
			return
		}
		if pn := f.get("parallel"); pn != nil && groupsOut != nil {
			for _, key := range []string{"tool", "choose", "fallback", "requires", "hedge", "tokens"} {
				if v := f.get(key); v != nil {
					d.errorf(v, f.field(key), "a parallel step has none: each member has its own (under parallel)")
				}
			}
			rf := defaults
			l.retryKeys(f, &rf)
			timeout, _ := f.duration("timeout")
			firstToken, _ := f.duration("first_token_timeout")
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
				ms := system.Step{Timeout: timeout, FirstTokenTimeout: firstToken, Group: len(groups) + 1, Loop: loop}
				ms.Name = l.stepName(mf, mn, mpath, sp, seen)
				l.stepPaths = append(l.stepPaths, mf.path)
				if mf.get("tool") == nil && mf.get("choose") == nil {
					d.errorf(mn, mf.field("tool"), "required: which tool the member calls (or choose: tools by weight)")
				}
				l.call(mf, mn, &ms, toolIndex)
				mrf := rf
				l.retryKeys(mf, &mrf)
				ms.Retry, ms.Budget = mrf.policy, mrf.budget
				mf.finish()
				earlier[ms.Name] = len(out)
				out = append(out, ms)
			}
			g.Members = len(out) - g.First
			if firstToken > 0 && !slices.ContainsFunc(out[g.First:], func(ms system.Step) bool { return l.streams(&ms) }) {
				d.errorf(f.get("first_token_timeout"), f.field("first_token_timeout"), "applies to streaming model calls: none of the tools the members may call has stream: true")
			}
			if len(out)+len(groups) > MaxSteps {
				d.errorf(pn, f.field("parallel"), "at most %d steps and members in all", MaxSteps)
			}
			g.K = g.Members
			if v := f.get("wait"); v != nil {
				g.K = l.wait(v, f.field("wait"), f.key("wait"), g.Members)
			}
			if v := f.get("calls"); v != nil {
				g.Calls = l.dist(v, f.field("calls"), false)
			}
			f.finish()
			if g.Members > 0 {
				groups = append(groups, g)
			}
			return
		}
		if v := f.get("wait"); v != nil {
			d.errorf(v, f.field("wait"), "only a parallel step waits for its members")
		}
		if v := f.get("calls"); v != nil {
			d.errorf(v, f.field("calls"), "only a parallel step draws how many of its members it launches")
		}
		l.stepNodes = append(l.stepNodes, item)
		l.stepPaths = append(l.stepPaths, f.path)
		if f.get("tool") == nil && f.get("choose") == nil {
			d.errorf(item, f.field("tool"), "required: which tool the step calls (or choose: tools by weight)")
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
	for i, item := range items {
		one(item, fmt.Sprintf("%s[%d]", sp, i), sp, 0, defaults)
	}
	return out
}

// stepName reads the name of a step or member (f, at node item), unique
// in the plan.
func (l *loader) stepName(f *fields, item *yaml.Node, path, sp string, seen map[string]int) string {
	d := l.d
	v := f.get("name")
	if v == nil {
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
	if v := f.get("choose"); v != nil {
		st.Choose = l.choose(v, f.field("choose"), toolIndex)
		if len(st.Choose) > 0 {
			st.Tool = st.Choose[0].Tool
		}
		if t := f.get("tool"); t != nil {
			d.errorf(t, f.field("tool"), "give tool or choose, not both")
		}
	}
	if v := f.get("tool"); v != nil {
		name, isScalar := d.scalar(v, f.field("tool"))
		idx, ok := toolIndex[name]
		if !ok && isScalar && len(toolIndex) > 0 {
			names := sortedKeys(toolIndex)
			d.errorf(v, f.field("tool"), "tool %q is not defined under tools%s (defined: %s)", name, suggest(name, names), strings.Join(names, ", "))
		}
		st.Tool = idx
	}
	if v, ok := f.duration("timeout"); ok {
		st.Timeout = v
	}
	if v, ok := f.duration("first_token_timeout"); ok {
		st.FirstTokenTimeout = v
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
	if v := f.get("first_token_timeout"); v != nil && st.FirstTokenTimeout > 0 && !l.streams(st) {
		d.errorf(f.get("first_token_timeout"), f.field("first_token_timeout"), "applies to streaming model calls: none of the tools the step may call has stream: true")
	}
}

// streams reports whether a tool st may call (its tool, choices or
// fallbacks) streams its output.
func (l *loader) streams(st *system.Step) bool {
	tools := l.toolCfgs
	ok := func(i int) bool { return i >= 0 && i < len(tools) && tools[i].Stream }
	if ok(st.Tool) {
		return true
	}
	for _, c := range st.Choose {
		if ok(c.Tool) {
			return true
		}
	}
	for _, f := range st.Fallbacks {
		if ok(f) {
			return true
		}
	}
	return false
}

// choose reads a step's or member's choose: a list of {tool, weight}.
func (l *loader) choose(n *yaml.Node, path string, toolIndex map[string]int) []system.Choice {
	d := l.d
	items := d.sequence(n, path)
	if items == nil {
		return nil
	}
	if len(items) == 0 {
		d.errorf(n, path, "needs at least one tool")
	}
	var out []system.Choice
	seen := map[int]bool{}
	for i, it := range items {
		f := d.keys(it, fmt.Sprintf("%s[%d]", path, i), "choice")
		if f == nil {
			continue
		}
		c := system.Choice{Weight: 1}
		if v := f.get("tool"); v != nil {
			name, isScalar := d.scalar(v, f.field("tool"))
			idx, ok := toolIndex[name]
			switch {
			case !ok && isScalar:
				names := sortedKeys(toolIndex)
				d.errorf(v, f.field("tool"), "tool %q is not defined under tools%s (defined: %s)", name, suggest(name, names), strings.Join(names, ", "))
			case ok && seen[idx]:
				d.errorf(v, f.field("tool"), "tool %q is listed twice", name)
			}
			c.Tool, seen[idx] = idx, true
		}
		if w, ok := f.number("weight"); ok {
			c.Weight = w
		}
		f.finish()
		out = append(out, c)
	}
	return out
}

// wait reads a parallel step's wait, key k: all, any or {first: K}, and
// returns K.
func (l *loader) wait(n *yaml.Node, path string, k Key, members int) int {
	d := l.d
	if resolve(n).Kind == yaml.ScalarNode {
		switch d.oneOf(n, path, k.Values...) {
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
	first := members
	if v, ok := f.integer("first"); ok {
		first = int(v)
		if first > members && members > 0 {
			d.errorf(f.get("first"), f.field("first"), "must be at most the number of members (%d), got %d", members, first)
			first = members
		}
	}
	f.finish()
	return max(first, 1)
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
	if v, ok := f.integer("max_attempts"); ok {
		h.MaxAttempts = int(v)
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
				h.MinSamples = int(d.integerKey(f.key("min_samples"), minSamples, f.field("min_samples")))
			}
			if initial != nil {
				h.Delay = d.durationKey(f.key("initial_delay"), initial, f.field("initial_delay"))
			} else if err == nil && st.Tool < len(tools) && tools[st.Tool].Latency != nil && h.Percentile > 0 && h.Percentile < 1 {
				h.Delay = time.Duration(math.Round(float64(tools[st.Tool].Latency.Quantile(h.Percentile) * 1e9)))
			}
		} else if ok {
			h.Delay = d.durationKey(f.key("delay"), v, f.field("delay"))
			for key, kv := range map[string]*yaml.Node{"min_samples": minSamples, "initial_delay": initial} {
				if kv != nil {
					d.errorf(kv, f.field(key), "only a percentile delay (e.g. delay: p95) has one")
				}
			}
		}
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
		if v := tf.get("result_tokens"); v != nil {
			t.ResultTokens = l.dist(v, tf.field("result_tokens"), false)
		}
		if v := tf.get("per_output_token"); v != nil && t.Tokens != nil {
			t.Tokens.PerOutputToken = l.dist(v, tf.field("per_output_token"), true)
		}
		if v := tf.get("per_input_token"); v != nil && t.Tokens != nil {
			t.Tokens.PerInputToken = l.dist(v, tf.field("per_input_token"), true)
		}
		if v := tf.get("prompt_cache"); v != nil {
			t.PromptCache = l.promptCache(v, tf.field("prompt_cache"))
		}
		t.Stream, _ = tf.boolean("stream")
		tf.str("description")
		if v := tf.get("errors"); v != nil {
			if ef := d.keys(v, tf.field("errors"), "errors"); ef != nil {
				t.Errors.Transient, _ = ef.number("transient")
				t.Errors.RateLimited, _ = ef.number("rate_limited")
				t.Errors.Permanent, _ = ef.number("permanent")
				t.Errors.Overloaded, _ = ef.number("overloaded")
				ef.finish()
			}
		}
		t.Errors.Hang, _ = tf.number("hang")
		if e := t.Errors; e.Transient+e.RateLimited+e.Permanent+e.Hang+e.Overloaded > 1+1e-12 {
			d.errorf(tf.node, tf.field("errors"), "transient + rate_limited + permanent + overloaded + hang must be ≤ 1, got %g", e.Transient+e.RateLimited+e.Permanent+e.Overloaded+e.Hang)
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
		t.Contention, _ = tf.boolean("contention")
		t.QueueCapacity = system.Unbounded
		if v, ok := tf.integer("concurrency"); ok {
			t.Concurrency = int(v)
		}
		if v := tf.get("queue"); v != nil {
			if qf := d.keys(v, tf.field("queue"), "tool_queue"); qf != nil {
				if c, ok := qf.integer("capacity"); ok {
					t.QueueCapacity = int(c)
				}
				if w, ok := qf.word("discipline"); ok {
					t.Discipline = discipline(w)
				}
				qf.finish()
			}
			if t.Concurrency == 0 && !tf.has("concurrency") {
				d.errorf(v, tf.field("queue"), "a tool queue needs concurrency (the number of requests served at once)")
			}
		}
		if v, ok := tf.boolean("deadline_aware"); ok {
			t.DeadlineAware = v
			if t.DeadlineAware && !tf.has("concurrency") {
				d.errorf(tf.get("deadline_aware"), tf.field("deadline_aware"), "needs concurrency: only a tool with a queue can drop work at dequeue")
			}
		}
		t.DropFloor, _ = tf.duration("drop_floor")
		if v := tf.get("rate_limit"); v != nil {
			t.RateLimit, t.TokenLimit = l.rateLimit(v, tf.field("rate_limit"))
		}
		if v := tf.get("cache"); v != nil {
			if cf := d.keys(v, tf.field("cache"), "cache"); cf != nil {
				c := &system.Cache{}
				c.HitRatio, _ = cf.number("hit_ratio")
				if lat := cf.get("latency"); lat != nil {
					c.Latency = l.dist(lat, cf.field("latency"), true)
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
		o.Start, _ = f.duration("start")
		if end, ok := f.duration("end"); ok {
			o.End = end
			if o.End <= o.Start {
				d.errorf(f.get("end"), p+".end", "must be after start (%v), got %v", o.Start, o.End)
			}
		}
		if mode, ok := f.word("mode"); ok {
			o.Stall = mode == "stall"
			o.Mode = parseOutcome(mode)
			if mode == "slow" {
				o.Slow, _ = f.number("factor")
			}
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
		if v, ok := f.integer("run"); ok {
			e.Run = v
		}
		attempt, _ := f.integer("attempt")
		e.Attempt = int(attempt)
		if w, ok := f.word("outcome"); ok {
			e.Outcome = parseOutcome(w)
		}
		e.Latency, _ = f.duration("latency")
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
	if v, ok := f.integer("max_events"); ok {
		g.MaxEvents = uint64(v)
	}
	g.MaxTime, _ = f.duration("max_time")
	if v, ok := f.integer("max_in_system"); ok {
		g.MaxInSystem = int(v)
	}
	if v, ok := f.integer("max_tool_queue"); ok {
		g.MaxToolQueue = int(v)
	}
	g.MaxWall, _ = f.duration("max_wall")
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
	fam, ok := f.word("dist")
	if !ok {
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
			params[p] = d.numberKey(f.key(p), v, f.field(p))
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
		return nil
	}
	weight := tableKey("mixture_component", "weight")
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
				w = d.numberKey(weight, m.Content[j+1], p+".weight")
				continue
			}
			rest.Content = append(rest.Content, m.Content[j], m.Content[j+1])
		}
		if !hasWeight {
			d.errorf(item, p+".weight", "required%s", weight.Missing)
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
	if m, ok := f.integer("max_samples"); ok {
		maxSamples = int(m)
	}
	f.finish()
	if v == nil {
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
	e, sum, msg := l.logs.get(key, func() (dist.Dist, string, string) {
		file, err := l.fsys.Open(filepath.ToSlash(name))
		if errors.Is(err, errOutside) {
			return nil, "", fmt.Sprintf("%q is outside the scenario's directory (%v): give a path relative to it, without \"..\"", name, errOutside)
		}
		if err != nil {
			return nil, "", fmt.Sprintf("cannot read %q: %v", name, unwrapPathError(err))
		}
		defer file.Close()
		r, h := hashingReader(file)
		log, err := latencylog.Read(r, latencylog.Options{Name: name, MaxSamples: maxSamples})
		if errors.Is(err, latencylog.ErrTooManySamples) {
			return nil, "", fmt.Sprintf("%v: an empirical distribution holds at most %d by default; raise it with max_samples (up to %d, 8 bytes each)", err, latencylog.DefaultMaxSamples, latencylog.MaxMaxSamples)
		}
		if err != nil {
			return nil, "", err.Error()
		}
		if _, err := io.Copy(h, r); err != nil { // what the reader left unread
			return nil, "", fmt.Sprintf("cannot read %q: %v", name, err)
		}
		e, err := dist.Empirical(log.Samples)
		if err != nil {
			return nil, "", err.Error()
		}
		return e, hex.EncodeToString(h.Sum(nil)), ""
	})
	if msg != "" {
		d.errorf(v, f.field("file"), "%s", msg)
		return nil
	}
	l.dataFile(filepath.ToSlash(name), sum)
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
		if w, ok := f.word("enforce"); ok {
			tl.Client = w == "client"
		}
		f.finish()
		return nil, tl
	}
	l.tokenLimits(f) // none: marks the keys read
	rl := &system.RateLimit{Burst: 1}
	if v, ok := f.rate("rate"); ok {
		rl.Rate = v
	} else {
		// Not required by the table: per-minute limits replace it.
		d.errorf(n, f.field("rate"), "required (e.g. rate: 2/s), or per-minute limits (rpm, tpm, itpm, otpm)")
	}
	if v, ok := f.integer("burst"); ok {
		rl.Burst = int(v)
	}
	if w, ok := f.word("enforce"); ok {
		rl.Client = w == "client"
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
	c.InputToken, _ = f.number("input_token")
	c.OutputToken, _ = f.number("output_token")
	c.CacheReadToken, c.CacheWriteToken = c.InputToken, c.InputToken
	if v, ok := f.number("cache_read_token"); ok {
		c.CacheReadToken = v
	}
	if v, ok := f.number("cache_write_token"); ok {
		c.CacheWriteToken = v
	}
	if v := f.get("reserve"); v != nil {
		c.Reserve = l.amount(v, f.field("reserve"))
	} else if !f.has("input_token") && !f.has("output_token") && !f.has("cache_read_token") && !f.has("cache_write_token") {
		d.errorf(n, f.field("reserve"), "required: the call's declared maximum, reserved before dialing")
	}
	if v := f.get("usage"); v != nil {
		c.Usage = l.dist(v, f.field("usage"), false)
	}
	if v := f.get("dims"); v != nil {
		priceKey := tableKey("cost_dim", "price")
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
						price = d.numberKey(priceKey, item.Content[j+1], p+".price")
						continue
					}
					rest.Content = append(rest.Content, item.Content[j], item.Content[j+1])
				}
				if price < 0 {
					d.errorf(item, p+".price", "required%s", priceKey.Missing)
				}
				c.Dims = append(c.Dims, system.CostDim{Name: k.Value, Price: price, Usage: l.dist(rest, p, false)})
			}
			df.finish()
		}
	}
	if w, ok := f.word("billed"); ok {
		c.BillSuccessOnly = w == "success"
	}
	f.finish()
	if c.Usage == nil && len(c.Dims) == 0 && !f.has("input_token") && !f.has("output_token") && !f.has("cache_read_token") && !f.has("cache_write_token") && len(d.errs) == f.clean {
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

// currencyLabel reports whether s can label costs: 1 to 12 printable
// characters without spaces (USD, EUR, €, credits).
func currencyLabel(s string) bool {
	n := 0
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
		n++
	}
	return n >= 1 && n <= 12
}
