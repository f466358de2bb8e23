// Package observe turns the spans of production traces into what a
// scenario is fitted to: runs (their arrival, end-to-end time and step
// sequence) and, per tool, bounded samples of latencies, times to first
// token, per-token times, Retry-After values and token counts, with exact
// counts of outcomes by class.
//
// It reads its inputs twice. The first pass finds each run's interval: its
// root span (an invoke_agent span, else a span without a parent), or the
// extent of its calls when the root is not in the files (a partial trace).
// The second pass takes each call (a chat or execute_tool span), moves it
// inside its run's root when the services' clocks disagree (clock skew: a
// child span outside its parent, translated back in and counted), and adds
// it to its tool's samples together with the number of runs in flight when
// it started (for the load–latency check). Memory is bounded by the number
// of runs and by MaxSamples per sample, not by the number of spans.
package observe

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/budgetsim/budgetsim/calibrate/ingest"
	"github.com/budgetsim/budgetsim/calibrate/sample"
)

// Options control the observation.
type Options struct {
	// MaxSamples is each sample's capacity; 0 means DefaultMaxSamples.
	MaxSamples int
	// Seed seeds the reservoirs (the same seed, the same samples).
	Seed uint64
	// Ingest limits the readers.
	Ingest ingest.Options
	// MaxSequence is the most calls of a run kept for its step sequence;
	// 0 means DefaultMaxSequence.
	MaxSequence int
}

// DefaultMaxSamples bounds each sample: enough for a tail check at 0.999.
const DefaultMaxSamples = 50_000

// DefaultMaxSequence bounds the calls of one run kept for its sequence
// and its turns: enough for an agent's long runs, while one runaway run
// (a loop that never ended) cannot hold the memory of the others.
const DefaultMaxSequence = 1024

// Run is one run of the trace.
type Run struct {
	ID string
	// Start and End are Unix nanoseconds.
	Start, End int64
	// Rooted reports whether the run's root span was in the files.
	Rooted bool
	// Calls is the number of calls; Failed whether any call failed.
	Calls  int
	Failed bool
	// OK reports whether the run's last call succeeded.
	OK bool
	// Steps is the run's step sequence: its calls in order of start, a
	// retry folded into its step. A retry is a call whose
	// http.request.resend_count is above 0, or, without that attribute, a
	// call of the same tool right after a failed one; it joins the latest
	// earlier step of its tool whose last attempt failed. At most
	// MaxSequence calls are kept; Truncated reports that some were not.
	Steps     []Step
	Truncated bool
}

// Step is one step of a run: a tool, how many attempts it took, and what
// its last attempt says (the one a loop's context grows from).
type Step struct {
	Tool     string
	Attempts int
	// Chat reports a model call (gen_ai.operation.name chat and kin).
	Chat bool
	// Failed reports that the last attempt failed.
	Failed bool
	// Start and End are the last attempt's, Unix nanoseconds.
	Start, End int64
	// Input, Output and Cached are the last attempt's token counts, -1
	// when absent.
	Input, Output, Cached int64
}

// Duration returns the run's end-to-end time in seconds.
func (r *Run) Duration() float64 { return float64(r.End-r.Start) / 1e9 }

// Tool is what the trace says about one tool (or model).
type Tool struct {
	Name string
	Op   ingest.Op
	// Calls counts every call; ByClass by outcome class.
	Calls   int64
	ByClass [ingest.NumClasses]int64
	// Latency holds successful calls' durations in seconds, each with the
	// runs in flight at its start.
	Latency *sample.Reservoir
	// TimeoutAfter holds the durations of calls that timed out.
	TimeoutAfter *sample.Reservoir
	// TTFT and PerToken hold model calls' times to first token and their
	// time per output token, (duration − ttft)/output tokens, in seconds.
	TTFT, PerToken *sample.Reservoir
	// RetryAfter holds the Retry-After values sent, in seconds.
	RetryAfter *sample.Reservoir
	// Input, Output and Cached hold token counts where given.
	Input, Output, Cached *sample.Reservoir
	// CachedCalls counts the calls that read some input from the cache,
	// MinCached is the fewest cached tokens such a call read, and
	// CachedSum and InputSum are the exact sums over the calls that carry
	// both counts.
	CachedCalls, MinCached, CachedSum, InputSum int64
}

// Observation is the outcome of [Observe].
type Observation struct {
	// Files are the inputs, in order, with the spans read from each.
	Files []File
	// Spans counts every span read; Calls the chat and execute_tool ones;
	// Ignored the others that are neither calls nor roots.
	Spans, Calls, Ignored int64
	// Runs, in order of start (ties by id).
	Runs []Run
	// Partial counts runs whose spans name a parent but whose root was
	// not in the files (a call log has no roots: its runs are not partial).
	Partial int64
	// Skewed counts calls that started before or ended after their run's
	// root (clock skew between services) and were moved inside it;
	// Clamped those longer than the root, cut to it.
	Skewed, Clamped int64
	// Tools, sorted by name.
	Tools []*Tool
	// Missing counts, by attribute, the model calls without it.
	Missing map[string]int64
}

// File is one input.
type File struct {
	Path  string
	Spans int64
}

type runAcc struct {
	start, end         int64
	rootStart, rootEnd int64
	rooted             bool
	orphan             bool // a span names a parent: the trace has a root somewhere
	calls              int
	failed             bool
	seq                []seqCall
	truncated          bool
}

type seqCall struct {
	start, end      int64
	tool            string
	fail, chat      bool
	resend          int
	in, out, cached int64
}

// Observe reads the files and returns what they hold. Errors name the file
// and line.
func Observe(paths []string, opt Options) (*Observation, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no trace files given")
	}
	if opt.MaxSamples <= 0 {
		opt.MaxSamples = DefaultMaxSamples
	}
	if opt.MaxSequence <= 0 {
		opt.MaxSequence = DefaultMaxSequence
	}
	runs := map[string]*runAcc{}
	o := &Observation{Missing: map[string]int64{}}
	// Pass 1: run intervals and roots.
	for _, p := range paths {
		var n int64
		err := ingest.ReadFile(p, opt.Ingest, func(s *ingest.Span) error {
			n++
			r := runs[s.Run]
			if r == nil {
				r = &runAcc{start: s.Start, end: s.End}
				runs[s.Run] = r
			}
			r.start, r.end = min(r.start, s.Start), max(r.end, s.End)
			r.orphan = r.orphan || s.Parent != ""
			isRoot := s.Op == ingest.OpAgent || s.Parent == "" && s.ID != ""
			if isRoot && s.End > s.Start && (!r.rooted || s.Start < r.rootStart) {
				r.rooted, r.rootStart, r.rootEnd = true, s.Start, s.End
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		o.Files = append(o.Files, File{Path: p, Spans: n})
		o.Spans += n
	}
	// In-flight counts at an instant come from the sorted run intervals.
	starts := make([]int64, 0, len(runs))
	ends := make([]int64, 0, len(runs))
	for _, r := range runs {
		if r.rooted {
			r.start, r.end = r.rootStart, r.rootEnd
		}
		starts = append(starts, r.start)
		ends = append(ends, r.end)
	}
	slices.Sort(starts)
	slices.Sort(ends)
	inFlight := func(t int64) float64 {
		s := sort.Search(len(starts), func(i int) bool { return starts[i] > t })
		e := sort.Search(len(ends), func(i int) bool { return ends[i] > t })
		return float64(s - e)
	}
	tools := map[string]*Tool{}
	res := func(tool, what string) *sample.Reservoir {
		return sample.New(opt.MaxSamples, opt.Seed, tool+"\x00"+what)
	}
	// Pass 2: calls.
	for _, p := range paths {
		err := ingest.ReadFile(p, opt.Ingest, func(s *ingest.Span) error {
			if s.Op != ingest.OpChat && s.Op != ingest.OpTool {
				if !(s.Op == ingest.OpAgent || s.Parent == "") {
					o.Ignored++
				}
				return nil
			}
			o.Calls++
			r := runs[s.Run]
			start, end := s.Start, s.End
			if r.rooted && (start < r.rootStart || end > r.rootEnd) {
				o.Skewed++
				d := end - start
				if d > r.rootEnd-r.rootStart {
					o.Clamped++
					start, end = r.rootStart, r.rootEnd
				} else if start < r.rootStart {
					start, end = r.rootStart, r.rootStart+d
				} else {
					start, end = r.rootEnd-d, r.rootEnd
				}
			}
			t := tools[s.Tool]
			if t == nil {
				t = &Tool{Name: s.Tool, Op: s.Op,
					Latency: res(s.Tool, "latency"), TimeoutAfter: res(s.Tool, "timeout"),
					TTFT: res(s.Tool, "ttft"), PerToken: res(s.Tool, "per_token"),
					RetryAfter: res(s.Tool, "retry_after"),
					Input:      res(s.Tool, "input"), Output: res(s.Tool, "output"), Cached: res(s.Tool, "cached")}
				tools[s.Tool] = t
			}
			t.Calls++
			t.ByClass[s.Class]++
			dur := float64(end-start) / 1e9
			switch s.Class {
			case ingest.OK:
				t.Latency.Add(dur, inFlight(start))
			case ingest.Timeout:
				t.TimeoutAfter.Add(dur, 0)
			}
			if s.RetryAfter >= 0 {
				t.RetryAfter.Add(s.RetryAfter, 0)
			}
			if s.Op == ingest.OpChat {
				for k, v := range map[string]int64{ingest.AttrInputTokens: s.InputTokens, ingest.AttrOutputTokens: s.OutputTokens, ingest.AttrTTFT: int64(math.Ceil(s.TTFT))} {
					if v < 0 {
						o.Missing[k]++
					}
				}
			}
			if s.InputTokens >= 0 {
				t.Input.Add(float64(s.InputTokens), 0)
			}
			if s.OutputTokens >= 0 {
				t.Output.Add(float64(s.OutputTokens), 0)
			}
			if s.CachedTokens >= 0 {
				t.Cached.Add(float64(s.CachedTokens), 0)
				if s.CachedTokens > 0 {
					if t.CachedCalls == 0 || s.CachedTokens < t.MinCached {
						t.MinCached = s.CachedTokens
					}
					t.CachedCalls++
				}
				if s.InputTokens >= 0 {
					t.CachedSum += s.CachedTokens
					t.InputSum += s.InputTokens
				}
			}
			if s.Class == ingest.OK && s.TTFT >= 0 && s.TTFT <= dur {
				t.TTFT.Add(s.TTFT, 0)
				if s.OutputTokens > 0 {
					t.PerToken.Add((dur-s.TTFT)/float64(s.OutputTokens), 0)
				}
			}
			r.calls++
			fail := s.Class != ingest.OK
			r.failed = r.failed || fail
			if len(r.seq) < opt.MaxSequence {
				r.seq = append(r.seq, seqCall{start: start, end: end, tool: t.Name, fail: fail, chat: s.Op == ingest.OpChat,
					resend: s.Resend, in: s.InputTokens, out: s.OutputTokens, cached: s.CachedTokens})
			} else {
				r.truncated = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for id, r := range runs {
		if r.calls == 0 && !r.rooted {
			continue // a trace with neither a call nor a root
		}
		if !r.rooted && r.orphan {
			o.Partial++
		}
		slices.SortStableFunc(r.seq, func(a, b seqCall) int {
			return cmp.Or(cmp.Compare(a.start, b.start), strings.Compare(a.tool, b.tool))
		})
		steps := foldRetries(r.seq)
		ok := len(r.seq) > 0 && !r.seq[len(r.seq)-1].fail
		o.Runs = append(o.Runs, Run{ID: id, Start: r.start, End: r.end, Rooted: r.rooted, Calls: r.calls, Failed: r.failed, OK: ok, Steps: steps, Truncated: r.truncated})
	}
	slices.SortFunc(o.Runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.ID, b.ID))
	})
	for _, t := range tools {
		o.Tools = append(o.Tools, t)
	}
	slices.SortFunc(o.Tools, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	if len(o.Runs) == 0 {
		return nil, fmt.Errorf("%s: no runs: no span is a model call (gen_ai.operation.name chat), a tool call (execute_tool) or a root", strings.Join(paths, ", "))
	}
	return o, nil
}

// foldRetries turns a run's calls, in order of start, into its steps.
func foldRetries(seq []seqCall) []Step {
	var steps []Step
	for i, c := range seq {
		j := -1
		switch {
		case c.resend > 0:
			// The latest earlier step of the tool whose last attempt failed.
			for k := len(steps) - 1; k >= 0; k-- {
				if steps[k].Tool == c.tool && steps[k].Failed {
					j = k
					break
				}
			}
		case c.resend < 0 && i > 0 && seq[i-1].fail && seq[i-1].tool == c.tool:
			j = len(steps) - 1
		}
		st := Step{Tool: c.tool, Attempts: 1, Chat: c.chat, Failed: c.fail, Start: c.start, End: c.end, Input: c.in, Output: c.out, Cached: c.cached}
		if j < 0 {
			steps = append(steps, st)
			continue
		}
		st.Attempts = steps[j].Attempts + 1
		steps[j] = st
	}
	return steps
}

// Sequence returns the run's steps as "search → llm×2 → llm".
func (r *Run) Sequence() string {
	var b strings.Builder
	for i, s := range r.Steps {
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(s.Tool)
	}
	return b.String()
}
