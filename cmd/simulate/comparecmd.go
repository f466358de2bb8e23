package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/plan/sweep"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// parseVary parses one --vary flag with the sweep's grammar: a list
// "key=v1,v2,…" (commas inside {…} or […] do not split) or a range
// "key=a..b:n".
func parseVary(s string) (sweep.Axis, error) {
	ax, err := sweep.ParseAxis(s)
	if err != nil {
		return sweep.Axis{}, usagef("--vary %v", err)
	}
	return ax, nil
}

// Variant is one point of a comparison: the overrides that define it.
type variantSummary struct {
	Variant map[string]string `json:"variant"`
	system.Summary
}

func init() {
	register(command{name: "compare", synopsis: "simulate compare SCENARIO --vary key=v1,v2[,…] [--vary …]   variants on common random numbers, one table", run: (*env).compare})
}

func (e *env) compare(args []string) error {
	fs := newFlagSet("compare", e.stderr, "compare SCENARIO --vary key=v1,v2[,…] [--vary …] [flags]")
	var sf scenarioFlags
	sf.register(fs)
	var varies stringList
	outDir := fs.String("out", "", "also write compare.json, summary.csv, latency_cdf.csv and series.csv (one row group per variant) to `DIR`")
	fs.Var(&varies, "vary", "a key and the values to compare: `key=v1,v2,…` or key=a..b:n; two --vary flags form a grid")
	scenario, err := scenarioArg(fs, &sf, args, "compare")
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(varies) == 0 {
		return usagef("compare needs at least one --vary key=v1,v2,…")
	}
	var vs []sweep.Axis
	points := 1
	for _, s := range varies {
		v, err := parseVary(s)
		if err != nil {
			return err
		}
		vs = append(vs, v)
		points *= len(v.Values)
	}
	if points > 10000 {
		return usagef("--vary: %d variants is too many (at most 10000)", points)
	}
	// Every variant uses the same seed and the same named random streams:
	// common random numbers, so differences come from the policy, not luck.
	var out []variantSummary
	var labels []string
	var lats []*stats.Histogram
	var series []*system.Series
	var cfgs []*system.Config
	for i := range points {
		variant := map[string]string{}
		var sets []string
		var label []string
		k := i
		for j := len(vs) - 1; j >= 0; j-- {
			v := vs[j]
			val := v.Values[k%len(v.Values)]
			k /= len(v.Values)
			variant[v.Key] = val
			sets = append([]string{v.Key + "=" + val}, sets...)
			label = append([]string{v.Key + "=" + val}, label...)
		}
		sc, err := scenarios.Load(scenario, append(sf.allSets(), sets...))
		if err != nil {
			return fmt.Errorf("variant %s: %w", strings.Join(label, " "), err)
		}
		results := system.Replicate(sc.Config, sf.replications, sf.parallel, system.Options{Interrupt: e.interrupted})
		out = append(out, variantSummary{Variant: variant, Summary: system.Summarize(sc.Config, results, sf.level)})
		labels = append(labels, strings.Join(label, " "))
		if *outDir != "" {
			// Only the files need each variant's pooled latencies and
			// series; without --out a variant keeps just its summary.
			lat, _ := system.Pool(results)
			lats = append(lats, lat)
			series = append(series, results[0].Series)
			cfgs = append(cfgs, sc.Config)
		}
		if e.interrupted.Load() {
			break
		}
	}
	if *outDir != "" {
		if err := writeCompare(*outDir, cfgs, out, labels, lats, series); err != nil {
			return err
		}
	}
	if sf.format == "json" {
		if err := render.JSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		var rows [][]string
		header := []string{"variant", "success", "p50", "p99", "p99.9", "max (makespan)", "attempts/run", "attempts", "peak attempt rate", "not completed", "bottleneck"}
		withRecovery := out[0].Recovery != nil
		if withRecovery {
			header = append(header, "recovery after outage")
		}
		for i, v := range out {
			s := v.Summary
			row := []string{labels[i], render.Percent(s.SuccessRate),
				render.Seconds(s.Latency.P50), render.Seconds(s.Latency.P99), render.Seconds(s.Latency.P999), render.Seconds(s.Latency.Max),
				render.Number(s.Attempts.PerRun), render.Number(float64(s.Attempts.Attempts)), render.Number(s.Attempts.PeakRate) + "/s",
				render.Number(float64(s.Runs.DeadlineExceeded + s.Runs.Failed + s.Runs.Refused + s.Runs.Expired + s.Runs.Rejected)),
				orDash(s.Bottleneck)}
			if withRecovery {
				rec := "never"
				if s.Recovery != nil && s.Recovery.Recovered {
					rec = render.Seconds(s.Recovery.After)
				}
				row = append(row, rec)
			}
			rows = append(rows, row)
		}
		fmt.Fprintf(e.stdout, "%s: %d variants on common random numbers (seed %d, %d replication(s) each)\n", scenario, len(out), out[0].Seed, sf.replications)
		if err := render.Table(e.stdout, header, rows); err != nil {
			return err
		}
	}
	if e.interrupted.Load() {
		return errInterrupted
	}
	return nil
}

// writeCompare writes a comparison's files into dir, each atomically.
func writeCompare(dir string, cfgs []*system.Config, out []variantSummary, labels []string, lats []*stats.Histogram, series []*system.Series) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sums := make([]system.Summary, len(out))
	for i, v := range out {
		sums[i] = v.Summary
	}
	files := []struct {
		name  string
		write func(w io.Writer) error
	}{
		{"compare.json", func(w io.Writer) error { return render.JSON(w, out) }},
		{"summary.csv", func(w io.Writer) error { return render.SummaryCSV(w, sums, labels) }},
		{"latency_cdf.csv", func(w io.Writer) error { return render.CDFCSV(w, labels, lats) }},
		{"series.csv", func(w io.Writer) error { return render.SeriesCSVVariants(w, labels, series) }},
	}
	capacity := false
	for _, c := range cfgs {
		capacity = capacity || render.HasCapacityTools(c)
	}
	if capacity {
		files = append(files, struct {
			name  string
			write func(w io.Writer) error
		}{"tools.csv", func(w io.Writer) error { return render.ToolsCSV(w, cfgs, labels, series) }})
	}
	for _, f := range files {
		if err := writeCSV(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
