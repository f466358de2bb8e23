package charts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/outputs"
)

func ExampleFormatSeconds() {
	for _, s := range []float64{0.00025, 0.1, 1.5, 120} {
		fmt.Print(charts.FormatSeconds(s), " ")
	}
	fmt.Println(charts.FormatPercent(0.999))
	// Output: 250µs 100ms 1.5s 120s 99.9%
}

// The percentiles CDFChart marks are nearest-rank: the first point whose
// fraction reaches p.
func ExampleCDF_Quantile() {
	const csv = "variant,value_s,fraction\nmmc,0.5,0.25\nmmc,1,0.5\nmmc,4,0.99\nmmc,9,1\n"
	cdfs, err := outputs.ReadCDF(strings.NewReader(csv), "latency_cdf.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := cdfs[0]
	fmt.Println(d.Variant, d.Quantile(0.5), d.Quantile(0.99), d.Quantile(0.999))
	// Output: mmc 1 4 9
}

func ExampleCDFChart() {
	f, err := os.Open("testdata/jitter/latency_cdf.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	cdfs, err := outputs.ReadCDF(f, f.Name())
	if err != nil {
		fmt.Println(err)
		return
	}
	ch, err := charts.CDFChart(cdfs, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ch.Title)
	fmt.Println(ch.Legend[1].Label)
	dir, _ := os.MkdirTemp("", "charts")
	defer os.RemoveAll(dir)
	paths, err := ch.WriteFiles(dir, []string{"png", "svg"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// Completion time of completed runs by retry.backoff.jitter
	// full — p50 584ms · p99 3.23s · p99.9 3.83s
	// latency_cdf.png
	// latency_cdf.svg
}
