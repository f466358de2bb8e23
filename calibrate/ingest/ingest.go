// Package ingest reads production traces of an agent's calls, one call at a
// time, in bounded memory: OTLP JSON as the OpenTelemetry Collector's file
// exporter writes it (one ExportTraceServiceRequest per line, decoded by the
// collector's own pdata library), or a JSON-lines call log (one call per
// line, documented in docs/calibration.md).
//
// Each span or log line becomes a [Span]: the run it belongs to (the trace
// id, or the log's run id), what it is (a model call, a tool call, an agent
// invocation) and what the GenAI semantic conventions say about it: the
// model, the tool, tokens, the error class, the HTTP status and the
// Retry-After. Attributes that are missing stay at their "absent" values
// (-1, or ""); nothing is guessed.
//
// A file is read line by line with a limit on a line's length
// ([Options.MaxLineBytes]); a malformed line is an error naming the file and
// line ("trace.jsonl:7: ..."), and no input makes the reader panic.
package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Op is what a span does, from gen_ai.operation.name.
type Op int

// The operations calibrate tells apart.
const (
	// OpOther is any other span (an HTTP client span, a database call
	// without GenAI attributes, an internal step).
	OpOther Op = iota
	// OpChat is a model call: gen_ai.operation.name chat,
	// text_completion, generate_content or embeddings.
	OpChat
	// OpTool is a tool call: gen_ai.operation.name execute_tool.
	OpTool
	// OpAgent is an agent invocation: gen_ai.operation.name invoke_agent
	// (or create_agent): the root of a run.
	OpAgent
)

// String returns the operation's name as in gen_ai.operation.name.
func (o Op) String() string {
	switch o {
	case OpChat:
		return "chat"
	case OpTool:
		return "execute_tool"
	case OpAgent:
		return "invoke_agent"
	}
	return "other"
}

// Class is a call's outcome class.
type Class int

// The outcome classes of a call.
const (
	// OK: the call succeeded.
	OK Class = iota
	// RateLimited: HTTP 429, or an error.type naming a rate limit.
	RateLimited
	// ServerError: HTTP 5xx other than 504.
	ServerError
	// Timeout: error.type naming a timeout or a deadline, or HTTP 408/504.
	Timeout
	// OtherError: any other error (span status Error, error.type set, or
	// an HTTP status ≥ 400).
	OtherError
	// NumClasses is the number of classes.
	NumClasses
)

var classNames = [...]string{"ok", "429", "5xx", "timeout", "other"}

// String returns "ok", "429", "5xx", "timeout" or "other".
func (c Class) String() string {
	if c >= 0 && c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Span is one call (or agent invocation) of a trace.
type Span struct {
	// Run identifies the run: the trace id in hex, or the call log's run.
	Run string
	// ID and Parent are the span's and its parent's ids in hex; "" when
	// absent (a root span, or a call log).
	ID, Parent string
	// Name is the span's name (the call log's tool).
	Name string
	// Op is what the span does.
	Op Op
	// Tool is what the call called: gen_ai.tool.name for a tool call,
	// gen_ai.request.model (else gen_ai.response.model) for a model call,
	// the span's name when those are absent. "" for an agent invocation.
	Tool string
	// Start and End are Unix nanoseconds.
	Start, End int64
	// Class is the outcome class; HTTPStatus the HTTP status, 0 if absent.
	Class      Class
	HTTPStatus int
	// RetryAfter is the Retry-After the server sent, in seconds, or -1.
	RetryAfter float64
	// Tokens: gen_ai.usage.input_tokens, output_tokens and the cached
	// input tokens; -1 when absent.
	InputTokens, OutputTokens, CachedTokens int64
	// TTFT is the time to first token in seconds, or -1.
	TTFT float64
	// Resend is http.request.resend_count: the attempts of the same
	// request before this one (0: a first attempt), or -1 when absent.
	Resend int
	// Line is the 1-based line of the file the span came from.
	Line int
}

// Duration returns End − Start in seconds (never negative).
func (s *Span) Duration() float64 { return float64(max(s.End-s.Start, 0)) / 1e9 }

// Options limit what a reader accepts.
type Options struct {
	// MaxLineBytes is the longest line accepted; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// DefaultMaxLineBytes is the default line limit: 64 MiB, well above the
// collector's default batch of 8192 spans.
const DefaultMaxLineBytes = 64 << 20

// Error is a problem with one line of an input file.
type Error struct {
	File string
	Line int // 1-based; 0 for the file as a whole
	Msg  string
}

// Error returns "file:line: msg", or "file: msg" for the whole file.
func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Format is the layout of an input file.
type Format int

// The formats calibrate reads.
const (
	// FormatOTLP is OTLP JSON, one ExportTraceServiceRequest per line.
	FormatOTLP Format = iota + 1
	// FormatCallLog is the JSON-lines call log.
	FormatCallLog
)

// ReadFile reads the file at path, detecting its format from its first
// non-blank line (an object with "resourceSpans" is OTLP), and calls fn
// for each span in file order. It stops at fn's first error and returns it.
func ReadFile(path string, opt Options, fn func(*Span) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Read(f, path, opt, fn)
}

// Read is ReadFile on a stream; name labels errors.
func Read(r io.Reader, name string, opt Options, fn func(*Span) error) error {
	limit := opt.MaxLineBytes
	if limit <= 0 {
		limit = DefaultMaxLineBytes
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		format Format
		line   int
		buf    []byte
		otlp   otlpDecoder
	)
	for {
		var err error
		buf, err = readLine(br, buf[:0], limit)
		if len(buf) > 0 || err != io.EOF {
			line++
		}
		if errors.Is(err, errLong) {
			return &Error{name, line, fmt.Sprintf("line longer than %d bytes (the limit; raise it with --max-line)", limit)}
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: %w", name, err)
		}
		text := bytes.TrimSpace(buf)
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff"))
		}
		if len(text) > 0 {
			if format == 0 {
				format = FormatCallLog
				if bytes.Contains(text, []byte(`"resourceSpans"`)) || bytes.Contains(text, []byte(`"resource_spans"`)) {
					format = FormatOTLP
				}
			}
			var perr error
			if format == FormatOTLP {
				perr = otlp.decode(text, line, fn)
			} else {
				perr = decodeCall(text, line, fn)
			}
			if perr != nil {
				var le *lineError
				if errors.As(perr, &le) {
					return &Error{name, line, le.msg}
				}
				return perr
			}
		}
		if err == io.EOF {
			break
		}
	}
	if format == 0 {
		return &Error{File: name, Msg: "no spans: the file is empty"}
	}
	return nil
}

// lineError is a decoder's complaint about the current line.
type lineError struct{ msg string }

func (e *lineError) Error() string { return e.msg }

func lineErrf(format string, args ...any) error {
	return &lineError{fmt.Sprintf(format, args...)}
}

var errLong = errors.New("line too long")

// readLine appends the next line (without its newline) to buf. It returns
// errLong, after skipping the rest of the line, when the line exceeds limit.
func readLine(r *bufio.Reader, buf []byte, limit int) ([]byte, error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > limit+1 {
			return buf, errLong
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(buf, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, err
		}
	}
}
