package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/budgetsim/budgetsim/model/summary"
)

// TokensTable writes, for each model API (a tool with tokens), a line
// with its tokens per call and per second, and a table of its per-minute
// limits (TokenHeader, TokenRows). It writes nothing when no tool has
// tokens.
func TokensTable(w io.Writer, tools []summary.ToolSummary) error {
	any := false
	for _, t := range tools {
		if t.Tokens == nil {
			continue
		}
		any = true
		fmt.Fprintln(w, TokenLine(t)+".")
	}
	if !any {
		return nil
	}
	if rows := TokenRows(tools); len(rows) > 0 {
		if err := Table(w, TokenHeader, rows); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	return nil
}

// TokenLine describes model API t (a tool with tokens): its tokens per
// call and per second, who enforces its limits and which is nearest its
// allowance, and the calls that waited.
func TokenLine(t summary.ToolSummary) string {
	tk := t.Tokens
	line := fmt.Sprintf("Model API %s: %s input + %s output tokens per call, %s tokens/s", t.Name, Number(tk.InputPerCall), Number(tk.OutputPerCall), Number(tk.TokensPerSecond))
	if tk.Binding != "" {
		line += fmt.Sprintf("; limits enforced by the %s, %s nearest its allowance", tk.Enforce, tk.Binding)
	}
	if tk.Profile != "" {
		line += fmt.Sprintf("; admission by the %s profile", tk.Profile)
	}
	if tk.Waits > 0 {
		line += fmt.Sprintf("; %d calls waited %s in all", tk.Waits, Seconds(tk.WaitSeconds))
	}
	if tk.CacheReadTokens+tk.CacheWriteTokens > 0 {
		line += fmt.Sprintf("; prompt cache: %s of input tokens read, %s written, %s of calls read some",
			Percent(tk.CacheReadShare), Percent(float64(tk.CacheWriteTokens)/float64(max(tk.InputTokens, 1))), Percent(tk.CacheHitRatio))
	}
	if tk.Spilled > 0 {
		line += fmt.Sprintf("; %d calls spilled over to pay-as-you-go", tk.Spilled)
	}
	return line
}

// TokenHeader is the header of TokenRows.
var TokenHeader = []string{"model API", "limit per minute", "used per s", "allowance per s", "use", "calls blocked", "calls/s it admits"}

// TokenRows has a row per per-minute limit of each model API in tools:
// what the limit counted per second against its allowance, the calls it
// made wait or turned away, and the calls per second it admits at the
// measured tokens per call; the binding limit is marked.
func TokenRows(tools []summary.ToolSummary) [][]string {
	var rows [][]string
	for _, t := range tools {
		tk := t.Tokens
		if tk == nil {
			continue
		}
		for _, l := range tk.Limits {
			name := t.Name
			if l.Limit == tk.Binding {
				name += " ← binds"
			}
			rows = append(rows, []string{name, fmt.Sprintf("%s %d", l.Limit, l.PerMinute), Number(l.UsedPerSecond), Number(l.LimitPerSecond),
				Percent(l.Utilisation), Number(float64(l.Blocked)), Number(l.CallCap)})
		}
	}
	return rows
}

// ToolCapacity is a tool's size as configured: its concurrency ("8", or
// "unlimited"), its rate limit ("6/s") and a model API's per-minute token
// and request limits ("tpm 120000"), so that a tool limited only by
// tokens never reads "unlimited".
func ToolCapacity(t summary.ToolSummary) string {
	capacity := "unlimited"
	if t.Concurrency > 0 {
		capacity = Number(float64(t.Concurrency))
	}
	if t.RateLimit > 0 {
		capacity += fmt.Sprintf(", %s/s", Number(t.RateLimit))
	}
	return tokenCapacity(capacity, t)
}

// tokenCapacity is a model API's size cell: its per-minute limits in place
// of "unlimited", or after its concurrency.
func tokenCapacity(capacity string, t summary.ToolSummary) string {
	if t.Tokens == nil || len(t.Tokens.Limits) == 0 {
		return capacity
	}
	var parts []string
	for _, l := range t.Tokens.Limits {
		parts = append(parts, fmt.Sprintf("%s %d", l.Limit, l.PerMinute))
	}
	if t.Concurrency == 0 {
		return strings.Join(parts, ", ")
	}
	return capacity + ", " + strings.Join(parts, ", ")
}
