package scenarios_test

import (
	"fmt"

	"github.com/budgetsim/budgetsim/scenarios"
)

// Durations need a unit: a bare "2" could mean seconds or milliseconds.
func ExampleParseDuration() {
	for _, s := range []string{"250ms", "1m30s", "0", "2"} {
		d, err := scenarios.ParseDuration(s)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(d)
	}
	// Output:
	// 250ms
	// 1m30s
	// 0s
	// error: "2" has no unit: write e.g. 2ms or 2s
}

// Rates are events per second, minute or hour, returned per second.
func ExampleParseRate() {
	for _, s := range []string{"9/s", "30/m", "7200/h", "9/x"} {
		r, err := scenarios.ParseRate(s)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(scenarios.FormatRate(r))
	}
	// Output:
	// 9/s
	// 0.5/s
	// 2/s
	// error: "9/x": unknown rate unit "x" (use /s, /m or /h)
}

// Parse reports every problem at once, each with file:line and field, and
// a --set override that supplies a bad value is named instead of a line.
func ExampleParse() {
	src := `name: demo
arrivals: {rate: 9}
workers: 4
queue: {capcity: 10}
steps:
  - {name: fetch, tool: scraper}
tools:
  scrape:
    latency: {dist: lognormal, median: 40ms, p99: 300ms}
`
	_, err := scenarios.Parse("demo.yaml", []byte(src), []string{"steps.fetch.timeout=300"}, nil)
	fmt.Println(err)
	// Output:
	// demo.yaml:2: arrivals.rate: "9" has no unit: write e.g. 9/s, 9/m or 9/h
	// demo.yaml:4: queue.capcity: unknown key (did you mean "capacity"?); allowed here: capacity
	// demo.yaml:6: steps.fetch.tool: tool "scraper" is not defined under tools (did you mean "scrape"?) (defined: scrape)
	// --set steps.fetch.timeout=300: steps.fetch.timeout: "300" has no unit: write e.g. 300ms or 300s
}

// A bundled scenario loads by name, with --set overrides.
func ExampleLoad() {
	sc, err := scenarios.Load("mmc", []string{"workers=12"})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := sc.Config
	fmt.Println(sc.File, c.Workers, scenarios.FormatRate(c.Arrivals.Rate), c.Tools[0].Latency)
	// Output:
	// scenarios/mmc.yaml 12 9/s exponential(mean=1)
}
