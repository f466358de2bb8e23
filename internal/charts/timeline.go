package charts

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// outcomeColor is the colour of an attempt bar by outcome: green for ok,
// warm colours for the failures that retries answer, grey for a local
// refusal (nothing was dialed).
func outcomeColor(o string) color.Color {
	switch o {
	case "ok":
		return color.RGBA{0x00, 0x9E, 0x73, 0xFF}
	case "timeout":
		return color.RGBA{0xD5, 0x5E, 0x00, 0xFF}
	case "transient":
		return color.RGBA{0xE6, 0x9F, 0x00, 0xFF}
	case "rate_limited":
		return color.RGBA{0xCC, 0x79, 0xA7, 0xFF}
	case "permanent":
		return color.RGBA{0x33, 0x33, 0x33, 0xFF}
	case "cancelled":
		return color.Gray{Y: 0xD0}
	}
	return color.Gray{Y: 0x99} // refused, or an outcome this version does not know
}

var (
	queueColor   = color.Gray{Y: 0xB0}
	backoffColor = color.RGBA{0x56, 0xB4, 0xE9, 0xFF} // Okabe–Ito sky blue
	leaseColor   = color.Gray{Y: 0x40}
	deadlineRed  = color.RGBA{0xC0, 0x00, 0x00, 0xFF}
)

// TimelineChart draws one run's story from its trace records: time since
// arrival on x, one row for the queue wait and one per step (a step's
// attempts follow each other in time, so they share its row; the calls of
// a hedged step overlap, so each has a row of its own, "#1", "#2", …, as
// has each member of a parallel step). Each
// attempt is a bar from dial to reply or timeout, coloured by outcome,
// inside a dashed box showing the lease it was granted (min(ceiling,
// remaining − floor)); the backoff sleep chosen after it is a thin blue
// bar; the deadline is a red dashed vertical line and the run's end a
// black one. The last attempt of each step is annotated with the
// decision that followed it; a member's call cancelled when its group was
// decided is a light grey bar. Zero-length events (a 429 answered at once,
// a local refusal) are drawn 2 pt wide so they stay visible.
//
// The chart's height grows with the number of steps. Use Trace.Run to get
// a run and its attempts.
func TimelineChart(run TraceRun, attempts []TraceAttempt) (*Chart, error) {
	for _, a := range attempts {
		if a.Run != run.ID {
			return nil, fmt.Errorf("timeline: attempt of run %d given for run %d", a.Run, run.ID)
		}
	}
	t0 := run.Arrived
	sec := func(d time.Duration) float64 { return (d - t0).Seconds() }

	// Rows: the queue, then steps in order of their first attempt.
	type row struct {
		label string
		last  int // index of the step's last attempt
	}
	type rowKey struct {
		step string
		lane int
	}
	key := func(a TraceAttempt) rowKey { return rowKey{a.Step, a.Lane} }
	// A step whose calls are on more than one lane (a hedged step) numbers
	// its rows.
	lanes := map[string]map[int]bool{}
	for _, a := range attempts {
		if lanes[a.Step] == nil {
			lanes[a.Step] = map[int]bool{}
		}
		lanes[a.Step][a.Lane] = true
	}
	rows := []row{{label: "queue", last: -1}}
	rowOf := map[rowKey]int{}
	for i, a := range attempts {
		r, ok := rowOf[key(a)]
		if !ok {
			r = len(rows)
			rowOf[key(a)] = r
			label := a.Step
			if len(lanes[a.Step]) > 1 {
				label += fmt.Sprintf(" #%d", a.Lane)
			}
			if a.Tool != "" && a.Tool != a.Step {
				label += " (" + a.Tool + ")"
			}
			rows = append(rows, row{label: label})
		}
		rows[r].last = i
	}
	n := len(rows)
	y := func(r int) float64 { return float64(n - 1 - r) } // first row on top

	ch := &Chart{Name: fmt.Sprintf("timeline_run_%d", run.ID)}
	ch.Title = fmt.Sprintf("Run %d: %s after %s", run.ID, strings.ReplaceAll(run.Outcome, "_", " "), FormatSeconds(sec(run.Ended)))
	if run.Deadline >= 0 {
		ch.Title += fmt.Sprintf(" (deadline %s after arrival)", FormatSeconds(sec(run.Deadline)))
	}
	ch.Height = vg.Length(max(3.2, min(11, 1.9+0.42*float64(n)))) * vg.Inch
	p := newPlot("time since arrival", "")
	ch.Plot = p

	xmax := sec(run.Ended)
	leases := &spans{}
	bars := &spans{minWidth: vg.Points(2)}
	sleeps := &spans{}
	queue := &spans{}
	started := run.Started
	if started < 0 {
		started = run.Ended // never got a worker: queued until it ended
	}
	var labels notes
	small := textStyle(8.5, noteGrey)
	small.YAlign = draw.YCenter
	if started > t0 {
		queue.items = append(queue.items, span{X0: 0, X1: sec(started), Y: y(0), H: 0.5, Fill: queueColor})
		labels = append(labels, note{X: sec(started), Y: y(0), Text: FormatSeconds(sec(started)) + " waiting for a worker", Style: small, Offset: vg.Point{X: 4}})
	} else {
		labels = append(labels, note{X: 0, Y: y(0), Text: "no wait", Style: small, Offset: vg.Point{X: 4}})
	}
	seen := map[string]bool{}
	unlimited := false
	var outcomes []string
	firstStart := map[int]float64{}
	for i, a := range attempts {
		ri := rowOf[key(a)]
		r := y(ri)
		x0 := sec(a.Start)
		if _, ok := firstStart[ri]; !ok || a.Attempt == 1 {
			// The start of the row's latest sequence of attempts: an
			// agent loop's step begins one in every turn.
			firstStart[ri] = x0
		}
		unlimited = unlimited || a.Granted == Unlimited
		if a.Granted > 0 && a.Granted != Unlimited {
			leases.items = append(leases.items, span{X0: x0, X1: x0 + a.Granted.Seconds(), Y: r, H: 0.62, Line: leaseColor, Dashed: true})
			xmax = max(xmax, x0+a.Granted.Seconds())
		}
		end := x0 + a.Latency.Seconds()
		shown := a.Outcome
		if a.Decision == "cancelled" {
			shown = "cancelled"
		}
		bars.items = append(bars.items, span{X0: x0, X1: end, Y: r, H: 0.4, Fill: outcomeColor(shown)})
		if !seen[shown] {
			seen[shown] = true
			outcomes = append(outcomes, shown)
		}
		after := end
		if a.Backoff > 0 {
			after = end + a.Backoff.Seconds()
			sleeps.items = append(sleeps.items, span{X0: end, X1: after, Y: r, H: 0.16, Fill: backoffColor})
		}
		xmax = max(xmax, after)
		if rows[ri].last == i && a.Decision != "" {
			right := after
			if a.Granted != Unlimited {
				right = max(right, x0+a.Granted.Seconds())
			}
			labels = append(labels, note{X: right, Y: r, Text: strings.ReplaceAll(a.Decision, "_", " "), Style: small, Offset: vg.Point{X: 4},
				AltX: firstStart[ri], HasAlt: true})
		}
	}
	if run.Deadline >= 0 {
		xmax = max(xmax, sec(run.Deadline))
	}
	p.Add(queue, leases, sleeps, bars, labels)
	// The end first, so that a deadline at the same instant stays visible.
	endSty := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	p.Add(refLine{At: sec(run.Ended), Vertical: true, Style: endSty})
	if run.Deadline >= 0 {
		ref := draw.LineStyle{Color: deadlineRed, Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
		p.Add(refLine{At: sec(run.Deadline), Vertical: true, Style: ref})
		ch.addLegend("deadline", vlineThumb(ref))
	}
	ch.addLegend("run ended", vlineThumb(endSty))
	if len(queue.items) > 0 {
		ch.addLegend("queue wait", swatch{fill: queueColor})
	}
	for _, o := range outcomes {
		ch.addLegend("attempt: "+strings.ReplaceAll(o, "_", " "), swatch{fill: outcomeColor(o)})
	}
	if len(leases.items) > 0 {
		ch.addLegend("lease granted", swatch{line: leaseColor, dashed: true})
	}
	if len(sleeps.items) > 0 {
		ch.addLegend("backoff sleep", swatch{fill: backoffColor})
	}

	p.X.Tick.Marker = linearSecondsTicks{}
	p.X.Min, p.X.Max = 0, xmax*1.22 // room for the decision labels
	if !(xmax > 0) {
		p.X.Max = 1e-3
	}
	ticks := make(plot.ConstantTicks, n)
	for r, rw := range rows {
		ticks[r] = plot.Tick{Value: y(r), Label: rw.label}
	}
	p.Y.Tick.Marker = ticks
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	p.Y.Tick.Length = 0

	var notes []string
	if run.Started < 0 {
		notes = append(notes, "The run never got a worker: it waited in the queue until it ended.")
	}
	n1 := "Attempt bars run from dial to reply or timeout"
	if len(leases.items) > 0 {
		n1 += "; the dashed box is the lease, min(ceiling, remaining − floor)"
	}
	if unlimited {
		n1 += "; attempts without a box had no timeout (no deadline, no ceiling)"
	}
	notes = append(notes, n1+"; the text is the decision after the step's last attempt.")
	ch.Notes = notes
	return ch, nil
}
