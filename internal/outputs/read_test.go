package outputs

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// open opens a fixture of internal/charts, whose tests draw the same
// files.
func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "charts", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readSums(t *testing.T, name string) []Summary {
	t.Helper()
	s, err := ReadSummaries(open(t, name), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCDFQuantileMatchesSummary checks that the percentiles CDFChart marks
// are the summary's: both are nearest-rank on the same histogram
// (stats.Histogram.Quantile and CDFPoints), so they must agree exactly.
func TestCDFQuantileMatchesSummary(t *testing.T) {
	for _, dir := range []string{"mmc", "jitter"} {
		cdfs, err := ReadCDF(open(t, dir+"/latency_cdf.csv"), "latency_cdf.csv")
		if err != nil {
			t.Fatal(err)
		}
		name := "summary.json"
		if dir == "jitter" {
			name = "compare.json"
		}
		sums := readSums(t, dir+"/"+name)
		if len(cdfs) != len(sums) {
			t.Fatalf("%s: %d CDFs, %d summaries", dir, len(cdfs), len(sums))
		}
		for i, d := range cdfs {
			l := sums[i].Latency
			for _, q := range []struct {
				p    float64
				want float64
			}{{0.5, l.P50}, {0.9, l.P90}, {0.99, l.P99}, {0.999, l.P999}, {1, l.Max}} {
				if got := d.Quantile(q.p); got != q.want {
					t.Errorf("%s %s: CDF.Quantile(%v) = %v, want %v (summary)", dir, d.Variant, q.p, got, q.want)
				}
			}
		}
	}
}

func TestCDFQuantileEmpty(t *testing.T) {
	if got := (CDF{}).Quantile(0.5); !math.IsNaN(got) {
		t.Errorf("CDF{}.Quantile(0.5) = %v, want NaN", got)
	}
}

// TestReadErrors checks that malformed input names the file, the line and
// the column.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		name string
		read func(string) error
		in   string
		want string
	}{
		{"cdf bad number", readCDF, "variant,value_s,fraction\nx,0.1,0.5\nx,abc,0.7\n", `f.csv:3: value_s: want a finite number, got "abc"`},
		{"cdf fraction > 1", readCDF, "variant,value_s,fraction\nx,0.1,1.5\n", "f.csv:2: fraction: must be in [0, 1], got 1.5"},
		{"cdf decreasing", readCDF, "variant,value_s,fraction\nx,0.1,0.5\nx,0.2,0.4\n", `f.csv:3: fraction: fractions of variant "x" must not decrease, got 0.4 after 0.5`},
		{"cdf negative", readCDF, "variant,value_s,fraction\nx,-1,0.5\n", "f.csv:2: value_s: must be ≥ 0, got -1"},
		{"cdf NaN", readCDF, "variant,value_s,fraction\nx,NaN,0.5\n", `f.csv:2: value_s: want a finite number, got "NaN"`},
		{"missing column", readCDF, "variant,value_s\nx,0.1\n", `f.csv:1: missing column "fraction"`},
		{"duplicate column", readCDF, "variant,value_s,fraction,fraction\n", `f.csv:1: column "fraction" appears twice`},
		{"field count", readCDF, "variant,value_s,fraction\nx,0.1,0.5,9\n", "f.csv:2: wrong number of fields"},
		{"empty file", readCDF, "", "f.csv: empty file"},
		{"series width", readSeries, "variant,t_s,width_s,arrivals,attempts,completed\nx,0,0,1,1,1\n", "f.csv:2: width_s: must be > 0, got 0"},
		{"series count", readSeries, "variant,t_s,width_s,arrivals,attempts,completed\nx,0,1,1.5,1,1\n", `f.csv:2: arrivals: want an integer, got "1.5"`},
		{"series order", readSeries, "variant,t_s,width_s,arrivals,attempts,completed\nx,1,1,1,1,1\nx,0,1,1,1,1\n", "f.csv:3: t_s: bins of variant \"x\" must be in increasing order"},
		{"series in_system", readSeries, "variant,t_s,width_s,arrivals,attempts,completed,in_system\nx,0,1,1,1,1,-2\n", "f.csv:2: in_system: must be ≥ 0, got -2"},
		{"sweep rate", readSweep, sweepHeader + "\nworkers,9,5,1.2,,,1,2,,,3,1,1,1,1\n", "f.csv:2: success_rate: must be in [0, 1], got 1.2"},
		{"sweep parameter", readSweep, sweepHeader + "\n,9,5,1,,,1,2,,,3,1,1,1,1\n", "f.csv:2: parameter: must not be empty"},
		{"tools width", readTools, "variant,tool,t_s,width_s,utilisation\nv,db,0,-1,0.5\n", "f.csv:2: width_s: must be ≥ 0, got -1"},
		{"summary syntax", readSummary, "{\n\"scenario\": \"x\",\n}\n", "f.json:3: invalid character '}'"},
		{"summary type", readSummary, "{\n\"latency_s\": \"x\"}", "f.json:2: json: cannot unmarshal string"},
		{"compare type", readSummary, "[\n{\"latency_s\": \"x\"}]", "f.json: element 1: json: cannot unmarshal string"},
	}
	for _, tt := range tests {
		err := tt.read(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestReadHeaderOnly(t *testing.T) {
	if got, err := ReadCDF(strings.NewReader("variant,value_s,fraction\n"), "f.csv"); err != nil || len(got) != 0 {
		t.Errorf("ReadCDF(header only) = %v, %v, want empty, nil", got, err)
	}
	if got, err := ReadSweep(strings.NewReader(sweepHeader+"\n"), "f.csv"); err != nil || len(got) != 0 {
		t.Errorf("ReadSweep(header only) = %v, %v, want empty, nil", got, err)
	}
}

func TestReadSeriesOptionalColumns(t *testing.T) {
	in := "variant,t_s,width_s,arrivals,attempts,completed,in_system,ended,future\n" +
		"a,0,0.01,3,4,0,2.5,0,x\n" +
		"a,0.01,0.01,0,1,2,1,2,x\n" +
		"b,0,0.02,1,1,1,0,1,x\n"
	ss, err := ReadSeries(strings.NewReader(in), "f.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 2 || ss[0].Variant != "a" || ss[1].Variant != "b" || len(ss[0].Bins) != 2 {
		t.Fatalf("ReadSeries: got %+v, want variants a (2 bins), b (1 bin)", ss)
	}
	b := ss[0].Bins[1]
	want := Bin{Start: 10 * time.Millisecond, Width: 10 * time.Millisecond, Attempts: 1, Completed: 2, Ended: 2, InSystem: 1}
	if b != want {
		t.Errorf("ReadSeries: bin a[1] = %+v, want %+v", b, want)
	}
	if !ss[0].HasInSystem() || !ss[0].HasEnded() {
		t.Errorf("HasInSystem, HasEnded = %v, %v, want true, true", ss[0].HasInSystem(), ss[0].HasEnded())
	}

	plain, err := ReadSeries(open(t, "mmc/series.csv"), "series.csv")
	if err != nil {
		t.Fatal(err)
	}
	if plain[0].HasInSystem() || plain[0].HasEnded() {
		t.Errorf("mmc series: HasInSystem, HasEnded = %v, %v, want false, false", plain[0].HasInSystem(), plain[0].HasEnded())
	}
}

func TestReadSweepIntervals(t *testing.T) {
	in := sweepHeader + "\nworkers,9,1,0.9,,,1,2,,,3,8.9,10,10,1\n"
	ps, err := ReadSweep(strings.NewReader(in), "f.csv")
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	if p.SuccessLo != 0.9 || p.SuccessHi != 0.9 || p.P99Lo != 2 || p.P99Hi != 2 {
		t.Errorf("ReadSweep with empty bounds: lo/hi = %v/%v, %v/%v, want 0.9/0.9, 2/2 (the estimates)", p.SuccessLo, p.SuccessHi, p.P99Lo, p.P99Hi)
	}
	fixture, err := ReadSweep(open(t, "sweep.csv"), "sweep.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(fixture) != 8 || fixture[0].Parameter != "workers" || fixture[0].Value != 9 || fixture[0].P99 != 7.671875 {
		t.Errorf("ReadSweep(sweep.csv)[0] = %+v, want workers=9 with p99 7.671875 s (8 rows)", fixture[0])
	}
}

func TestReadSummaries(t *testing.T) {
	run := readSums(t, "mmc/summary.json")
	if len(run) != 1 || run[0].Label != "mmc" || run[0].Variant != nil {
		t.Errorf("ReadSummaries(summary.json) labels = %+v, want one labelled mmc", run)
	}
	cmp := readSums(t, "jitter/compare.json")
	var got []string
	for _, s := range cmp {
		got = append(got, s.Label)
	}
	want := "retry.backoff.jitter=none,retry.backoff.jitter=full,retry.backoff.jitter=equal,retry.backoff.jitter=decorrelated"
	if strings.Join(got, ",") != want {
		t.Errorf("ReadSummaries(compare.json) labels = %v, want %v", got, want)
	}
	// Several keys: sorted, since JSON objects do not keep the --vary order.
	multi, err := ReadSummaries(strings.NewReader(`[{"variant": {"workers": "2", "deadline": "1s"}}]`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if multi[0].Label != "deadline=1s workers=2" {
		t.Errorf("ReadSummaries label = %q, want %q", multi[0].Label, "deadline=1s workers=2")
	}
}

// TestBoundedStopsAtLimit: a reader past its limit fails with an error
// naming the file, and one at the limit reads whole.
func TestBoundedStopsAtLimit(t *testing.T) {
	b, err := io.ReadAll(Bounded(strings.NewReader("abcdef"), "x.csv", 6))
	if err != nil || string(b) != "abcdef" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	b, err = io.ReadAll(Bounded(strings.NewReader("abcdefg"), "x.csv", 6))
	if err == nil || !strings.Contains(err.Error(), "x.csv: larger than 6 bytes") {
		t.Fatalf("past the limit: err = %v", err)
	}
	if string(b) != "abcdef" {
		t.Errorf("past the limit: read %q, want the first 6 bytes", b)
	}
}

const sweepHeader = "parameter,value,replications,success_rate,success_lo,success_hi,latency_p50_s,latency_p99_s,latency_p99_lo_s,latency_p99_hi_s,latency_p999_s,throughput,time_avg_in_system,lambda_w,attempts_per_run"

func readCDF(s string) error     { _, err := ReadCDF(strings.NewReader(s), "f.csv"); return err }
func readSeries(s string) error  { _, err := ReadSeries(strings.NewReader(s), "f.csv"); return err }
func readSweep(s string) error   { _, err := ReadSweep(strings.NewReader(s), "f.csv"); return err }
func readTools(s string) error   { _, err := ReadTools(strings.NewReader(s), "f.csv"); return err }
func readSummary(s string) error { _, err := ReadSummaries(strings.NewReader(s), "f.json"); return err }
