package render

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// DefaultWidth is the width a command's output fits when it goes to a
// pipe or a file rather than a terminal: what a code review, an e-mail or
// a design document shows without scrolling.
const DefaultWidth = 100

// Out is a command's standard output with a layout: the width its lines
// fit, whether its tables are written as Markdown, and whether it may use
// colour. Table reads the layout of the *Out it writes to. Text written
// through an Out with a width is wrapped at spaces to fit it (a continued
// line is indented under the first); with Markdown, each line of text
// becomes a paragraph of its own and tables are set apart by blank lines.
//
// A new Out passes text through unchanged until SetFormat chooses a
// layout; Flush writes a last line that has no newline.
type Out struct {
	w        io.Writer
	avail    int // the width available: the terminal's, or DefaultWidth
	width    int // the width lines fit; 0: no limit
	markdown bool
	colour   bool
	active   bool   // SetFormat chose a layout that rewrites lines
	line     []byte // the unfinished line
	prev     lineKind
}

// lineKind is what the last line written through a Markdown Out was.
type lineKind int

const (
	lineNone lineKind = iota
	lineBlank
	lineText
	lineTable
)

// NewOut returns an Out writing to w, whose lines may be width columns
// wide (0: no limit) and which may use colour (a terminal that shows it).
func NewOut(w io.Writer, width int, colour bool) *Out {
	return &Out{w: w, avail: width, colour: colour}
}

// SetFormat chooses the layout of what the command writes next from its
// --format and --wide flags: "table" fits the width given to NewOut
// (wide: no limit, the tables as they are); "markdown" writes tables as
// Markdown, without colour; any other format (json, csv) passes its bytes
// through unchanged.
func (o *Out) SetFormat(format string, wide bool) {
	o.Flush()
	o.width, o.markdown, o.active = 0, false, false
	switch format {
	case "table":
		if !wide {
			o.width = o.avail
		}
		o.active = o.width > 0
	case "markdown":
		o.markdown, o.active = true, true
	}
}

// Width returns the width lines fit; 0 means no limit.
func (o *Out) Width() int { return o.width }

// Write implements io.Writer, wrapping complete lines as the layout says.
func (o *Out) Write(p []byte) (int, error) {
	if !o.active && len(o.line) == 0 {
		return o.w.Write(p)
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			o.line = append(o.line, p...)
			break
		}
		o.line = append(o.line, p[:i]...)
		p = p[i+1:]
		err := o.emit(string(o.line), true)
		o.line = o.line[:0]
		if err != nil {
			return n - len(p), err
		}
	}
	return n, nil
}

// Flush writes the unfinished last line, if any.
func (o *Out) Flush() error {
	if len(o.line) == 0 {
		return nil
	}
	err := o.emit(string(o.line), false)
	o.line = o.line[:0]
	return err
}

// emit writes one line (nl: followed by a newline) in the layout.
func (o *Out) emit(line string, nl bool) error {
	end := ""
	if nl {
		end = "\n"
	}
	switch {
	case !o.active:
		_, err := io.WriteString(o.w, line+end)
		return err
	case o.markdown:
		kind := lineText
		switch t := strings.TrimSpace(line); {
		case t == "":
			kind = lineBlank
		case strings.HasPrefix(t, "|"):
			kind = lineTable
		}
		var b strings.Builder
		// A paragraph per line of text, and a table apart from the text
		// around it: a blank line between any two lines but two of a table.
		if (kind == lineText && (o.prev == lineText || o.prev == lineTable)) || (kind == lineTable && o.prev == lineText) {
			b.WriteString("\n")
		}
		if kind == lineText {
			line = strings.TrimLeft(line, " ") // four spaces would make a code block
		}
		b.WriteString(line + end)
		o.prev = kind
		_, err := io.WriteString(o.w, b.String())
		return err
	}
	if tableLine(line) || twwidth.Width(line) <= o.width {
		_, err := io.WriteString(o.w, line+end)
		return err
	}
	_, err := io.WriteString(o.w, strings.Join(wrapLine(line, o.width), "\n")+end)
	return err
}

// tableLine reports whether line is a line of an ASCII table, which is
// never wrapped (Table fits it, or it cannot fit).
func tableLine(line string) bool {
	return strings.HasPrefix(line, "+") || strings.HasPrefix(line, "|")
}

// listMarker matches the start of an item of a list: "  1. ", "- ".
var listMarker = regexp.MustCompile(`^ *(\d+\.|-|•) `)

// wrapLine breaks a line of text at spaces into lines no wider than width
// (a word longer than that stays whole). The lines after the first are
// indented under the first's text: past a list marker ("  1. "), or by two
// spaces more than the first.
func wrapLine(line string, width int) []string {
	indent := len(line) - len(strings.TrimLeft(line, " "))
	hang := indent + 2
	if m := listMarker.FindString(line); m != "" {
		hang = utf8.RuneCountInString(m)
	}
	words := strings.Split(line[indent:], " ")
	var out []string
	cur := strings.Repeat(" ", indent)
	curW, empty := indent, true
	for _, w := range words {
		ww := twwidth.Width(w)
		if !empty && curW+1+ww > width {
			out = append(out, cur)
			cur, curW, empty = strings.Repeat(" ", hang), hang, true
		}
		if !empty {
			cur += " "
			curW++
		}
		cur += w
		curW += ww
		empty = false
	}
	return append(out, cur)
}

// layoutOf returns the layout of w: the width its lines fit (0: no
// limit), whether tables are Markdown and whether colour may be used.
func layoutOf(w io.Writer) (width int, markdown, colour bool) {
	if o, ok := w.(*Out); ok {
		return o.width, o.markdown, o.colour && !o.markdown
	}
	return 0, false, false
}
