// Package otlpout writes simulated runs as OpenTelemetry spans in OTLP
// JSON, one ExportTraceServiceRequest per line as the collector's file
// exporter writes them, with the GenAI semantic conventions calibrate
// reads: so that a simulated day opens in the same trace viewer as a real
// one, and can be re-imported by `simulate calibrate`.
//
// Each run is a trace: an invoke_agent root span from its arrival to its
// end, and one child span per attempt (chat for a tool with token counts,
// a model API; execute_tool otherwise) from its dial to its answer or
// timeout, with http.response.status_code and error.type for its outcome.
// The simulator's clock starts at [Epoch]. Trace and span ids are derived
// from the run number, so the same simulation gives the same file.
// A successful model call carries its usage (gen_ai.usage.input_tokens,
// output_tokens, and the prompt cache's cache_read.input_tokens and
// cache_creation.input_tokens, part of the input as the conventions say)
// and, when the tool has a time per output token, its time to first token
// (gen_ai.server.time_to_first_token, in seconds, as a span attribute); a
// 429 or 503 that carried a Retry-After has it as
// http.response.header.retry-after (decimal seconds). A call of an agent
// loop carries its turn as budgetsim.turn, for the viewer: calibrate
// finds turns from the spans' order, as it must in real traces.
package otlpout

import (
	"encoding/binary"
	"io"
	"slices"
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/budgetsim/budgetsim/model/retry"
	"github.com/budgetsim/budgetsim/model/system"
)

// Epoch is the wall-clock instant of the simulator's time 0.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// RunsPerLine is how many runs one line (one request) holds.
const RunsPerLine = 256

// Writer is a system.Tracer writing OTLP JSON lines to w.
type Writer struct {
	w       io.Writer
	service string
	model   map[string]bool
	pending map[int64][]system.AttemptRecord
	batch   ptrace.Traces
	spans   ptrace.SpanSlice
	runs    int
	err     error
	m       ptrace.JSONMarshaler
}

// New returns a Writer for a simulation of cfg, naming the service
// service (the scenario's name).
func New(w io.Writer, cfg *system.Config, service string) *Writer {
	t := &Writer{w: w, service: service, model: map[string]bool{}, pending: map[int64][]system.AttemptRecord{}}
	for _, tl := range cfg.Tools {
		if tl.Tokens != nil {
			t.model[tl.Name] = true
		}
	}
	t.reset()
	return t
}

func (t *Writer) reset() {
	t.batch = ptrace.NewTraces()
	rs := t.batch.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", t.service)
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("budgetsim")
	t.spans = ss.Spans()
	t.runs = 0
}

// Attempt implements system.Tracer.
func (t *Writer) Attempt(r *system.AttemptRecord) {
	if r.Group || r.Outcome == retry.Refused {
		return
	}
	t.pending[r.Run] = append(t.pending[r.Run], *r)
}

// Run implements system.Tracer: the run's spans join the current line.
func (t *Writer) Run(r system.RunRecord) {
	root := t.spans.AppendEmpty()
	tid := traceID(r.Run)
	root.SetTraceID(tid)
	root.SetSpanID(spanID(r.Run, 0))
	root.SetName("invoke_agent " + t.service)
	root.SetKind(ptrace.SpanKindInternal)
	root.SetStartTimestamp(ts(r.Arrived))
	root.SetEndTimestamp(ts(r.Ended))
	a := root.Attributes()
	a.PutStr("gen_ai.operation.name", "invoke_agent")
	a.PutStr("gen_ai.agent.name", t.service)
	a.PutStr("budgetsim.run.outcome", r.Outcome.String())
	if r.Class != "" {
		a.PutStr("budgetsim.class", r.Class)
	}
	if r.Outcome != system.Completed {
		root.Status().SetCode(ptrace.StatusCodeError)
		a.PutStr("error.type", r.Outcome.String())
	}
	t.attempts(r.Run, tid)
	t.runs++
	if t.runs == RunsPerLine {
		t.flush()
	}
}

// attempts adds the run's attempt spans, children of its root.
func (t *Writer) attempts(run int64, tid pcommon.TraceID) {
	for i, at := range t.pending[run] {
		s := t.spans.AppendEmpty()
		s.SetTraceID(tid)
		s.SetSpanID(spanID(run, i+1))
		s.SetParentSpanID(spanID(run, 0))
		s.SetKind(ptrace.SpanKindClient)
		s.SetStartTimestamp(ts(at.Start))
		s.SetEndTimestamp(ts(at.Start + at.Latency))
		a := s.Attributes()
		if t.model[at.Tool] {
			s.SetName("chat " + at.Tool)
			a.PutStr("gen_ai.operation.name", "chat")
			a.PutStr("gen_ai.request.model", at.Tool)
		} else {
			s.SetName("execute_tool " + at.Tool)
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", at.Tool)
		}
		a.PutStr("budgetsim.step", at.Step)
		if at.Turn > 0 {
			a.PutInt("budgetsim.turn", int64(at.Turn))
		}
		a.PutInt("http.request.resend_count", int64(at.ResendCount))
		if at.InputTokens >= 0 {
			a.PutInt("gen_ai.usage.input_tokens", at.InputTokens)
			a.PutInt("gen_ai.usage.output_tokens", at.OutputTokens)
			a.PutInt("gen_ai.usage.cache_read.input_tokens", at.CacheReadTokens)
			a.PutInt("gen_ai.usage.cache_creation.input_tokens", at.CacheWriteTokens)
		}
		if at.TTFT >= 0 {
			a.PutDouble("gen_ai.server.time_to_first_token", at.TTFT.Seconds())
		}
		if at.RetryAfter >= 0 {
			a.PutEmptySlice("http.response.header.retry-after").AppendEmpty().SetStr(strconv.FormatFloat(at.RetryAfter.Seconds(), 'f', -1, 64))
		}
		switch at.Outcome {
		case retry.OK:
			a.PutInt("http.response.status_code", 200)
		case retry.RateLimited:
			a.PutInt("http.response.status_code", 429)
			a.PutStr("error.type", "429")
		case retry.Transient:
			a.PutInt("http.response.status_code", 503)
			a.PutStr("error.type", "503")
		case retry.Permanent:
			a.PutInt("http.response.status_code", 400)
			a.PutStr("error.type", "400")
		case retry.Timeout:
			a.PutStr("error.type", "timeout")
		}
		if at.Outcome != retry.OK {
			s.Status().SetCode(ptrace.StatusCodeError)
		}
	}
	delete(t.pending, run)
}

func (t *Writer) flush() {
	if t.runs == 0 && t.spans.Len() == 0 {
		return
	}
	if t.err == nil {
		b, err := t.m.MarshalTraces(t.batch)
		if err == nil {
			b = append(b, '\n')
			_, err = t.w.Write(b)
		}
		t.err = err
	}
	t.reset()
}

// Close writes what is left: the last line, and the attempts of runs
// still in flight when the simulation ended (without their root: a
// partial trace, as a real one cut at a time would be). It returns the
// first write error.
func (t *Writer) Close() error {
	runs := make([]int64, 0, len(t.pending))
	for run := range t.pending {
		runs = append(runs, run)
	}
	slices.Sort(runs)
	for _, run := range runs {
		t.attempts(run, traceID(run))
	}
	t.flush()
	return t.err
}

// Err returns the first write error.
func (t *Writer) Err() error { return t.err }

func ts(d time.Duration) pcommon.Timestamp {
	return pcommon.Timestamp(Epoch.UnixNano() + int64(d))
}

func traceID(run int64) pcommon.TraceID {
	var id pcommon.TraceID
	copy(id[:8], "budgetsm")
	binary.BigEndian.PutUint64(id[8:], uint64(run)+1)
	return id
}

func spanID(run int64, k int) pcommon.SpanID {
	var id pcommon.SpanID
	binary.BigEndian.PutUint64(id[:], uint64(run+1)<<20|uint64(k+1))
	return id
}
