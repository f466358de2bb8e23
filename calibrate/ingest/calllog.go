package ingest

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// callLine is one line of the JSON-lines call log (docs/calibration.md).
type callLine struct {
	Run          json.RawMessage `json:"run"`
	Tool         string          `json:"tool"`
	Op           string          `json:"op"`
	Start        json.RawMessage `json:"start"`
	End          json.RawMessage `json:"end"`
	Status       json.RawMessage `json:"status"`
	ErrorType    string          `json:"error_type"`
	RetryAfter   *float64        `json:"retry_after_s"`
	InputTokens  *float64        `json:"input_tokens"`
	OutputTokens *float64        `json:"output_tokens"`
	CachedTokens *float64        `json:"cached_tokens"`
	TTFT         *float64        `json:"ttft_s"`
}

// decodeCall decodes one call-log line.
func decodeCall(text []byte, line int, fn func(*Span) error) error {
	var c callLine
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return lineErrf("not a call-log line (a JSON object with run, tool, start, end, …; see docs/calibration.md): %v", err)
	}
	if dec.More() {
		return lineErrf("more than one JSON value on the line")
	}
	s := Span{Line: line, RetryAfter: -1, InputTokens: -1, OutputTokens: -1, CachedTokens: -1, TTFT: -1, Resend: -1}
	run, err := runID(c.Run)
	if err != nil {
		return err
	}
	s.Run = run
	if c.Tool == "" {
		return lineErrf("tool: missing or empty")
	}
	s.Tool, s.Name = c.Tool, c.Tool
	s.Op = OpTool
	if c.Op != "" {
		if s.Op = opOf(c.Op); s.Op == OpOther {
			return lineErrf("op: must be chat or execute_tool, got %q", c.Op)
		}
	}
	if s.Start, err = instant(c.Start, "start"); err != nil {
		return err
	}
	if s.End, err = instant(c.End, "end"); err != nil {
		return err
	}
	if s.End < s.Start {
		return lineErrf("end is before start")
	}
	status, isErr, err := statusOf(c.Status)
	if err != nil {
		return err
	}
	if status >= 100 && status < 600 {
		s.HTTPStatus = status
	}
	s.Class = classify(s.HTTPStatus, c.ErrorType, isErr)
	if c.RetryAfter != nil {
		if *c.RetryAfter < 0 || math.IsInf(*c.RetryAfter, 0) {
			return lineErrf("retry_after_s: must be ≥ 0, got %v", *c.RetryAfter)
		}
		s.RetryAfter = *c.RetryAfter
	}
	if c.TTFT != nil {
		if *c.TTFT < 0 {
			return lineErrf("ttft_s: must be ≥ 0, got %v", *c.TTFT)
		}
		s.TTFT = *c.TTFT
	}
	for _, t := range []struct {
		name string
		v    *float64
		dst  *int64
	}{{"input_tokens", c.InputTokens, &s.InputTokens}, {"output_tokens", c.OutputTokens, &s.OutputTokens}, {"cached_tokens", c.CachedTokens, &s.CachedTokens}} {
		if t.v == nil {
			continue
		}
		if *t.v < 0 || *t.v >= 1<<53 || *t.v != math.Trunc(*t.v) {
			return lineErrf("%s: must be a whole number ≥ 0, got %v", t.name, *t.v)
		}
		*t.dst = int64(*t.v)
	}
	return fn(&s)
}

// runID reads the run: a string or a number.
func runID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", lineErrf("run: missing")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return "", lineErrf("run: empty")
		}
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", lineErrf("run: must be a string or a number, got %s", raw)
}

// instant reads an RFC 3339 timestamp or a number of Unix seconds as Unix
// nanoseconds.
func instant(raw json.RawMessage, key string) (int64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, lineErrf("%s: missing", key)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0, lineErrf("%s: %q is not an RFC 3339 timestamp", key, s)
		}
		return t.UnixNano(), nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, lineErrf("%s: must be an RFC 3339 timestamp or Unix seconds, got %s", key, raw)
	}
	// Split at the decimal point so that nanoseconds stay exact.
	txt := n.String()
	if strings.ContainsAny(txt, "eE-") {
		f, err := n.Float64()
		if err != nil || f < 0 || f > 9e9 {
			return 0, lineErrf("%s: %s is not Unix seconds", key, txt)
		}
		return int64(math.Round(f * 1e9)), nil
	}
	whole, frac, _ := strings.Cut(txt, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec > 9e9 {
		return 0, lineErrf("%s: %s is not Unix seconds", key, txt)
	}
	frac = (frac + "000000000")[:9]
	ns, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, lineErrf("%s: %s is not Unix seconds", key, txt)
	}
	return sec*1e9 + ns, nil
}

// statusOf reads status: an HTTP status code, or "ok" / "error".
func statusOf(raw json.RawMessage) (int, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch strings.ToLower(s) {
		case "ok", "":
			return 0, false, nil
		case "error":
			return 0, true, nil
		}
		if n, err := strconv.Atoi(s); err == nil && n >= 100 && n < 600 {
			return n, false, nil
		}
		return 0, false, lineErrf("status: must be an HTTP status code, ok or error, got %q", s)
	}
	var n float64
	if json.Unmarshal(raw, &n) != nil || n < 100 || n >= 600 || n != math.Trunc(n) {
		return 0, false, lineErrf("status: must be an HTTP status code, ok or error, got %s", raw)
	}
	return int(n), false, nil
}
