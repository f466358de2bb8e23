// Package synth produces traces of a known agent with the real
// OpenTelemetry Go SDK, for calibrate's tests: runs arrive at known
// instants, call a model and a tool with known latency distributions,
// error rates and token counts, and their spans go through the SDK's OTLP
// HTTP exporter to a local server that decodes each request with the
// collector's pdata library and writes it as the collector's file exporter
// does, one ExportTraceServiceRequest JSON per line.
package synth

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/budgetsim/budgetsim/model/dist"
)

// Agent describes the agent whose runs are traced. Each run is an
// invoke_agent span with, in order: a chat call to Model, a tool call to
// Tool (retried after a 429 or 5xx, up to Attempts), and a second chat
// call. Durations are in seconds.
type Agent struct {
	Runs int
	// Interarrival draws the gap between run starts.
	Interarrival dist.Dist
	// ToolLatency draws a tool call's duration.
	ToolLatency dist.Dist
	// Tool's error probabilities: 429 (with RetryAfter seconds) and 503.
	P429, P5xx float64
	RetryAfter float64
	Attempts   int
	Backoff    time.Duration
	// TTFT, PerToken (seconds per output token) and the token counts
	// draw a model call.
	TTFT, PerToken        dist.Dist
	Input, Output, Cached dist.Dist
	// Skew, when > 0, shifts every tool span by this much (a service
	// whose clock runs ahead).
	Skew time.Duration
	// LoadFactor, when > 0, makes the tool slower under load: each call's
	// drawn latency is multiplied by 1 + LoadFactor × the earlier runs
	// still in flight when its run started.
	LoadFactor float64
	Seed       uint64
}

// Names in the traces.
const (
	ModelName = "m1"
	ToolName  = "search"
)

// Start is the first run's reference instant.
var Start = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// Trace returns the agent's trace in the file exporter's layout, and the
// run start instants.
func Trace(a Agent) ([]byte, []time.Time, error) {
	var (
		mu  sync.Mutex
		out bytes.Buffer
		bad error
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		req := ptraceotlp.NewExportRequest()
		if err == nil {
			err = req.UnmarshalProto(body)
		}
		var line []byte
		if err == nil {
			line, err = (&ptrace.JSONMarshaler{}).MarshalTraces(req.Traces())
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			bad = err
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out.Write(line)
		out.WriteByte('\n')
		resp, _ := ptraceotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(resp)
	}))
	defer srv.Close()

	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, nil, err
	}
	res := resource.NewSchemaless(attribute.String("service.name", "agent"))
	rng := rand.New(rand.NewPCG(a.Seed, 1))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithIDGenerator(&ids{r: rand.New(rand.NewPCG(a.Seed, 2))}),
		// Batches are sent when full (or at shutdown), never by a timer,
		// and never dropped.
		sdktrace.WithBatcher(exp, sdktrace.WithBlocking(), sdktrace.WithMaxExportBatchSize(256), sdktrace.WithBatchTimeout(time.Hour)),
	)
	tr := tp.Tracer("budgetsim/calibrate/synth")
	var starts []time.Time
	var ends []time.Time // of the runs still in flight
	at := Start
	for i := range a.Runs {
		if i > 0 {
			at = at.Add(secs(a.Interarrival.Sample(rng)))
		}
		starts = append(starts, at)
		live := ends[:0]
		for _, e := range ends {
			if e.After(at) {
				live = append(live, e)
			}
		}
		ends = append(live, a.run(ctx, tr, rng, at, 1+float64(a.LoadFactor*float64(len(live)))))
	}
	if err := tp.Shutdown(ctx); err != nil {
		return nil, nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	if bad != nil {
		return nil, nil, bad
	}
	return bytes.Clone(out.Bytes()), starts, nil
}

func secs(s float64) time.Duration { return time.Duration(s * 1e9) }

// run traces one run starting at t, its tool calls slowed by slow, and
// returns its end.
func (a *Agent) run(ctx context.Context, tr trace.Tracer, rng *rand.Rand, t time.Time, slow float64) time.Time {
	ctx, root := tr.Start(ctx, "invoke_agent agent", trace.WithTimestamp(t),
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "agent")))
	t = a.chat(ctx, tr, rng, t)
	for k := 1; ; k++ {
		d := secs(a.ToolLatency.Sample(rng) * slow)
		_, sp := tr.Start(ctx, "execute_tool "+ToolName, trace.WithTimestamp(t.Add(a.Skew)), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", ToolName)))
		u := rng.Float64()
		status := 200
		switch {
		case u < a.P429:
			status = 429
			sp.SetAttributes(attribute.StringSlice("http.response.header.retry-after", []string{strconv.FormatFloat(a.RetryAfter, 'f', -1, 64)}))
		case u < a.P429+a.P5xx:
			status = 503
		}
		sp.SetAttributes(attribute.Int("http.response.status_code", status))
		if status != 200 {
			sp.SetAttributes(attribute.String("error.type", strconv.Itoa(status)))
			sp.SetStatus(codes.Error, "")
		}
		t = t.Add(d)
		sp.End(trace.WithTimestamp(t.Add(a.Skew)))
		if status == 200 || k >= a.Attempts {
			break
		}
		if status == 429 {
			t = t.Add(secs(a.RetryAfter))
		} else {
			t = t.Add(a.Backoff)
		}
	}
	t = a.chat(ctx, tr, rng, t)
	root.End(trace.WithTimestamp(t))
	return t
}

// chat traces one model call starting at t and returns its end.
func (a *Agent) chat(ctx context.Context, tr trace.Tracer, rng *rand.Rand, t time.Time) time.Time {
	in, out, cached := int64(a.Input.Sample(rng)), max(int64(a.Output.Sample(rng)), 1), int64(a.Cached.Sample(rng))
	ttft := a.TTFT.Sample(rng)
	d := ttft + float64(float64(out)*a.PerToken.Sample(rng))
	_, sp := tr.Start(ctx, "chat "+ModelName, trace.WithTimestamp(t), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.request.model", ModelName),
			attribute.Int64("gen_ai.usage.input_tokens", in),
			attribute.Int64("gen_ai.usage.output_tokens", out),
			attribute.Int64("gen_ai.usage.cache_read.input_tokens", cached),
			attribute.Float64("gen_ai.server.time_to_first_token", ttft),
			attribute.Int("http.response.status_code", 200)))
	end := t.Add(secs(d))
	sp.End(trace.WithTimestamp(end))
	return end
}

// ids draws trace and span ids from a seeded generator, so that the same
// agent gives the same trace.
type ids struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (g *ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var t trace.TraceID
	binary.BigEndian.PutUint64(t[:8], g.r.Uint64()|1)
	binary.BigEndian.PutUint64(t[8:], g.r.Uint64())
	return t, g.span()
}

func (g *ids) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.span()
}

func (g *ids) span() trace.SpanID {
	var s trace.SpanID
	binary.BigEndian.PutUint64(s[:], g.r.Uint64()|1)
	return s
}

// Default returns the agent the tests recover: Poisson arrivals at 2/s, a
// lognormal tool latency (median 300ms, sigma 0.6), 5% 429s with a 2 s
// Retry-After, 2% 503s, three attempts, a lognormal time to first token
// (median 400 ms, sigma 0.4) and 20 ms per output token.
func Default(runs int, seed uint64) Agent {
	must := func(d dist.Dist, err error) dist.Dist {
		if err != nil {
			panic(fmt.Sprintf("synth: %v", err))
		}
		return d
	}
	return Agent{
		Runs:         runs,
		Interarrival: must(dist.Exponential(0.5)),
		ToolLatency:  must(dist.LogNormal(0.3, 0.6)),
		P429:         0.05, P5xx: 0.02, RetryAfter: 2, Attempts: 3, Backoff: 200 * time.Millisecond,
		TTFT:     must(dist.LogNormal(0.4, 0.4)),
		PerToken: must(dist.Constant(0.02)),
		Input:    must(dist.Uniform(1000, 3000)),
		Output:   must(dist.Uniform(50, 450)),
		Cached:   must(dist.Uniform(0, 500)),
		Seed:     seed,
	}
}
