package report

import (
	"bytes"
	"html/template"
	"io"
	"strings"
	"sync"
)

// WriteHTML writes the report as one self-contained HTML5 page: inline CSS,
// inline SVG, no script and no reference to anything outside the file. The
// page is rendered completely before anything is written, so an error
// writes nothing. The output is a function of the Report alone.
func (r *Report) WriteHTML(w io.Writer) error {
	var buf bytes.Buffer
	if err := page().Execute(&buf, r); err != nil {
		return err
	}
	_, err := buf.WriteTo(w)
	return err
}

// numeric reports whether a cell reads as a number, to right-align it
// (render.Table's rule, plus "≥ 1s").
func numeric(s string) bool {
	s = strings.TrimPrefix(s, "≥ ")
	if s == "" || s == "–" || s == "n/a" || s == "∞" || s == "none" {
		return true
	}
	c := s[0]
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.'
}

// page is the report's template, parsed on first use rather than at every
// start of the CLI. html/template escapes every string of
// the model; only the charts' SVG, which internal/charts writes with its
// text escaped, is inserted as is.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"svg":     func(b []byte) template.HTML { return template.HTML(b) },
		"numeric": numeric,
		"inc":     func(i int) int { return i + 1 },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="budgetsim {{.Version}}">
<title>{{.Title}}</title>
<style>
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #1a1a1a; font: 15px/1.45 "Liberation Sans", Arial, Helvetica, sans-serif; }
header, main, footer { max-width: 1320px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 20px; border-bottom: 1px solid #ddd; }
.kicker { margin: 0; color: #0072B2; font-weight: bold; letter-spacing: .04em; text-transform: uppercase; font-size: 12px; }
h1 { margin: 2px 0 4px; font-size: 28px; }
h2 { margin: 32px 0 8px; font-size: 20px; border-bottom: 2px solid #0072B2; padding-bottom: 2px; }
.note { margin: 0 0 12px; padding: 6px 10px; background: #eef5fb; border-left: 4px solid #0072B2; max-width: 80em; white-space: pre-wrap; }
p.verdict { margin: 4px 0 8px; max-width: 80em; }
.desc { margin: 0 0 12px; font-size: 16px; color: #333; max-width: 80em; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 12px; font-size: 14px; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; }
.warn-banner { margin: 0 0 12px; padding: 6px 10px; background: #fff4e0; border-left: 4px solid #E69F00; }
nav ol { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 0; padding: 0 0 12px; list-style: none; font-size: 14px; }
a { color: #0060a0; }
.tables { display: flex; flex-wrap: wrap; gap: 8px 32px; align-items: flex-start; }
.tables > div { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0 4px; font-size: 14px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: bold; padding: 0 0 4px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e4e4e4; vertical-align: top; text-align: left; }
thead th { border-bottom: 2px solid #999; background: #f4f6f8; white-space: nowrap; }
tbody th { font-weight: normal; }
td.num { text-align: right; white-space: nowrap; }
tr.hl { background: #fff4e0; }
tr.hl th { font-weight: bold; }
small { display: block; color: #666; font-size: 12px; }
ul.tnotes { margin: 2px 0 8px; padding-left: 18px; font-size: 12.5px; color: #555; max-width: 60em; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 16px 24px; }
figure { margin: 0; }
figure svg { display: block; width: 100%; height: auto; border: 1px solid #e4e4e4; }
figcaption { font-size: 13px; color: #444; margin-top: 4px; }
.skipped { padding: 24px; border: 1px dashed #bbb; color: #666; }
pre { background: #f6f8fa; border: 1px solid #e4e4e4; padding: 10px 12px; overflow-x: auto; font: 13px/1.4 "Liberation Mono", Menlo, Consolas, monospace; }
pre.code { white-space: pre-wrap; word-break: break-all; }
pre.source { white-space: pre-wrap; }
ol.notes li { margin-bottom: 4px; }
footer { margin-top: 32px; padding-top: 8px; padding-bottom: 24px; border-top: 1px solid #ddd; color: #666; font-size: 13px; }
@media print { figure, table { break-inside: avoid; } nav { display: none; } }
</style>
</head>
<body>
<header>
<p class="kicker">budgetsim report</p>
<h1>{{with .Heading}}{{.}}{{else}}{{.Scenario}}{{end}}</h1>
{{with .Note}}<p class="note">{{.}}</p>
{{end}}{{with .Description}}<p class="desc">{{.}}</p>
{{end}}<dl class="facts">
{{range .Facts}}<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{end}}</dl>
{{with .Warnings}}<p class="warn-banner">{{len .}} warning(s): see <a href="#warnings">the notes</a>.</p>
{{end}}<nav><ol>
{{range .Sections}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}<li><a href="#warnings">Warnings</a></li>
<li><a href="#scenario">Scenario</a></li>
</ol></nav>
</header>
<main>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{with .Intro}}<p>{{.}}</p>
{{end}}{{range .Paragraphs}}<p class="verdict">{{with .Lead}}<strong>{{.}}</strong> {{end}}{{.Text}}</p>
{{end}}{{with .Tables}}<div class="tables">
{{range .}}{{template "table" .}}{{end}}</div>
{{end}}{{with .Figures}}<div class="figures">
{{range .}}<figure id="fig-{{.Name}}">
{{if .SVG}}{{svg .SVG}}{{else}}<div class="skipped">{{.Title}}: not drawn: {{.Skipped}}</div>
{{end}}<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}</div>
{{end}}{{with .Code}}<p>To simulate with the recommended settings:</p>
<pre class="code"><code>{{.}}</code></pre>
{{end}}</section>
{{end}}<section id="warnings">
<h2>Warnings</h2>
{{with .Warnings}}<ol class="notes">
{{range $i, $w := .}}<li id="note-{{inc $i}}">{{$w}}</li>
{{end}}</ol>
{{else}}<p>None.</p>
{{end}}</section>
<section id="scenario">
<h2>Scenario</h2>
{{with .SourceTables}}<div class="tables">
{{range .}}{{template "table" .}}{{end}}</div>
{{end}}{{if .SourceLabel}}<p>{{.SourceLabel}}{{with .File}} Read from <code>{{.}}</code>{{with $.Overrides}} with the overrides every variant or point shares{{range .}} <code>--set {{.}}</code>{{end}}{{end}}.{{end}}</p>
{{else}}{{with .File}}<p>Read from <code>{{.}}</code>{{with $.Overrides}} with the overrides{{range .}} <code>--set {{.}}</code>{{end}} applied{{end}}{{with $.FormatVersion}} (scenario format {{.}}){{end}}{{with $.SHA256}}; as simulated, SHA-256 <code>{{.}}</code>{{else}}; each variant as simulated, with its SHA-256{{end}}:</p>
{{end}}{{end}}<pre class="source">{{.Source}}</pre>
</section>
</main>
<footer>Written by budgetsim {{.Version}}. This file is self-contained: it loads no script, style, font or image.</footer>
</body>
</html>
{{define "table"}}<div>
<table>
{{with .Caption}}<caption>{{.}}</caption>
{{end}}<thead><tr>{{range .Header}}<th scope="col">{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr{{if .Highlight}} class="hl"{{end}}>{{range $i, $c := .Cells}}{{if eq $i 0}}<th scope="row">{{$c.Text}}{{with $c.Sub}}<small>{{.}}</small>{{end}}</th>{{else}}<td{{if and (not $c.Plain) (numeric $c.Text)}} class="num"{{end}}>{{$c.Text}}{{with $c.Sub}}<small>{{.}}</small>{{end}}</td>{{end}}{{end}}</tr>
{{end}}</tbody>
</table>
{{with .Notes}}<ul class="tnotes">
{{range .}}<li>{{.}}</li>
{{end}}</ul>
{{end}}</div>
{{end}}`))
})
