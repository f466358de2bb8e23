package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxRateBins is the most bins a rate line keeps: finer series are merged
// k bins at a time, so that a 4096-bin series reads as a curve, not as
// noise (a 1050-pixel-wide PNG cannot show more anyway).
const maxRateBins = 300

// maxFlowBins is maxRateBins for the arrivals-and-completions fallback of
// InSystemChart, whose two noisy lines overlap: coarser bins read better.
const maxFlowBins = 120

// activeFrom returns the index of the first bin with any activity: bins
// before it are the warm-up, whose runs the series does not count.
func activeFrom(bins []Bin) int {
	for i, b := range bins {
		if b.Arrivals > 0 || b.Attempts > 0 || b.Completed > 0 || b.Ended > 0 || b.InSystem > 0 {
			return i
		}
	}
	return len(bins)
}

// commonStart returns the earliest active bin start over the series, so
// that variants share one time axis.
func commonStart(series []Series) (time.Duration, bool) {
	start, ok := time.Duration(0), false
	for _, s := range series {
		if i := activeFrom(s.Bins); i < len(s.Bins) {
			if !ok || s.Bins[i].Start < start {
				start = s.Bins[i].Start
			}
			ok = true
		}
	}
	return start, ok
}

// sameArrivalCounts reports whether every series counts the same arrivals
// in the same intervals, compared on the coarsest bin width (a series that
// ran longer has coarser bins: model/system.Series doubles its width
// instead of growing past 4096 bins).
func sameArrivalCounts(series []Series) bool {
	var w time.Duration
	for _, s := range series {
		for _, b := range s.Bins {
			w = max(w, b.Width)
		}
	}
	if w == 0 {
		return false
	}
	counts := func(s Series) map[time.Duration]int64 {
		m := map[time.Duration]int64{}
		for _, b := range s.Bins {
			if b.Arrivals > 0 {
				m[b.Start/w] += b.Arrivals
			}
		}
		return m
	}
	first := counts(series[0])
	for _, s := range series[1:] {
		c := counts(s)
		if len(c) != len(first) {
			return false
		}
		for k, n := range c {
			if first[k] != n {
				return false
			}
		}
	}
	return true
}

// clipPeaks sets the y axis maximum of a rate chart. When the highest
// rate (a batch arriving at once, the first retry wave, common to every
// variant) is more than five times the 90th percentile of the non-zero
// rates, the axis stops at 2.5 × that percentile so the rest stays
// readable, and the returned footnote names the clipped peak; otherwise
// the axis ends 5 % above the maximum and the footnote is "".
func clipPeaks(p *plot.Plot, vals []float64, peakAt float64, peakLabel string) string {
	var pos []float64
	top := 0.0
	for _, v := range vals {
		if v > 0 {
			pos = append(pos, v)
		}
		top = max(top, v)
	}
	if len(pos) == 0 {
		p.Y.Max = 1
		return ""
	}
	slices.Sort(pos)
	p90 := pos[max(0, int(math.Ceil(0.9*float64(len(pos))))-1)]
	if top > 5*p90 && len(pos) >= 10 {
		p.Y.Max = 2.5 * p90
		return fmt.Sprintf("Off scale: rates above %s/s are clipped (peak %s/s, %s at %s); the axis ends at 2.5 × the 90th percentile of the non-zero rates.", trimNumber(p.Y.Max), trimNumber(top), peakLabel, FormatSeconds(peakAt))
	}
	p.Y.Max = top * 1.05
	return ""
}

// commonWidth returns the bin width every rate line of a chart uses, so
// that rates are comparable across variants (a finer bin shows higher
// peaks): the coarsest native width times the smallest k that leaves at
// most maxBins bins over the longest series.
func commonWidth(series []Series, from time.Duration, maxBins int) time.Duration {
	var w0, end time.Duration
	for _, s := range series {
		for _, b := range s.Bins {
			w0 = max(w0, b.Width)
			end = max(end, b.Start+b.Width)
		}
	}
	span := end - from
	k := max(1, (span+w0*time.Duration(maxBins)-1)/(w0*time.Duration(maxBins)))
	return k * w0
}

// rates sums get over buckets [from + j·w, from + (j+1)·w) (a bin goes to
// the bucket its start falls in) and returns each bucket's start, end and
// count per second; the last bucket ends where the series does.
func rates(bins []Bin, from, w time.Duration, get func(Bin) int64) (starts, ends, perSec []float64) {
	var counts []int64
	var end time.Duration
	for _, b := range bins {
		if b.Start < from {
			continue
		}
		j := int((b.Start - from) / w)
		for len(counts) <= j {
			counts = append(counts, 0)
		}
		counts[j] += get(b)
		end = max(end, b.Start+b.Width)
	}
	for j, n := range counts {
		s := from + time.Duration(j)*w
		e := min(s+w, end)
		starts = append(starts, s.Seconds())
		ends = append(ends, e.Seconds())
		perSec = append(perSec, float64(n)/(e-s).Seconds())
	}
	return starts, ends, perSec
}

// stepXY returns the points of a step line holding vals[i] over
// [starts[i], ends[i]).
func stepXY(starts, ends, vals []float64) (xs, ys []float64) {
	for i := range starts {
		xs, ys = append(xs, starts[i]), append(ys, vals[i])
	}
	if n := len(starts); n > 0 {
		xs, ys = append(xs, ends[n-1]), append(ys, vals[n-1])
	}
	return xs, ys
}

func timeAxis(p *plot.Plot, from, to float64) {
	p.X.Tick.Marker = linearSecondsTicks{}
	p.X.Min, p.X.Max = from, to
	p.Y.Tick.Marker = numberTicks{}
	p.Y.Min = 0
}

// otherEndings reports whether some measured runs ended without
// completing (rejected, expired, refused, deadline exceeded, failed):
// then the series' completions do not count every run that left.
func otherEndings(s *Summary) bool {
	r := s.Runs
	return r.Rejected+r.Expired+r.Refused+r.DeadlineExceeded+r.Failed > 0
}

// InSystemChart draws the number of runs in the system over virtual time,
// one line per variant, with Little's-law level λW (arrival rate × mean
// time in system, from the matching summary) as a dashed reference line:
// the two agree on average when the system is stable.
//
// The level comes from the best column series.csv has:
//   - in_system (time-average over each bin), drawn as is;
//   - else ended (runs that ended in the bin, any outcome): cumulative
//     arrivals − cumulative ended at each bin's end, exact for measured
//     runs;
//   - else completed: cumulative arrivals − completions. That is exact
//     only when every measured run that left completed; when a summary is
//     given and shows runs that ended otherwise (rejected, expired,
//     refused, deadline exceeded, failed), the level would drift upward
//     for ever, so the chart shows arrivals and completions per second
//     instead (titled so), with each variant's mean throughput as a
//     dashed line, λ in the legend and λW in a footnote. Without a
//     summary the derivation is drawn with a footnote saying it is an
//     approximation.
//
// Bins before the first measured arrival (the warm-up) are left out; runs
// still in the system from the warm-up are not counted. sums may be nil
// (no reference lines); it is matched to the series by label, else by
// position (compare.json and series.csv list variants in one order).
func InSystemChart(series []Series, sums []Summary) (*Chart, error) {
	from, ok := commonStart(series)
	if !ok {
		return nil, fmt.Errorf("series: %w: every bin is empty", ErrNoData)
	}
	labels := make([]string, len(series))
	for i, s := range series {
		labels[i] = s.Variant
	}
	short, key := shortLabels(labels)
	match := matchSummaries(labels, sums)

	mode := "in_system"
	for _, s := range series {
		switch {
		case s.HasInSystem():
		case s.HasEnded():
			if mode == "in_system" {
				mode = "ended"
			}
		default:
			if sum := match[s.Variant]; sum != nil && otherEndings(sum) {
				mode = "rates"
			} else if mode != "rates" {
				mode = "completed"
			}
		}
	}
	if mode == "rates" {
		return flowChart(series, short, key, match, from)
	}

	ch := &Chart{Name: "in_system", Title: "Runs in the system"}
	if key != "" {
		ch.Title += " by " + key
	}
	p := newPlot("simulated time", "runs in the system")
	ch.Plot = p
	to := from.Seconds()
	withRef := false
	for i, s := range series {
		xs, ys := inSystemLevel(s, from, mode == "in_system")
		if len(xs) == 0 {
			continue
		}
		to = max(to, xs[len(xs)-1])
		sty := seriesLine(i)
		sty.Width = vg.Points(1.2)
		step := plotter.NoStep
		if mode == "in_system" {
			step = plotter.PostStep
		}
		p.Add(xyLine(xs, ys, sty, step))
		label := short[i]
		if sum := match[s.Variant]; sum != nil && sum.Little.LambdaW > 0 {
			ref := referenceLine(seriesColor(i))
			p.Add(refLine{At: sum.Little.LambdaW, Style: ref})
			if len(series) == 1 {
				ch.addLegend(label, lineThumb(sty))
				label = fmt.Sprintf("λW = %s (Little's law)", trimNumber(sum.Little.LambdaW))
				sty = ref
			} else {
				label += fmt.Sprintf(" (λW = %s)", trimNumber(sum.Little.LambdaW))
				withRef = true
			}
		}
		ch.addLegend(label, lineThumb(sty))
	}
	if withRef {
		ch.addLegend("λW, Little's law (dashed, in the variant's colour)", lineThumb(referenceLine(noteGrey)))
	}
	timeAxis(p, from.Seconds(), to)
	switch mode {
	case "in_system":
		ch.Notes = append(ch.Notes, "In system: time-average over each bin of series.csv (replication 0).")
	case "ended":
		ch.Notes = append(ch.Notes, "In system: measured arrivals − runs ended (any outcome), cumulated over the bins of series.csv (replication 0).")
	case "completed":
		n := "In system: measured arrivals − completions, cumulated over the bins of series.csv (replication 0)"
		if len(match) < len(series) {
			n += "; an approximation: with no summary to check, runs that ended without completing would be counted as still in the system."
		} else {
			n += "; exact at each bin's end here, since the summary shows that every measured run that ended completed."
		}
		ch.Notes = append(ch.Notes, n)
	}
	if len(sums) > 0 {
		ch.Notes = append(ch.Notes, "λW: arrival rate × mean time in system over all replications (summary).")
	}
	if mode != "in_system" {
		ch.Notes = append(ch.Notes, "Bins before the first measured arrival (the warm-up) are left out; runs left over from the warm-up are not counted.")
	}
	return ch, nil
}

// inSystemLevel returns the points of a series' in-system line from
// from on: the in_system column as a step line when measured is true,
// else the level cumulative arrivals − cumulative departures (the ended
// column if present, else completed) at each bin's end, starting from 0.
func inSystemLevel(s Series, from time.Duration, measured bool) (xs, ys []float64) {
	if measured {
		var starts, ends, vals []float64
		for _, b := range s.Bins {
			if b.Start >= from {
				starts = append(starts, b.Start.Seconds())
				ends = append(ends, (b.Start + b.Width).Seconds())
				vals = append(vals, b.InSystem)
			}
		}
		return stepXY(starts, ends, vals)
	}
	xs, ys = []float64{from.Seconds()}, []float64{0}
	var level int64
	for _, b := range s.Bins {
		if b.Start < from {
			continue
		}
		left := b.Completed
		if s.HasEnded() {
			left = b.Ended
		}
		level += b.Arrivals - left
		xs, ys = append(xs, (b.Start+b.Width).Seconds()), append(ys, float64(level))
	}
	return xs, ys
}

// flowChart is InSystemChart's fallback: arrivals and completions per
// second, with the summary's λ and throughput as reference lines.
func flowChart(series []Series, short []string, key string, match map[string]*Summary, from time.Duration) (*Chart, error) {
	ch := &Chart{Name: "in_system", Title: "Arrivals and completions per second"}
	if key != "" {
		ch.Title += " by " + key
	}
	p := newPlot("simulated time", "runs per second")
	ch.Plot = p
	to := from.Seconds()
	width := commonWidth(series, from, maxFlowBins)
	shared := len(series) == 1 || sameArrivalCounts(series)
	var lw []string
	withRef := false
	for i, s := range series {
		st, en, arr := rates(s.Bins, from, width, func(b Bin) int64 { return b.Arrivals })
		_, _, done := rates(s.Bins, from, width, func(b Bin) int64 { return b.Completed })
		if len(st) == 0 {
			continue
		}
		to = max(to, en[len(en)-1])
		prefix := ""
		if len(series) > 1 {
			prefix = short[i] + ": "
		}
		if !shared || i == 0 {
			aSty := draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}
			label := "arrivals/s"
			if !shared {
				aSty.Color = lighten(seriesColor(i), 0.45)
				label = prefix + label
			} else if len(series) > 1 {
				label += " (all variants)"
			}
			xs, ys := stepXY(st, en, arr)
			p.Add(xyLine(xs, ys, aSty, plotter.PostStep))
			ch.addLegend(label, lineThumb(aSty))
		}
		cSty := seriesLine(i)
		cSty.Width = vg.Points(1.2)
		xs, ys := stepXY(st, en, done)
		p.Add(xyLine(xs, ys, cSty, plotter.PostStep))
		label := prefix + "completions/s"
		if sum := match[s.Variant]; sum != nil {
			l := sum.Little
			p.Add(refLine{At: l.Throughput, Style: referenceLine(seriesColor(i))})
			label += fmt.Sprintf(" (mean %s/s of λ = %s/s)", trimNumber(l.Throughput), trimNumber(l.ArrivalRate))
			lw = append(lw, prefix+trimNumber(l.LambdaW))
			withRef = true
		}
		ch.addLegend(label, lineThumb(cSty))
	}
	if withRef {
		ch.addLegend("mean throughput (dashed, in the variant's colour)", lineThumb(referenceLine(noteGrey)))
	}
	timeAxis(p, from.Seconds(), to)
	ch.Notes = append(ch.Notes,
		"series.csv has no in_system or ended column and some runs ended without completing, so the number in the system cannot be derived from it; this shows the flow instead.",
		fmt.Sprintf("Rates per %s bin (replication 0); means over all replications (summary).", FormatSeconds(width.Seconds())))
	if len(lw) > 0 {
		ch.Notes = append(ch.Notes, "Little's law level λW (runs in the system on average): "+joinComma(lw)+".")
	}
	return ch, nil
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// AttemptRateChart draws the attempts dialed per second over virtual
// time, one line per variant: the retry-storm picture (synchronised
// retries show as spikes that repeat at the backoff period). The arrival
// rate is drawn as a grey dashed line when every variant has the same
// arrivals (common random numbers), else per variant in a lighter
// colour, so the retry amplification is the gap between the lines. Every
// line uses one bin width (the coarsest in the file, times the smallest
// factor that leaves at most 300 bins over the longest series), since a
// finer bin shows higher peaks; the footnote gives it. When one burst
// (typically a batch arriving at once) dwarfs everything else, the y axis
// is clipped and a footnote names the peak (see clipPeaks). Warm-up bins
// (before the first measured activity) are left out.
func AttemptRateChart(series []Series) (*Chart, error) {
	from, ok := commonStart(series)
	if !ok {
		return nil, fmt.Errorf("series: %w: every bin is empty", ErrNoData)
	}
	labels := make([]string, len(series))
	for i, s := range series {
		labels[i] = s.Variant
	}
	short, key := shortLabels(labels)
	ch := &Chart{Name: "attempt_rate", Title: "Attempts dialed per second"}
	if key != "" {
		ch.Title += " by " + key
	}
	p := newPlot("simulated time", "per second")
	ch.Plot = p

	sameArrivals := len(series) > 1 && sameArrivalCounts(series)
	to := from.Seconds()
	width := commonWidth(series, from, maxRateBins)
	var all []float64
	peak, peakAt, peakLabel := -1.0, 0.0, ""
	track := func(st, r []float64, label string) {
		all = append(all, r...)
		for j, v := range r {
			if v > peak {
				peak, peakAt, peakLabel = v, st[j], label
			}
		}
	}
	arrivals := func(s Series, sty draw.LineStyle, label string) {
		st, en, r := rates(s.Bins, from, width, func(b Bin) int64 { return b.Arrivals })
		track(st, r, label)
		xs, ys := stepXY(st, en, r)
		if len(xs) > 0 {
			p.Add(xyLine(xs, ys, sty, plotter.PostStep))
			ch.addLegend(label, lineThumb(sty))
		}
	}
	if sameArrivals || len(series) == 1 {
		sty := draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}
		label := "arrivals/s"
		if sameArrivals {
			label += " (all variants)"
		}
		arrivals(series[0], sty, label)
	}
	for i, s := range series {
		st, en, r := rates(s.Bins, from, width, func(b Bin) int64 { return b.Attempts })
		if len(st) == 0 {
			continue
		}
		to = max(to, en[len(en)-1])
		track(st, r, short[i]+" attempts")
		sty := seriesLine(i)
		sty.Width = vg.Points(1.2)
		xs, ys := stepXY(st, en, r)
		p.Add(xyLine(xs, ys, sty, plotter.PostStep))
		ch.addLegend(short[i]+": attempts/s", lineThumb(sty))
		if !sameArrivals && len(series) > 1 {
			arrivals(s, draw.LineStyle{Color: lighten(seriesColor(i), 0.5), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}, short[i]+": arrivals/s")
		}
	}
	if len(series) == 1 {
		ch.Legend[len(ch.Legend)-1].Label = "attempts/s"
	}
	timeAxis(p, from.Seconds(), to)
	ch.Notes = append(ch.Notes, fmt.Sprintf("Counts per %s bin of series.csv (replication 0), divided by the bin width.", FormatSeconds(width.Seconds())))
	if n := clipPeaks(p, all, peakAt, peakLabel); n != "" {
		ch.Notes = append(ch.Notes, n)
	}
	return ch, nil
}
