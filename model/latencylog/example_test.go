package latencylog_test

import (
	"fmt"
	"strings"

	"github.com/budgetsim/budgetsim/model/latencylog"
)

func ExampleRead() {
	const export = "\ufeff# source: api.example.com/v1/chat\r\n" +
		"# date: 2026-11-30\r\n" +
		"ts,latency_ms,status\r\n" +
		"02:00:00,250,200\r\n" +
		"02:00:01,1200,503   # provider hiccup\r\n"
	log, err := latencylog.Read(strings.NewReader(export), latencylog.Options{Column: "latency_ms", Name: "export.csv"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(log.Samples, "seconds; unit of bare numbers:", log.Unit)
	fmt.Printf("source %q, date %q\n", log.Source, log.Date)

	_, err = latencylog.Read(strings.NewReader("250ms\n1.5s\n\n-3ms\n"), latencylog.Options{Name: "latencies.txt"})
	fmt.Println(err)
	// Output:
	// [0.25 1.2] seconds; unit of bare numbers: 1ms
	// source "api.example.com/v1/chat", date "2026-11-30"
	// latencies.txt:4: negative duration "-3ms"
}
