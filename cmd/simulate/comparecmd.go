package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/budgetsim/budgetsim/internal/cli"

	"github.com/budgetsim/budgetsim/internal/atomicfile"
	"github.com/budgetsim/budgetsim/internal/render"
	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
	"github.com/budgetsim/budgetsim/sim"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// Variant is one point of a comparison: the overrides that define it.
type variantSummary struct {
	Variant map[string]string `json:"variant"`
	system.Summary
	// Difference is this variant minus the first, paired replication by
	// replication (every variant's replication i sees the same random
	// numbers); absent for the first variant and with fewer than two
	// replications.
	Difference *pairedDifference `json:"difference_from_first,omitempty"`
}

// pairedDifference is a variant's figures minus the first variant's over
// the replications they share, with intervals from the per-replication
// differences: common random numbers make them far narrower than the
// difference of two independent intervals. A figure is absent (nil) when
// fewer than two replications give it.
type pairedDifference struct {
	Baseline     string        `json:"baseline"`
	Replications int           `json:"replications"`
	SuccessRate  *diffInterval `json:"success_rate,omitempty"`
	LatencyMean  *diffInterval `json:"latency_mean_s,omitempty"`
	LatencyP99   *diffInterval `json:"latency_p99_s,omitempty"`
}

// diffInterval is a difference and its confidence interval; N is the
// replications behind it (a latency difference leaves out replications in
// which either variant completed no run).
type diffInterval struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	N    int     `json:"n"`
}

// pairedDiff differences b from base replication by replication. The
// success and mean-latency differences are the mean of the
// per-replication differences with a Student-t interval. The p99's is
// centred on the difference of the pooled p99s (basePooledP99,
// bPooledP99) by sectioning, like each variant's own p99 interval: a
// replication's p99 is biased low by its length, by different amounts in
// different variants, so the mean of their differences is too.
func pairedDiff(baseLabel string, base, b []system.ReplicationFigure, basePooledP99, bPooledP99, level float64) *pairedDifference {
	n := min(len(base), len(b))
	if n < 2 {
		return nil
	}
	diffs := func(get func(f system.ReplicationFigure) float64, latency bool) []float64 {
		var ds []float64
		for i := range n {
			if latency && (base[i].Completed == 0 || b[i].Completed == 0) {
				continue
			}
			ds = append(ds, get(b[i])-get(base[i]))
		}
		return ds
	}
	mean := func(ds []float64) *diffInterval {
		if len(ds) < 2 {
			return nil
		}
		ci := stats.MeanCI(ds, level)
		return &diffInterval{Mean: ci.Mean, Lo: ci.Lo, Hi: ci.Hi, N: len(ds)}
	}
	d := &pairedDifference{
		Baseline:     baseLabel,
		Replications: n,
		SuccessRate:  mean(diffs(func(f system.ReplicationFigure) float64 { return f.SuccessRate }, false)),
		LatencyMean:  mean(diffs(func(f system.ReplicationFigure) float64 { return f.LatencyMean }, true)),
	}
	if ds := diffs(func(f system.ReplicationFigure) float64 { return f.LatencyP99 }, true); len(ds) >= 2 {
		ci := stats.SectionCI(ds, bPooledP99-basePooledP99, level)
		d.LatencyP99 = &diffInterval{Mean: ci.Mean, Lo: ci.Lo, Hi: ci.Hi, N: len(ds)}
	}
	return d
}

func init() {
	register(command{name: "compare", synopsis: "simulate compare SCENARIO --vary key=v1,v2[,…] [--vary …]   variants on common random numbers, one table", run: (*env).compare, graceful: true})
}

func (e *env) compare(args []string) error {
	fs, sf := newScenarioFlagSet("compare", e.stderr, "compare SCENARIO --vary key=v1,v2[,…] [--vary …] [flags]")
	var varies cli.StringList
	outDir := fs.String("out", "", "also write compare.json, summary.csv, latency_cdf.csv and series.csv (one row group per variant) to `DIR`")
	fs.Var(&varies, "vary", "a key and the values to compare: `key=v1,v2,…` or key=a..b:n; two --vary flags form a grid")
	scenario, err := cli.ScenarioArg(fs, sf, args, "compare")
	if err != nil {
		return err
	}
	if len(varies) == 0 {
		return cli.Usagef("compare needs at least one --vary key=v1,v2,…")
	}
	// The same parsing as sweep's: each key once, and the grid's size
	// checked as it grows (a product taken at the end can overflow).
	vs, err := parseAxes(varies)
	if err != nil {
		return err
	}
	points := 1
	for _, v := range vs {
		points *= len(v.Values)
	}
	// Every variant uses the same seed and the same named random streams:
	// common random numbers, so differences come from the policy, not luck.
	var out []variantSummary
	var labels []string
	var variants scenarios.Variants // the first variant reads the file, the others parse its text
	var files *compareFiles
	if *outDir != "" {
		// The per-variant files are written as the variants complete, so
		// memory holds one variant's histograms and series at a time.
		if err := cli.CheckOutDir(*outDir); err != nil {
			return err
		}
		var err error
		if files, err = newCompareFiles(*outDir); err != nil {
			return err
		}
		defer files.abort() // a no-op once committed
	}
	// Every variant's scenario first, in order, so that a bad variant is
	// reported before anything runs.
	type job struct {
		variant map[string]string
		label   string
		cfg     *system.Config
	}
	jobs := make([]job, points)
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
		sc, err := variants.Load(scenario, append(sf.AllSets(), sets...))
		if err != nil {
			return fmt.Errorf("variant %s: %w", strings.Join(label, " "), err)
		}
		jobs[i] = job{variant: variant, label: strings.Join(label, " "), cfg: sc.Config}
	}
	// Fewer replications than cores: the variants run side by side (each
	// on one goroutine), else one after another with their replications
	// spread over the cores. Either way each is handed on in order, and
	// its figures do not depend on which.
	workers := sf.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	outer, inner := 1, sf.Parallel
	if sf.Replications < workers && points > 1 {
		outer, inner = workers, 1
	}
	type done struct {
		acc   *system.Accumulator
		first *system.Result
	}
	var figs [][]system.ReplicationFigure // each kept variant's, for the paired differences
	stopped := false
	sim.ParallelEach(points, outer, 2*outer, func(i int) done {
		if outer == 1 && stopped { // sequential: each has run for i-1 on this goroutine
			return done{}
		}
		acc, first := system.ReplicatePooled(jobs[i].cfg, sf.Replications, inner, system.Options{Interrupt: e.interrupted}, sf.Level)
		return done{acc, first}
	}, func(i int, d done) {
		if stopped || err != nil || d.acc == nil {
			return
		}
		out = append(out, variantSummary{Variant: jobs[i].variant, Summary: d.acc.Summary()})
		labels = append(labels, jobs[i].label)
		figs = append(figs, d.acc.Figures())
		if files != nil {
			err = files.add(jobs[i].label, jobs[i].cfg, d.acc.Latency(), d.first.Series)
		}
		// A variant that completed after an interrupt is the last one kept.
		stopped = e.interrupted.Load()
	})
	if err != nil {
		return err
	}
	// Paired differences need whole replications: an interrupt may have
	// cut the last one of a variant short.
	if sf.Replications >= 2 && !e.interrupted.Load() {
		for i := 1; i < len(out); i++ {
			out[i].Difference = pairedDiff(labels[0], figs[0], figs[i], out[0].Latency.P99, out[i].Latency.P99, sf.Level)
		}
	}
	var missing []string // variants an interrupt left without a result
	for _, j := range jobs {
		if !slices.Contains(labels, j.label) {
			missing = append(missing, j.label)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(e.stderr, "simulate: compare interrupted: %d of %d variants have no result (%s)\n", len(missing), len(jobs), strings.Join(missing, "; "))
	}
	if files != nil {
		if err := files.commit(out, labels); err != nil {
			return err
		}
	}
	if sf.Format == "json" {
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
			success, p99 := render.Percent(s.SuccessRate), render.Seconds(s.Latency.P99)
			if c := s.Confidence; c != nil {
				success = render.PlusMinus(s.SuccessRate, c.SuccessRate.Lo, c.SuccessRate.Hi, render.Percent)
				if s.Latency.N > 0 {
					p99 = render.PlusMinus(s.Latency.P99, c.Latency.P99.Lo, c.Latency.P99.Hi, render.Seconds)
				}
			}
			row := []string{labels[i], success,
				render.Seconds(s.Latency.P50), p99, render.Seconds(s.Latency.P999), render.Seconds(s.Latency.Max),
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
		count := fmt.Sprintf("%d variants", len(out))
		if len(out) == 1 {
			count = "1 variant"
		}
		if len(missing) > 0 {
			count = fmt.Sprintf("%d of %d variants (interrupted before %s finished)", len(out), len(jobs), strings.Join(missing, "; "))
		}
		fmt.Fprintf(e.stdout, "%s: %s on common random numbers (seed %d, %d replication(s) each)\n", scenario, count, out[0].Seed, sf.Replications)
		if err := render.Table(e.stdout, header, rows); err != nil {
			return err
		}
		if c := out[0].Confidence; c != nil {
			fmt.Fprintf(e.stdout, "± is the half-width of a %g%% Student-t interval over %d replications (the p99's by sectioning, centred on the pooled p99).\n", 100*c.Level, c.Replications)
		}
		if err := pairedTable(e.stdout, labels, out, sf.Level); err != nil {
			return err
		}
		writeVariantWarnings(e.stdout, labels, out)
	}
	if e.interrupted.Load() {
		return cli.ErrInterrupted
	}
	return nil
}

// compareFiles writes a comparison's files into a directory, each
// atomically: latency_cdf.csv, series.csv and (once a variant has a tool
// with a capacity or a rate limit) tools.csv grow variant by variant in
// temporary files; commit adds compare.json and summary.csv and renames
// them all into place.
type compareFiles struct {
	dir                string
	group              atomicfile.Group // every file, put in place together
	cdf, series, tools *csvFile
}

// csvFile is a CSV file being written to a temporary file.
type csvFile struct {
	f  *atomicfile.File
	cw *csv.Writer
}

func newCSVFile(g *atomicfile.Group, path string, header []string) (*csvFile, error) {
	f, err := g.Create(path)
	if err != nil {
		return nil, err
	}
	c := &csvFile{f: f, cw: csv.NewWriter(f)}
	if err := c.cw.Write(header); err != nil {
		f.Abort()
		return nil, err
	}
	return c, nil
}

// flush writes the CSV writer's buffer to the file (its group commits it).
func (c *csvFile) flush() error {
	c.cw.Flush()
	return c.cw.Error()
}

func newCompareFiles(dir string) (*compareFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cf := &compareFiles{dir: dir}
	var err error
	if cf.cdf, err = newCSVFile(&cf.group, filepath.Join(dir, "latency_cdf.csv"), render.CDFHeader); err != nil {
		return nil, err
	}
	if cf.series, err = newCSVFile(&cf.group, filepath.Join(dir, "series.csv"), render.SeriesHeader); err != nil {
		cf.abort()
		return nil, err
	}
	return cf, nil
}

// add appends one variant's rows.
func (cf *compareFiles) add(label string, cfg *system.Config, lat *stats.Histogram, series *system.Series) error {
	if err := render.CDFRows(cf.cdf.cw, label, lat); err != nil {
		return err
	}
	if err := render.SeriesRows(cf.series.cw, label, series); err != nil {
		return err
	}
	if !render.HasLimitedTools(cfg) {
		return nil
	}
	if cf.tools == nil {
		var err error
		if cf.tools, err = newCSVFile(&cf.group, filepath.Join(cf.dir, "tools.csv"), render.ToolsHeader); err != nil {
			return err
		}
	}
	return render.ToolRows(cf.tools.cw, cfg, label, series)
}

// commit writes compare.json and summary.csv and puts every file in place.
func (cf *compareFiles) commit(out []variantSummary, labels []string) error {
	sums := make([]system.Summary, len(out))
	for i, v := range out {
		sums[i] = v.Summary
	}
	hasTools := cf.tools != nil
	err := func() error {
		for _, c := range []*csvFile{cf.cdf, cf.series, cf.tools} {
			if c != nil {
				if err := c.flush(); err != nil {
					return err
				}
			}
		}
		f, err := cf.group.Create(filepath.Join(cf.dir, "compare.json"))
		if err != nil {
			return err
		}
		if err := render.JSON(f, out); err != nil {
			return err
		}
		f, err = cf.group.Create(filepath.Join(cf.dir, "summary.csv"))
		if err != nil {
			return err
		}
		return render.SummaryCSV(f, sums, labels)
	}()
	cf.cdf, cf.series, cf.tools = nil, nil, nil
	if err != nil {
		cf.group.Abort()
		return err
	}
	if err := cf.group.Commit(); err != nil {
		return err
	}
	if !hasTools {
		return removeStale(cf.dir, "tools.csv")
	}
	return nil
}

// abort removes the temporary files not yet committed.
func (cf *compareFiles) abort() {
	cf.group.Abort()
	cf.cdf, cf.series, cf.tools = nil, nil, nil
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// writeVariantWarnings lists the variants' warnings under compare's
// table (see writeWarningsByLabel).
func writeVariantWarnings(w io.Writer, labels []string, out []variantSummary) {
	warns := make([][]string, len(out))
	for i, v := range out {
		warns[i] = v.Warnings
	}
	writeWarningsByLabel(w, "variants", labels, warns)
}

// writeWarningsByLabel lists the warnings of several summaries under a
// table, as run lists one summary's: each distinct warning once, in order
// of first appearance, with the labels it applies to ("all <noun>" when
// shared; the first few of a large grid; at most 20 distinct warnings).
// --format json keeps each summary's own.
func writeWarningsByLabel(w io.Writer, noun string, labels []string, warns [][]string) {
	const shown = 10
	var order []string
	who := map[string][]string{}
	for i, ws := range warns {
		for _, warn := range ws {
			if _, ok := who[warn]; !ok {
				order = append(order, warn)
			}
			who[warn] = append(who[warn], labels[i])
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWarnings:")
	for i, warn := range order {
		if i == 2*shown {
			fmt.Fprintf(w, "  … and %d more distinct warnings (--format json has each of the %s' own)\n", len(order)-i, noun)
			break
		}
		vs := "all " + noun
		if len(who[warn]) < len(labels) {
			vs = firstFew(who[warn], shown)
		}
		fmt.Fprintf(w, "  %d. %s (%s)\n", i+1, warn, vs)
	}
}

// pairedTable prints each variant's paired difference from the first,
// when there are any.
func pairedTable(w io.Writer, labels []string, out []variantSummary, level float64) error {
	var rows [][]string
	for i, v := range out {
		d := v.Difference
		if i == 0 || d == nil {
			continue
		}
		rows = append(rows, []string{labels[i],
			signedInterval(d.SuccessRate, render.Percent),
			signedInterval(d.LatencyMean, render.Seconds),
			signedInterval(d.LatencyP99, render.Seconds)})
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nMinus %s, paired replication by replication (common random numbers; %g%% Student-t intervals of the differences):\n", labels[0], 100*level)
	return render.Table(w, []string{"variant", "Δ success", "Δ mean completion", "Δ p99"}, rows)
}

// signedInterval formats a difference with its sign and interval:
// "−412ms [−450ms, −375ms]", or "–" without enough replications.
func signedInterval(d *diffInterval, f func(float64) string) string {
	if d == nil {
		return "–"
	}
	signed := func(x float64) string {
		if x < 0 {
			return "−" + f(-x)
		}
		return "+" + f(x)
	}
	return fmt.Sprintf("%s [%s, %s]", signed(d.Mean), signed(d.Lo), signed(d.Hi))
}
