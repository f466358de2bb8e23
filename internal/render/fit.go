package render

import (
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/tw"
)

// tablePart is one table as printed: a header, rows and each column's
// alignment; lined separates the rows by rules (some cells take several
// lines, and a rule says which lines are one row).
type tablePart struct {
	header []string
	rows   [][]string
	align  []tw.Align
	lined  bool
}

// minTextWidth is the narrowest a column of prose is wrapped to before a
// table is split instead: narrower, a sentence takes more lines than it
// is worth.
const minTextWidth = 24

// fitTable lays a table out to fit width columns, trying in turn:
//
//  1. the table as it is;
//  2. a table of few rows transposed (its columns become rows), when
//     that needs no cell wrapped;
//  3. headers on two or more lines (the widest first, only as many as
//     needed);
//  4. cells of several words wrapped, down to minTextWidth, in the
//     columns where that adds the fewest lines;
//  5. the columns split over several tables, each repeating the columns
//     that name a row (the leading text columns: a variant, a model and its
//     figure).
//
// A part that still does not fit (a single word wider than the width) is
// left as wide as it is.
func fitTable(header []string, rows [][]string, align []tw.Align, width int) []tablePart {
	t := tablePart{header: header, rows: rows, align: align}
	if t.minWidth(wrapNone) <= width {
		return []tablePart{t}
	}
	if len(rows) <= 5 && len(rows)+1 < len(header) {
		// Transposed only if no cell has to be wrapped: a wrapped figure
		// in a column of figures reads worse than a split table.
		if p, ok := t.transpose().fit(width, wrapHeaders); ok {
			return []tablePart{p}
		}
	}
	if p, ok := t.fit(width, wrapProse); ok {
		return []tablePart{p}
	}
	return t.split(width)
}

// wrapping is how far fit may go to fit a table.
type wrapping int

const (
	wrapNone    wrapping = iota // nothing wrapped
	wrapHeaders                 // headers only
	wrapProse                   // and cells of several words, to minTextWidth
	wrapAll                     // and those cells down to their longest word
)

// fit wraps headers, then cells, as far as wrap allows, to fit width;
// it reports whether the table fits.
func (t tablePart) fit(width int, wrap wrapping) (tablePart, bool) {
	n := len(t.header)
	content, head, headMin, textMin := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	prose := make([]bool, n)
	for i, h := range t.header {
		head[i], headMin[i] = cellWidth(h), longestWord(h, true)
		for _, r := range t.rows {
			if i < len(r) {
				content[i] = max(content[i], cellWidth(r[i]))
				textMin[i] = max(textMin[i], longestWord(r[i], false))
				prose[i] = prose[i] || strings.Contains(r[i], " ")
			}
		}
	}
	ws := make([]int, n)
	for i := range ws {
		ws[i] = max(content[i], head[i])
	}
	if tableWidth(ws) <= width {
		return t, true
	}
	// Headers first: the ones that save the most.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	saving := func(i int) int { return head[i] - max(content[i], headMin[i]) }
	slices.SortStableFunc(order, func(a, b int) int { return saving(b) - saving(a) })
	for _, i := range order {
		if tableWidth(ws) <= width || saving(i) <= 0 {
			break
		}
		ws[i] = max(content[i], headMin[i])
	}
	// Then prose: a column at a time from the column where it costs the
	// fewest extra lines (a long cell in a row that other cells already
	// make tall costs none), the widest first among equals.
	heights := func() int {
		h := 0
		for _, r := range t.rows {
			rh := 1
			for i := range n {
				if prose[i] {
					rh = max(rh, strings.Count(wrapCell(cell(r, i), ws[i], false), "\n")+1)
				}
			}
			h += rh
		}
		return h
	}
	for wrap >= wrapProse && tableWidth(ws) > width {
		best, bestCost := -1, 0
		for i := range ws {
			floor := max(textMin[i], headMin[i])
			if wrap < wrapAll {
				floor = max(floor, minTextWidth)
			}
			if !prose[i] || ws[i] <= floor {
				continue
			}
			ws[i]--
			cost := heights()
			ws[i]++
			if best < 0 || cost < bestCost || cost == bestCost && ws[i] > ws[best] {
				best, bestCost = i, cost
			}
		}
		if best < 0 {
			break
		}
		ws[best]--
	}
	out := tablePart{header: make([]string, n), rows: make([][]string, len(t.rows)), align: t.align}
	for i, h := range t.header {
		out.header[i] = wrapCell(h, ws[i], true)
	}
	for j, r := range t.rows {
		out.rows[j] = make([]string, n)
		for i := range n {
			if i < len(r) {
				out.rows[j][i] = wrapCell(r[i], ws[i], false)
				out.lined = out.lined || strings.Contains(out.rows[j][i], "\n") && !strings.Contains(r[i], "\n")
			}
		}
	}
	return out, tableWidth(ws) <= width
}

// transpose returns the table with rows and columns swapped: the first
// header cell heads the column of the other header cells, and each row
// becomes a column headed by its first cell.
func (t tablePart) transpose() tablePart {
	n := len(t.header)
	out := tablePart{header: []string{t.header[0]}, align: make([]tw.Align, len(t.rows)+1)}
	for _, r := range t.rows {
		out.header = append(out.header, cell(r, 0))
	}
	for i := 1; i < n; i++ {
		row := []string{t.header[i]}
		for _, r := range t.rows {
			row = append(row, cell(r, i))
		}
		out.rows = append(out.rows, row)
	}
	// Each column is a row of the table, mixing figures of every kind:
	// the names left, the values right, as in a column of figures.
	out.align[0] = tw.AlignLeft
	for i := 1; i < len(out.align); i++ {
		out.align[i] = tw.AlignRight
	}
	return out
}

// split spreads the columns over tables that fit width, each repeating
// the key columns that name a row.
func (t tablePart) split(width int) []tablePart {
	n := len(t.header)
	key := 1
	for key < min(2, n-1) && t.align[key] == tw.AlignLeft {
		key++
	}
	keyCols := make([]int, key)
	for i := range keyCols {
		keyCols[i] = i
	}
	// A key that takes more than 60% of the width leaves too little.
	if key > 1 && t.sub(keyCols).minWidth(wrapProse) > width*3/5 {
		key, keyCols = 1, keyCols[:1]
	}
	// As few tables as fit, then as even as that many allows: the
	// narrowest capacity that needs no more tables.
	groups := func(capacity int) [][]int {
		var gs [][]int
		group := slices.Clone(keyCols)
		for i := key; i < n; i++ {
			try := append(slices.Clone(group), i)
			if len(group) > key && t.sub(try).minWidth(wrapProse) > capacity {
				gs = append(gs, group)
				try = append(slices.Clone(keyCols), i)
			}
			group = try
		}
		return append(gs, group)
	}
	best := groups(width)
	for c := width - 1; c > 0; c-- {
		gs := groups(c)
		if len(gs) > len(best) {
			break
		}
		best = gs
	}
	parts := make([]tablePart, len(best))
	for i, g := range best {
		parts[i], _ = t.sub(g).fit(width, wrapAll)
	}
	return parts
}

// sub returns the table of the columns cols.
func (t tablePart) sub(cols []int) tablePart {
	out := tablePart{rows: make([][]string, len(t.rows))}
	for _, c := range cols {
		out.header = append(out.header, t.header[c])
		out.align = append(out.align, t.align[c])
	}
	for j, r := range t.rows {
		for _, c := range cols {
			out.rows[j] = append(out.rows[j], cell(r, c))
		}
	}
	return out
}

// minWidth is the table's width with its headers and cells wrapped as
// far as wrap allows (wrapNone: its natural width); a split places
// columns by their width with headers and prose wrapped.
func (t tablePart) minWidth(wrap wrapping) int {
	ws := make([]int, len(t.header))
	for i, h := range t.header {
		ws[i] = cellWidth(h)
		if wrap >= wrapHeaders {
			ws[i] = longestWord(h, true)
		}
		for _, r := range t.rows {
			c := cell(r, i)
			if wrap >= wrapProse && strings.Contains(c, " ") {
				ws[i] = max(ws[i], min(cellWidth(c), max(minTextWidth, longestWord(c, false))))
			} else {
				ws[i] = max(ws[i], cellWidth(c))
			}
		}
	}
	return tableWidth(ws)
}

func cell(r []string, i int) string {
	if i < len(r) {
		return r[i]
	}
	return ""
}

// tableWidth is the width of an ASCII table whose columns' contents are
// ws wide: a border, and a space either side, around each column.
func tableWidth(ws []int) int {
	w := 1
	for _, x := range ws {
		w += x + 3
	}
	return w
}

// cellWidth is the display width of the widest line of s.
func cellWidth(s string) int {
	w := 0
	for l := range strings.SplitSeq(s, "\n") {
		w = max(w, twwidth.Width(l))
	}
	return w
}

// piece is a piece of text a line may break before; glued pieces
// follow the previous one without a space.
type piece struct {
	text  string
	glued bool
}

// pieces splits s into the pieces a line may break between: at spaces,
// and in a header also after a dot or slash followed by a letter
// ("tools.model.|concurrency", "attempts/|run").
func pieces(s string, header bool) []piece {
	var out []piece
	for _, word := range strings.Fields(s) {
		start := 0
		if header {
			for i := 0; i+1 < len(word); i++ {
				if (word[i] == '.' || word[i] == '/') && i > start+2 && len(word)-i > 3 && isLetter(word[i+1]) && isLetter(word[i+2]) {
					out = append(out, piece{word[start : i+1], start > 0})
					start = i + 1
				}
			}
		}
		out = append(out, piece{word[start:], start > 0})
	}
	return out
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// longestWord is the width of the widest piece of s that cannot be broken.
func longestWord(s string, header bool) int {
	w := 0
	for _, p := range pieces(s, header) {
		w = max(w, twwidth.Width(p.text))
	}
	return w
}

// wrapCell fills the lines of s into lines at most width wide, breaking
// between pieces; s is returned as it is when it fits.
func wrapCell(s string, width int, header bool) string {
	if cellWidth(s) <= width {
		return s
	}
	var lines []string
	for l := range strings.SplitSeq(s, "\n") {
		cur := ""
		for _, p := range pieces(l, header) {
			sep := " "
			if cur == "" || p.glued {
				sep = ""
			}
			if cur != "" && twwidth.Width(cur+sep+p.text) > width {
				lines = append(lines, cur)
				cur, sep = "", ""
			}
			cur += sep + p.text
		}
		lines = append(lines, cur)
	}
	return strings.Join(lines, "\n")
}
