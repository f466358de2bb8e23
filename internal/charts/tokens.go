package charts

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HasTokenLimits reports whether a summary has a model API with
// per-minute limits (tools[].tokens.limits in summary.json).
func HasTokenLimits(sums []Summary) bool {
	for _, s := range sums {
		for _, t := range s.Tools {
			if t.Tokens != nil && len(t.Tokens.Limits) > 0 {
				return true
			}
		}
	}
	return false
}

// TokenChart draws each model API's per-minute limits as horizontal bars,
// one per variant, tool and limit (top to bottom in that order): the
// requests or tokens per second each counted, as a share of its allowance
// per second, against a line at 100 %. Each bar ends with its rate per
// second over the allowance, and the limit nearest its allowance (the
// binding one) is marked. It returns ErrNoData when no summary has a
// model API with limits.
func TokenChart(sums []Summary) (*Chart, error) {
	type bar struct {
		label, text string
		use         float64
		binds       bool
	}
	var bars []bar
	var labels []string
	for _, s := range sums {
		labels = append(labels, s.Label)
	}
	short, key := shortLabels(labels)
	short, keyNote := keyLongLabels(short)
	for i, s := range sums {
		for _, t := range s.Tools {
			if t.Tokens == nil {
				continue
			}
			for _, l := range t.Tokens.Limits {
				label := t.Name + " " + l.Limit
				if len(sums) > 1 {
					label = short[i] + " · " + label
				}
				bars = append(bars, bar{label: label, use: l.Utilisation, binds: l.Limit == t.Tokens.Binding,
					text: fmt.Sprintf("%s of %s/s", trimNumber(l.UsedPerSecond), trimNumber(l.LimitPerSecond))})
			}
		}
	}
	if len(bars) == 0 {
		return nil, fmt.Errorf("tokens: %w: no model API with per-minute limits", ErrNoData)
	}
	ch := &Chart{Name: "tokens", Title: "Model API limits: what each counted per second, as a share of its allowance"}
	if key != "" {
		ch.Title += ", by " + key
	}
	n := len(bars)
	ch.Height = vg.Length(max(2.8, min(11, 2.2+0.4*float64(n)))) * vg.Inch
	p := newPlot("use of the limit (requests or tokens per second ÷ the limit per second)", "")
	ch.Plot = p
	y := func(i int) float64 { return float64(n - 1 - i) }
	items := &spans{minWidth: 1}
	var texts notes
	sty := textStyle(9, color.Black)
	sty.YAlign = draw.YCenter
	top := 1.0
	for i, b := range bars {
		fill := seriesColor(2)
		if b.binds {
			fill = seriesColor(1)
		}
		items.items = append(items.items, span{X0: 0, X1: b.use, Y: y(i), H: 0.6, Fill: fill})
		txt := b.text
		if b.binds {
			txt += " · binds"
		}
		texts = append(texts, note{X: b.use, Y: y(i), Text: txt, Style: sty, Offset: vg.Point{X: 4}})
		top = max(top, b.use)
	}
	limit := &spans{items: []span{{X0: 1, X1: 1, Y: float64(n-1) / 2, H: float64(n) + 0.2, Line: color.Black, Dashed: true}}}
	p.Add(items, limit, texts)
	ch.addLegend("the binding limit (nearest its allowance)", swatch{fill: seriesColor(1)})
	ch.addLegend("another limit", swatch{fill: seriesColor(2)})
	p.X.Tick.Marker = percentTicks{}
	p.X.Min, p.X.Max = 0, top*1.5
	ticks := make(plot.ConstantTicks, n)
	for i, b := range bars {
		ticks[i] = plot.Tick{Value: y(i), Label: b.label}
	}
	p.Y.Tick.Marker = ticks
	p.Y.Tick.Length = 0
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	ch.Notes = append(ch.Notes, "Each per-minute limit is a bucket refilled at limit/60 per second; rpm counts calls, tpm input plus output tokens, itpm and otpm one side. Tokens are those settled: a call's actual usage, or its reservation when it timed out. The dashed line is the allowance; the long-run calls per second a limit admits is its allowance over the tokens per call.")
	if keyNote != "" {
		ch.Notes = append(ch.Notes, keyNote)
	}
	return ch, nil
}
