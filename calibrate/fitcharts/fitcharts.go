// Package fitcharts draws the charts of a calibration's fit report (the
// files `simulate calibrate --report DIR` writes) with gonum/plot, in the
// house style of internal/charts: a QQ plot per fitted quantity, observed
// against fitted quantiles with the tail check in its notes, an agent
// loop's chance of ending at each turn against the fitted constant, and
// the runs' simulated end-to-end times against the observed ones. `plot DIR` draws
// them when DIR holds those files.
package fitcharts

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/budgetsim/budgetsim/internal/charts"

	"github.com/budgetsim/budgetsim/calibrate/reportfiles"
)

// Report is what a fit report directory holds.
type Report struct {
	dir  string
	qq   map[string]*series // by tool + quantity, in file order
	keys []string
	e2e  map[string]plotter.XYs
	tail map[string]string // tool/quantity → the tail check in words
	// turns: the loop's observed chance of ending at each turn (with its
	// interval), the fitted constant and its interval, the χ² p-value.
	turns                      plotter.XYs
	turnsLo, turnsHi           []float64
	turnRule                   string
	fitP, fitLo, fitHi, pValue float64
}

type series struct {
	tool, quantity, family string
	pts                    plotter.XYs // x fitted, y observed
}

// Read reads dir's qq.csv, e2e.csv and fit.json; it returns nil and no
// error when dir holds none of them.
func Read(dir string) (*Report, error) {
	r := &Report{dir: dir, qq: map[string]*series{}, e2e: map[string]plotter.XYs{}, tail: map[string]string{}}
	found := false
	if err := readCSV(reportfiles.QQ.Path(dir), reportfiles.QQ.Columns, func(rec []string, num func(int) (float64, error)) error {
		obs, err := num(4)
		if err != nil {
			return err
		}
		fit, err := num(5)
		if err != nil {
			return err
		}
		k := rec[0] + "/" + rec[1]
		s := r.qq[k]
		if s == nil {
			s = &series{tool: rec[0], quantity: rec[1], family: rec[2]}
			r.qq[k] = s
			r.keys = append(r.keys, k)
		}
		s.pts = append(s.pts, plotter.XY{X: fit, Y: obs})
		found = true
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readCSV(reportfiles.E2E.Path(dir), reportfiles.E2E.Columns, func(rec []string, num func(int) (float64, error)) error {
		p, err := num(1)
		if err != nil {
			return err
		}
		s, err := num(2)
		if err != nil {
			return err
		}
		r.e2e[rec[0]] = append(r.e2e[rec[0]], plotter.XY{X: s, Y: p})
		found = true
		return nil
	}); err != nil {
		return nil, err
	}
	r.pValue = math.NaN()
	if err := readCSV(reportfiles.Turns.Path(dir), reportfiles.Turns.Columns, func(rec []string, num func(int) (float64, error)) error {
		var v [10]float64
		for i := 1; i <= 9; i++ {
			x, err := num(i)
			if err != nil {
				return err
			}
			v[i] = x
		}
		r.turnRule = rec[0]
		r.turns = append(r.turns, plotter.XY{X: v[1], Y: v[4]})
		r.turnsLo, r.turnsHi = append(r.turnsLo, v[5]), append(r.turnsHi, v[6])
		r.fitP, r.fitLo, r.fitHi = v[7], v[8], v[9]
		if p, err := strconv.ParseFloat(rec[10], 64); err == nil {
			r.pValue = p
		}
		found = true
		return nil
	}); err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(reportfiles.Fit.Path(dir)); err == nil {
		var doc struct {
			Tools []struct {
				Name  string `json:"name"`
				Dists []struct {
					Quantity    string  `json:"quantity"`
					TailP       float64 `json:"tail_p"`
					TailObs     float64 `json:"tail_observed"`
					TailLower   float64 `json:"tail_lower"`
					TailFitted  float64 `json:"tail_fitted"`
					TailHeavier bool    `json:"tail_heavier"`
				} `json:"distributions"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", reportfiles.Fit.Path(dir), err)
		}
		for _, t := range doc.Tools {
			for _, d := range t.Dists {
				if d.TailP == 0 {
					continue
				}
				verdict := "within sampling error"
				if d.TailHeavier {
					verdict = "HEAVIER than the fit: the scenario uses the empirical distribution"
				}
				r.tail[t.Name+"/"+d.Quantity] = fmt.Sprintf("Tail check at p%g: observed %.4gs (97.5%% lower bound %.4gs), fitted %.4gs: %s.", 100*d.TailP, d.TailObs, d.TailLower, d.TailFitted, verdict)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if !found {
		return nil, nil
	}
	return r, nil
}

// readCSV reads a CSV file with the given header, calling fn per record;
// an absent file is no error.
func readCSV(path string, header []string, fn func(rec []string, num func(int) (float64, error)) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	cr := csv.NewReader(io.LimitReader(f, charts.MaxInputSize))
	cr.FieldsPerRecord = len(header)
	line := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		line++
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if line == 1 {
			for i, h := range header {
				if rec[i] != h {
					return fmt.Errorf("%s:1: column %d is %q, want %q", path, i+1, rec[i], h)
				}
			}
			continue
		}
		num := func(i int) (float64, error) {
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%s:%d: column %s: %q is not a number", path, line, header[i], rec[i])
			}
			return v, nil
		}
		if err := fn(rec, num); err != nil {
			return err
		}
	}
}

// Builds returns the charts the report supports: one QQ plot per fitted
// quantity, then the run-time comparison.
func (r *Report) Builds() []charts.Build {
	if r == nil {
		return nil
	}
	var bs []charts.Build
	for _, k := range r.keys {
		s := r.qq[k]
		bs = append(bs, charts.Build{From: reportfiles.QQ.Path(r.dir), Build: func() (*charts.Chart, error) { return r.qqChart(s) }})
	}
	if len(r.turns) > 0 {
		bs = append(bs, charts.Build{From: reportfiles.Turns.Path(r.dir), Build: r.turnsChart})
	}
	if len(r.e2e) > 0 {
		bs = append(bs, charts.Build{From: reportfiles.E2E.Path(r.dir), Build: r.e2eChart})
	}
	return bs
}

// turnsChart draws the loop's chance of ending at each turn, observed
// with its interval, against the fitted constant chance: a geometric
// number of turns is a flat line.
func (r *Report) turnsChart() (*charts.Chart, error) {
	p := plot.New()
	p.X.Label.Text = "turn"
	what := map[string]string{"answer": "the model answers", "stop": "the loop stops"}[r.turnRule]
	if what == "" {
		what = "the loop ends"
	}
	p.Y.Label.Text = "chance that " + what
	sc, err := plotter.NewScatter(r.turns)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: blue, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	lo, hi := r.turns[0].X, r.turns[len(r.turns)-1].X
	fitted, err := plotter.NewLine(plotter.XYs{{X: lo, Y: r.fitP}, {X: hi, Y: r.fitP}})
	if err != nil {
		return nil, err
	}
	fitted.LineStyle = draw.LineStyle{Color: orange, Width: vg.Points(1.5)}
	for _, y := range []float64{r.fitLo, r.fitHi} {
		band, err := plotter.NewLine(plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}})
		if err != nil {
			return nil, err
		}
		band.LineStyle = draw.LineStyle{Color: orange, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
		p.Add(band)
	}
	p.Add(fitted, sc)
	for i, pt := range r.turns {
		l, err := plotter.NewLine(plotter.XYs{{X: pt.X, Y: r.turnsLo[i]}, {X: pt.X, Y: r.turnsHi[i]}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: blue, Width: vg.Points(1)}
		p.Add(l)
	}
	verdict := "too few turns to test that it is the same at every turn"
	if !math.IsNaN(r.pValue) {
		verdict = fmt.Sprintf("χ² test that it is the same at every turn: p %.2g", r.pValue)
		if r.pValue < 0.01 {
			verdict += ": rejected, so the scenario draws the turns from their observed distribution"
		}
	}
	return &charts.Chart{
		Name:  "loop_turns",
		Title: "Agent loop: the chance that " + what + " at each turn",
		Plot:  p,
		Legend: []charts.LegendEntry{
			{Label: "observed, with its 95% interval", Thumbs: []plot.Thumbnailer{sc}},
			{Label: "fitted constant chance (geometric turns), 95% interval dashed", Thumbs: []plot.Thumbnailer{fitted}},
		},
		Notes: []string{"Turns at risk include those of runs that failed, up to where they failed. A flat cloud around the line: a constant chance, geometric turns; a trend: the turns follow another law.", verdict},
	}, nil
}

var (
	blue   = color.RGBA{0x00, 0x72, 0xB2, 0xFF}
	orange = color.RGBA{0xD5, 0x5E, 0x00, 0xFF}
	grey   = color.RGBA{0x80, 0x80, 0x80, 0xFF}
)

func (r *Report) qqChart(s *series) (*charts.Chart, error) {
	if len(s.pts) == 0 {
		return nil, charts.ErrNoData
	}
	p := plot.New()
	p.X.Label.Text = "fitted " + s.family + " quantile (s)"
	p.Y.Label.Text = "observed quantile (s)"
	sc, err := plotter.NewScatter(s.pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: blue, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
	hi := 0.0
	for _, pt := range s.pts {
		hi = max(hi, pt.X, pt.Y)
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.LineStyle = draw.LineStyle{Color: grey, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	p.Add(diag, sc)
	ch := &charts.Chart{
		Name:  "qq_" + safe(s.tool) + "_" + s.quantity,
		Title: fmt.Sprintf("%s %s: observed vs fitted %s quantiles", s.tool, s.quantity, s.family),
		Plot:  p,
		Legend: []charts.LegendEntry{
			{Label: "quantiles, p = (i − ½)/n", Thumbs: []plot.Thumbnailer{sc}},
			{Label: "observed = fitted", Thumbs: []plot.Thumbnailer{diag}},
		},
		Notes: []string{"Points above the line: the data is slower than the fit there; a bend at the right end is a tail the family does not have."},
	}
	if t := r.tail[s.tool+"/"+s.quantity]; t != "" {
		ch.Notes = append(ch.Notes, t)
	}
	return ch, nil
}

func (r *Report) e2eChart() (*charts.Chart, error) {
	p := plot.New()
	p.X.Label.Text = "run time (s)"
	p.Y.Label.Text = "share of runs completed within"
	ch := &charts.Chart{Name: "calibration_run_time", Title: "Run time: the trace vs the calibrated scenario under the trace's arrivals", Plot: p}
	for i, name := range []string{"observed", "simulated"} {
		pts := r.e2e[name]
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.LineStyle = draw.LineStyle{Color: []color.Color{blue, orange}[i], Width: vg.Points(1.5)}
		if i == 1 {
			l.LineStyle.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		ch.Legend = append(ch.Legend, charts.LegendEntry{Label: name, Thumbs: []plot.Thumbnailer{l}})
	}
	if len(ch.Legend) == 0 {
		return nil, charts.ErrNoData
	}
	ch.Notes = []string{"Simulated: replication 0 of the calibration replay. The gap between the curves is the calibration error of the run time; see calibration.csv for every quantity with its interval."}
	return ch, nil
}

func safe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}
