package charts

import (
	"fmt"
	"slices"
	"time"

	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/render"
)

// Window is a span of simulated time [From, To) that the time-series
// charts (runs in the system, attempt rates, tool utilisation, circuit
// breakers, adaptive limits) are drawn over, instead of the whole run.
type Window struct {
	From, To time.Duration
}

// String returns the window as a chart's name suffix reads it: "29m00s-32m00s".
func (w Window) String() string {
	return render.Seconds(w.From.Seconds()) + "-" + render.Seconds(w.To.Seconds())
}

// OutageWindows returns one window around each distinct outage in os
// (the same start and end in several variants or tools is one): from a
// minute (or the outage's length, if longer) before it starts to two
// minutes (or four times its length) after it ends, where the retries it
// causes and the recovery show.
func OutageWindows(os []Outage) []Window {
	var ws []Window
	for _, o := range os {
		d := o.End - o.Start
		w := Window{From: max(0, o.Start-max(d, time.Minute)), To: o.End + max(4*d, 2*time.Minute)}
		if !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	return ws
}

// WindowBuilds returns the builds of the directory's time-series charts
// drawn over w alone: their samples outside w dropped (but the runs in
// the system's, a running count), so that the rate lines' bins are chosen
// for the window's span (a 3-minute window of a
// 1.28 s series keeps bins of a few seconds, where the whole run's chart
// merges them into bins of 15 s or more). Each chart's name takes the
// suffix ("attempt_rate" + suffix) and its title says the window. It
// returns nothing when the directory has no time series.
func (d *Dir) WindowBuilds(w Window, suffix string) []Build {
	wd := *d
	wd.Series = nil
	for _, s := range d.Series {
		c := Series{Variant: s.Variant}
		for _, b := range s.Bins {
			if b.Start >= w.From && b.Start < w.To {
				c.Bins = append(c.Bins, b)
			}
		}
		wd.Series = append(wd.Series, c)
	}
	wd.Tools = inWindow(d.Tools, w, func(s ToolSample) time.Duration { return s.Start })
	wd.Breakers = inWindow(d.Breakers, w, func(s BreakerSample) time.Duration { return s.Start })
	wd.Limits = inWindow(d.Limits, w, func(s LimitSample) time.Duration { return s.Start })
	wd.has = map[*outputs.File]bool{}
	for _, f := range []*outputs.File{outputs.SeriesCSV, outputs.ToolsCSV, outputs.BreakersCSV, outputs.LimitsCSV} {
		wd.has[f] = d.has[f]
	}
	series, tools, limits := wd.seriesBuilds()
	if len(series) == 2 {
		// Runs in the system cumulate arrivals less endings from the
		// first bin (without an in_system column): drawn from the whole
		// series, with the window as its axis, its level stays true.
		whole, _, _ := d.seriesBuilds()
		series[0] = whole[0]
	}
	var bs []Build
	for _, b := range slices.Concat(series, tools, limits) {
		build := b.Build
		b.Build = func() (*Chart, error) {
			ch, err := build()
			if err == nil {
				// The window is the axis, whatever the shading (a warm-up
				// from 0) or the samples' bins reach.
				ch.Plot.X.Min, ch.Plot.X.Max = w.From.Seconds(), w.To.Seconds()
				ch.Name += suffix
				ch.Title += fmt.Sprintf(" · %s to %s", render.Seconds(w.From.Seconds()), render.Seconds(w.To.Seconds()))
			}
			return ch, err
		}
		bs = append(bs, b)
	}
	return wd.withNote(bs)
}

// inWindow returns the samples whose start falls in w.
func inWindow[T any](xs []T, w Window, start func(T) time.Duration) []T {
	var out []T
	for _, x := range xs {
		if s := start(x); s >= w.From && s < w.To {
			out = append(out, x)
		}
	}
	return out
}
