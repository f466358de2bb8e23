package scenarios

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in a scenario, located by file, line and field path.
// Line is 0 when the problem is not tied to a line (a missing key is
// reported at its parent's line). Set is the --set override that supplied
// the value, when it came from one.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
	Set   string
}

// Error formats as "file:line: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.Set != "":
		fmt.Fprintf(&b, "--set %s: ", e.Set)
	case e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one scenario, in line order.
type Errors []*Error

// Error lists the problems, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es Errors) sorted() Errors {
	sort.SliceStable(es, func(i, j int) bool {
		if (es[i].Set == "") != (es[j].Set == "") {
			return es[i].Set == ""
		}
		return es[i].Line < es[j].Line
	})
	return es
}

// suggest returns " (did you mean "x"?)" when one of the candidates is
// within a small edit distance of got.
func suggest(got string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := editDistance(got, c); d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(got) <= 3 {
		limit = 1
	}
	if bestD <= limit {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
