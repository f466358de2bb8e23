package calibrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/budgetsim/budgetsim/calibrate/fitting"

	"github.com/budgetsim/budgetsim/calibrate/reportfiles"
)

// File is one file of a fit report.
type File struct {
	Name string
	Data []byte
}

// ReportFiles returns the fit report's data files: fit.json (every tool's
// candidates, goodness of fit and tail check, the arrivals' fit),
// qq.csv (observed against fitted quantiles, for QQ plots), turns.csv
// (an agent loop's chance of ending at each turn, observed and fitted),
// and, when cal is not nil, calibration.csv (the calibration table) and
// e2e.csv (observed and simulated run-time quantiles). cmd/plot draws
// them.
func ReportFiles(r *Result, cal *Calibration) ([]File, error) {
	type cand struct {
		Dist   string             `json:"dist"`
		Params map[string]float64 `json:"params"`
		KS     float64            `json:"ks"`
		PValue float64            `json:"p_value"`
		AIC    float64            `json:"aic"`
	}
	type dist struct {
		Quantity    string             `json:"quantity"`
		N           int64              `json:"n"`
		Used        int                `json:"fitted"`
		Family      string             `json:"family"`
		Params      map[string]float64 `json:"params"`
		Why         string             `json:"why"`
		Candidates  []cand             `json:"candidates,omitempty"`
		TailP       float64            `json:"tail_p,omitempty"`
		TailObs     float64            `json:"tail_observed,omitempty"`
		TailLower   float64            `json:"tail_lower,omitempty"`
		TailFitted  float64            `json:"tail_fitted,omitempty"`
		TailHeavier bool               `json:"tail_heavier"`
		LoadCorr    *float64           `json:"load_correlation,omitempty"`
	}
	type tool struct {
		Name   string         `json:"name"`
		Op     string         `json:"op"`
		Calls  int64          `json:"calls"`
		Errors map[string]any `json:"errors"`
		Dists  []dist         `json:"distributions"`
		Tokens map[string]any `json:"tokens,omitempty"`
	}
	mk := func(q string, d fitting.Dist) dist {
		params := map[string]float64{}
		for k, v := range d.Params {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				params[k] = v
			}
		}
		out := dist{Quantity: q, N: d.N, Used: d.Used, Family: d.Family, Params: params, Why: d.Why}
		if d.Report != nil {
			for _, c := range d.Report.Candidates {
				out.Candidates = append(out.Candidates, cand{c.Dist, c.Params, c.KS, c.PValue, c.AIC})
			}
			out.TailP, out.TailObs, out.TailLower, out.TailHeavier = d.Report.TailP, d.Report.TailEmpirical, d.Report.TailLower, d.Report.TailHeavier
			out.TailFitted = d.Report.Best.Quantile(d.Report.TailP)
		}
		if !math.IsNaN(d.LoadCorr.Value) {
			v := d.LoadCorr.Value
			out.LoadCorr = &v
		}
		return out
	}
	var tools []tool
	var qq bytes.Buffer
	qq.WriteString(reportfiles.QQ.Header())
	addQQ := func(name, q string, d fitting.Dist) {
		if d.Report == nil || len(d.Sorted) == 0 {
			return
		}
		best := d.Report.Best
		n := len(d.Sorted)
		step := max(n/200, 1)
		for i := 0; i < n; i += step {
			p := (float64(i) + 0.5) / float64(n)
			fmt.Fprintf(&qq, "%s,%s,%s,%s,%s,%s\n", csvField(name), q, best.Dist, num(p), num(d.Sorted[i]), num(best.Quantile(p)))
		}
	}
	for i := range r.Tools {
		t := &r.Tools[i]
		errs := map[string]any{}
		for c, rate := range t.Errors {
			errs[fmt.Sprint(classNames[c])] = map[string]any{"k": rate.K, "n": rate.N, "p": rate.P, "lo": rate.CI.Lo, "hi": rate.CI.Hi}
		}
		tt := tool{Name: t.Name, Op: t.Op.String(), Calls: t.Calls, Errors: errs}
		tt.Dists = append(tt.Dists, mk("latency", t.Latency))
		addQQ(t.Name, "latency", t.Latency)
		if t.UseTTFT {
			tt.Dists = append(tt.Dists, mk("ttft", t.TTFT), mk("per_output_token", t.PerToken))
			addQQ(t.Name, "ttft", t.TTFT)
		}
		if t.RetryAfter.N > 0 {
			tt.Dists = append(tt.Dists, mk("retry_after", t.RetryAfter))
		}
		if t.Tokens() {
			tt.Tokens = map[string]any{}
			for k, m := range map[string]fitting.Moments{"input": t.Input, "output": t.Output, "cached": t.Cached} {
				tt.Tokens[k] = map[string]any{"n": m.N, "mean": m.Mean.Value, "cv": m.CV.Value, "family": m.Family, "params": clean(m.Params)}
			}
		}
		tools = append(tools, tt)
	}
	a := r.Arrivals
	doc := map[string]any{
		"runs":          len(r.Obs.Runs),
		"spans":         r.Obs.Spans,
		"trace_quality": map[string]any{"partial_runs": r.Obs.Partial, "skewed_calls": r.Obs.Skewed, "clamped_calls": r.Obs.Clamped, "ignored_spans": r.Obs.Ignored, "missing_attributes": r.Obs.Missing},
		"arrivals": map[string]any{"process": a.Process, "why": a.Why, "rate": a.Rate.Value, "rate_lo": a.Rate.CI.Lo, "rate_hi": a.Rate.CI.Hi,
			"cv": a.CV.Value, "cv_lo": a.CV.CI.Lo, "cv_hi": a.CV.CI.Hi, "dispersion": a.Dispersion, "dispersion_p": a.DispersionP, "interarrival": mk("interarrival", a.Gaps)},
		"run_time": mk("run_time", r.E2E),
		"tools":    tools,
	}
	if a.HasMMPP {
		m := a.MMPP
		est := func(e fitting.Estimate) map[string]any {
			return map[string]any{"value": e.Value, "lo": e.CI.Lo, "hi": e.CI.Hi}
		}
		doc["arrivals"].(map[string]any)["mmpp"] = map[string]any{"chosen": a.Process == "mmpp", "why": a.MMPPWhy, "gaps": m.N,
			"rates": []any{est(m.Rates[0]), est(m.Rates[1])}, "sojourns_s": []any{est(m.Sojourns[0]), est(m.Sojourns[1])},
			"log_lik": m.LogLik, "aic": m.AIC, "renewal_aic": m.RenewalAIC, "ks": m.KS, "ks_p": m.KSP, "lag1": est(m.Lag1)}
	}
	if l := r.Loop; l != nil {
		loop := map[string]any{"used": r.UseLoop, "why": r.LoopWhy, "model": l.Model, "shape_runs": l.Shape.K, "fitted_runs": l.Runs}
		if l.Runs > 0 {
			tf := l.Turns
			loop["turns"] = map[string]any{"rule": tf.Rule, "why": tf.Why, "p": tf.P.P, "p_lo": tf.P.CI.Lo, "p_hi": tf.P.CI.Hi,
				"at_risk": tf.AtRisk, "ends": tf.Ends, "histogram": tf.Hist, "chi2": tf.ChiSq, "df": tf.DF, "p_value": tf.PValue,
				"implied_mean": tf.ImpliedMean.Value, "max_turns": tf.MaxTurns, "distribution": tf.Dist}
			loop["calls_per_turn"] = map[string]any{"histogram": l.Calls.Hist, "mean": l.Calls.Mean.Value, "mean_lo": l.Calls.Mean.CI.Lo, "mean_hi": l.Calls.Mean.CI.Hi}
			shares := map[string]any{}
			for _, ts := range l.Tools {
				shares[ts.Tool] = map[string]any{"calls": ts.Share.K, "share": ts.Share.P, "lo": ts.Share.CI.Lo, "hi": ts.Share.CI.Hi}
			}
			loop["tools"] = shares
			if cf := l.Context; cf != nil {
				loop["context"] = map[string]any{"system": cf.System, "system_runs": cf.SystemRuns, "system_of": cf.SystemOf,
					"start_mean": cf.Start.Mean.Value, "appended_mean": cf.Appended.Mean.Value, "negative_turns": cf.Negative}
			}
		}
		doc["loop"] = loop
	}
	fitJSON, err := json.MarshalIndent(clean(doc), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", reportfiles.Fit.Name, err)
	}
	files := []File{{reportfiles.Fit.Name, append(fitJSON, '\n')}, {reportfiles.QQ.Name, qq.Bytes()}}
	if l := r.Loop; l != nil && l.Runs > 0 && l.Turns.P.N > 0 {
		tf := l.Turns
		var c bytes.Buffer
		c.WriteString(reportfiles.Turns.Header())
		for n := range tf.AtRisk {
			if tf.AtRisk[n] == 0 {
				continue
			}
			o := fitting.Wilson(tf.Ends[n], tf.AtRisk[n])
			fmt.Fprintf(&c, "%s,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s\n", tf.Rule, n+1, tf.AtRisk[n], tf.Ends[n], num(o.P), num(o.CI.Lo), num(o.CI.Hi), num(tf.P.P), num(tf.P.CI.Lo), num(tf.P.CI.Hi), num(tf.PValue))
		}
		files = append(files, File{reportfiles.Turns.Name, c.Bytes()})
	}
	if cal != nil {
		var c bytes.Buffer
		c.WriteString(reportfiles.Calibration.Header())
		for _, row := range cal.Rows {
			fmt.Fprintf(&c, "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", csvField(row.Metric), row.Unit, num(row.Observed), num(row.ObservedCI.Lo), num(row.ObservedCI.Hi),
				num(row.Simulated.Mean), num(row.Simulated.Lo), num(row.Simulated.Hi), num(row.RelErr), num(row.RelErrCI.Lo), num(row.RelErrCI.Hi))
		}
		var e bytes.Buffer
		e.WriteString(reportfiles.E2E.Header())
		for _, s := range []struct {
			name string
			x    []float64
		}{{"observed", cal.ObservedE2E}, {"simulated", cal.SimulatedE2E}} {
			for k := 1; k < 200 && len(s.x) > 0; k++ {
				p := float64(k) / 200
				fmt.Fprintf(&e, "%s,%s,%s\n", s.name, num(p), num(s.x[min(int(math.Ceil(float64(len(s.x))*p))-1, len(s.x)-1)]))
			}
		}
		files = append(files, File{reportfiles.Calibration.Name, c.Bytes()}, File{reportfiles.E2E.Name, e.Bytes()})
	}
	return files, nil
}

var classNames = [...]string{"ok", "429", "5xx", "timeout", "other"}

func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func csvField(s string) string {
	if bytes.ContainsAny([]byte(s), ",\"\n") {
		return strconv.Quote(s)
	}
	return s
}

// clean replaces the NaNs and infinities JSON cannot hold with null.
func clean(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = clean(e)
		}
		return x
	case map[string]float64:
		out := map[string]any{}
		for k, e := range x {
			out[k] = clean(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = clean(e)
		}
		return x
	}
	return v // structs of finite numbers (their NaNs are removed where they are built)
}
