package scenarios

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
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
	set   int // 1 + the index of Set among the --set flags; 0 if unknown
}

// Error formats as "file:line: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case strings.HasPrefix(e.Set, unsetPrefix):
		fmt.Fprintf(&b, "--unset %s: ", printable(strings.TrimPrefix(e.Set, unsetPrefix)))
	case e.Set != "":
		fmt.Fprintf(&b, "--set %s: ", printable(e.Set))
	case e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", printable(e.File), e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", printable(e.File))
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// printable is s, or s quoted with its control characters escaped when it
// has any: a file name or a --set flag is printed in the error as given.
func printable(s string) string {
	if _, bad := ControlChar(s, true); bad {
		return strconv.Quote(s)
	}
	return s
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

// MaxErrors is how many of a scenario's errors the loader keeps: those
// found first, in line order; the rest are counted in a last error saying
// how many more there were.
const MaxErrors = 100

// moreErrors stands for each error found beyond MaxErrors.
var moreErrors = &Error{}

// sorted orders es by line, file errors before --set errors (in the
// flags' order), and drops
// exact repeats (the same mistake reached twice through an alias or a
// merge). Errors beyond MaxErrors (moreErrors) become one last error
// that counts them.
func (es Errors) sorted() Errors {
	more, file := 0, ""
	kept := es[:0]
	for _, e := range es {
		if e == moreErrors {
			more++
			continue
		}
		file = e.File
		kept = append(kept, e)
	}
	es = kept
	sort.SliceStable(es, func(i, j int) bool {
		if (es[i].Set == "") != (es[j].Set == "") {
			return es[i].Set == ""
		}
		if es[i].set != es[j].set {
			return es[i].set < es[j].set
		}
		return es[i].Line < es[j].Line
	})
	out := es[:0]
	seen := map[Error]bool{}
	for _, e := range es {
		if !seen[*e] {
			seen[*e] = true
			out = append(out, e)
		}
	}
	if more > 0 {
		out = append(out, &Error{File: file, Msg: fmt.Sprintf("and %d more errors, not listed (the first %d found are above)", more, MaxErrors)})
	}
	return out
}

// suggest returns " (did you mean "x"?)" when Suggest finds a candidate
// close to got, and "" otherwise.
func suggest(got string, candidates []string) string {
	if best := Suggest(got, candidates); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// Suggest returns the candidate within a small edit distance of got (2
// edits, 1 for words of up to 3 letters, and fewer edits than got has
// letters), the closest first in candidates' order, or "" when none is that
// close. The command lines use it for misspelt commands and flags.
func Suggest(got string, candidates []string) string {
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
	// A suggestion must keep part of what was typed: "x" is not a typo
	// of "a".
	if bestD <= limit && bestD < len(got) {
		return best
	}
	return ""
}

// editDistance is the optimal-string-alignment distance between a and b:
// the Levenshtein distance, with the transposition of two adjacent letters
// ("tmp" for "tpm") counting as one edit, the commonest typing slip.
func editDistance(a, b string) int {
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}

// yamlParserProblems are the messages of go-yaml's parser (parserc.go), as
// opposed to its scanner (scannerc.go). The two number lines differently:
// a scanner error's "line N" is 1-based, a parser error's is 0-based (go-yaml
// issue #205), and either omits the line when the 0-based line is 0.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %YAML directive",
	"found duplicate %TAG directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlUnlocated are go-yaml messages that never carry a line, so their
// missing line does not mean line 1.
var yamlUnlocated = []string{
	"unknown anchor",
	"anchor '",
	"document contains excessive aliasing",
	"attempted to go past the end of stream",
	"cannot decode node",
}

// emptyScenario is the message for a file without a scenario in it.
const emptyScenario = "empty scenario: it needs at least name, arrivals, workers, steps and tools"

// yamlSyntaxError turns an error of the YAML decoder into an Error at
// file:line, with the 1-based line of the problem: it undoes go-yaml's
// 0-based numbering of parser errors, puts a message without a line on line
// 1 (go-yaml leaves the line out when it is the first), and finds the line
// of an alias whose anchor is unknown in src. An empty input (io.EOF: no
// document, only comments or nothing) is reported as an empty scenario.
func yamlSyntaxError(file string, src []byte, err error) *Error {
	if errors.Is(err, io.EOF) {
		return &Error{File: file, Msg: emptyScenario}
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{File: file}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		num, text, ok := strings.Cut(rest, ": ")
		if n, err := strconv.Atoi(num); ok && err == nil && n > 0 {
			e.Line, msg = n, text
			if slices.Contains(yamlParserProblems, msg) {
				e.Line++
			}
			if strings.HasPrefix(msg, "found a tab character") {
				// go-yaml names the line of the token before the tab,
				// which a blank or comment line can separate from it.
				e.Line = tabLine(src, e.Line)
			}
		}
	} else if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok {
		name = strings.TrimSuffix(name, "' referenced")
		e.Line = aliasLine(src, name)
	} else if !hasAnyPrefix(msg, yamlUnlocated) {
		e.Line = 1
	}
	e.Msg = "invalid YAML: " + msg
	return e
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// tabLine returns the 1-based line, from line on, whose indentation holds
// the first tab in src; line itself when there is none.
func tabLine(src []byte, line int) int {
	for i, l := range strings.Split(string(src), "\n") {
		if i+1 < line {
			continue
		}
		if indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]; strings.Contains(indent, "\t") {
			return i + 1
		}
	}
	return line
}

// aliasLine returns the 1-based line of the first "*name" in src that is a
// whole alias (not followed by more name characters), or 0.
func aliasLine(src []byte, name string) int {
	for i, line := range strings.Split(string(src), "\n") {
		for rest := line; ; {
			j := strings.Index(rest, "*"+name)
			if j < 0 {
				break
			}
			rest = rest[j+1+len(name):]
			if rest == "" || strings.ContainsRune(" \t\r,]}#", rune(rest[0])) {
				return i + 1
			}
		}
	}
	return 0
}
