package ingest

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// The attribute names read, from the OpenTelemetry semantic conventions
// (GenAI, HTTP, error).
const (
	AttrOperation    = "gen_ai.operation.name"
	AttrRequestModel = "gen_ai.request.model"
	AttrRespModel    = "gen_ai.response.model"
	AttrToolName     = "gen_ai.tool.name"
	AttrInputTokens  = "gen_ai.usage.input_tokens"
	AttrOutputTokens = "gen_ai.usage.output_tokens"
	// AttrCachedTokens is the input tokens served from the provider's
	// prompt cache.
	AttrCachedTokens = "gen_ai.usage.cache_read.input_tokens"
	// AttrTTFT is the time to first token in seconds. The conventions
	// define it as a metric (gen_ai.server.time_to_first_token); calibrate
	// reads a span attribute of the same name.
	AttrTTFT       = "gen_ai.server.time_to_first_token"
	AttrErrorType  = "error.type"
	AttrHTTPStatus = "http.response.status_code"
	// AttrRetryAfter is the Retry-After response header, as the HTTP
	// conventions record headers (http.response.header.<name>, a string
	// array).
	AttrRetryAfter = "http.response.header.retry-after"
	// AttrResendCount is the attempts before this one of the same request
	// (OpenTelemetry's HTTP client convention): a retry when above 0.
	AttrResendCount = "http.request.resend_count"
)

// otlpDecoder decodes OTLP JSON lines with pdata.
type otlpDecoder struct {
	u    ptrace.JSONUnmarshaler
	span Span
}

func (d *otlpDecoder) decode(text []byte, line int, fn func(*Span) error) error {
	td, err := d.u.UnmarshalTraces(text)
	if err != nil {
		return lineErrf("not OTLP JSON (an ExportTraceServiceRequest per line, as the collector's file exporter writes): %v", err)
	}
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				if err := d.one(spans.At(k), line); err != nil {
					return err
				}
				if err := fn(&d.span); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (d *otlpDecoder) one(sp ptrace.Span, line int) error {
	s := &d.span
	*s = Span{Line: line, RetryAfter: -1, InputTokens: -1, OutputTokens: -1, CachedTokens: -1, TTFT: -1, Resend: -1}
	tid := sp.TraceID()
	if tid.IsEmpty() {
		return lineErrf("span %q has no traceId", sp.Name())
	}
	s.Run = tid.String()
	if id := sp.SpanID(); !id.IsEmpty() {
		s.ID = id.String()
	}
	if p := sp.ParentSpanID(); !p.IsEmpty() {
		s.Parent = p.String()
	}
	s.Name = sp.Name()
	st, en := uint64(sp.StartTimestamp()), uint64(sp.EndTimestamp())
	if st == 0 || st > math.MaxInt64 || en > math.MaxInt64 {
		return lineErrf("span %q: startTimeUnixNano %d is not a time", s.Name, st)
	}
	s.Start, s.End = int64(st), int64(en)
	if en < st { // an unfinished or mangled span: no duration
		s.End = s.Start
	}
	attrs := sp.Attributes()
	op := str(attrs, AttrOperation)
	s.Op = opOf(op)
	switch s.Op {
	case OpTool:
		s.Tool = str(attrs, AttrToolName)
	case OpChat:
		s.Tool = str(attrs, AttrRequestModel)
		if s.Tool == "" {
			s.Tool = str(attrs, AttrRespModel)
		}
	}
	if s.Tool == "" && s.Op != OpAgent {
		s.Tool = s.Name
	}
	s.InputTokens = count(attrs, AttrInputTokens)
	s.OutputTokens = count(attrs, AttrOutputTokens)
	s.CachedTokens = count(attrs, AttrCachedTokens)
	if v, ok := number(attrs, AttrTTFT); ok && v >= 0 {
		s.TTFT = v
	}
	if v, ok := number(attrs, AttrHTTPStatus); ok && v >= 100 && v < 600 {
		s.HTTPStatus = int(v)
	}
	if v, ok := attrs.Get(AttrRetryAfter); ok {
		h := v.AsString()
		if v.Type() == pcommon.ValueTypeSlice && v.Slice().Len() > 0 {
			h = v.Slice().At(0).AsString()
		}
		s.RetryAfter = retryAfter(h, s.End)
	}
	if v, ok := number(attrs, AttrResendCount); ok && v >= 0 && v < 1<<31 {
		s.Resend = int(v)
	}
	s.Class = classify(s.HTTPStatus, str(attrs, AttrErrorType), sp.Status().Code() == ptrace.StatusCodeError)
	return nil
}

// opOf maps gen_ai.operation.name to an Op.
func opOf(op string) Op {
	switch op {
	case "chat", "text_completion", "generate_content", "embeddings":
		return OpChat
	case "execute_tool":
		return OpTool
	case "invoke_agent", "create_agent":
		return OpAgent
	}
	return OpOther
}

// classify derives a call's outcome class from its HTTP status, its
// error.type and whether its status says Error.
func classify(status int, errType string, isErr bool) Class {
	et := strings.ToLower(errType)
	switch {
	case status == 429 || strings.Contains(et, "rate_limit") || strings.Contains(et, "ratelimit") || et == "429":
		return RateLimited
	case status == 408 || status == 504 || strings.Contains(et, "timeout") || strings.Contains(et, "deadline") || strings.Contains(et, "timed out"):
		return Timeout
	case status >= 500 || (len(et) == 3 && et[0] == '5'):
		return ServerError
	case status >= 400 || et != "" || isErr:
		return OtherError
	}
	return OK
}

// retryAfter parses a Retry-After header value: delay-seconds or an
// HTTP-date, taken relative to end (Unix ns). It returns -1 for a value
// that is neither.
func retryAfter(h string, end int64) float64 {
	h = strings.TrimSpace(h)
	if h == "" {
		return -1
	}
	if v, err := strconv.ParseFloat(h, 64); err == nil && v >= 0 && !math.IsInf(v, 0) {
		return v
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(time.Duration(t.UnixNano()-end).Seconds(), 0)
	}
	return -1
}

func str(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok {
		return v.AsString()
	}
	return ""
}

// number reads a numeric attribute given as an int, a double or a numeric
// string.
func number(m pcommon.Map, k string) (float64, bool) {
	v, ok := m.Get(k)
	if !ok {
		return 0, false
	}
	var f float64
	switch v.Type() {
	case pcommon.ValueTypeInt:
		f = float64(v.Int())
	case pcommon.ValueTypeDouble:
		f = v.Double()
	case pcommon.ValueTypeStr:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(v.Str()), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// count reads a token count: a whole number ≥ 0 below 2⁵³, else -1.
func count(m pcommon.Map, k string) int64 {
	v, ok := number(m, k)
	if !ok || v < 0 || v >= 1<<53 {
		return -1
	}
	return int64(math.Round(v))
}
