package arrival_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/budgetsim/budgetsim/model/arrival"
)

// The simulator keeps the arrival count and the last instant; the process
// keeps nothing, so one value serves every replication.
func ExamplePoisson() {
	p, err := arrival.Poisson(5) // 5 runs per second on average
	if err != nil {
		fmt.Println(err)
		return
	}
	r := rand.New(rand.NewPCG(1, 2))
	var prev time.Duration
	for n := range int64(4) {
		at, _ := p.Next(n, prev, r)
		fmt.Println(at)
		prev = at
	}
	fmt.Println(p, "mean rate", p.MeanRate())

	_, err = arrival.Poisson(-1)
	fmt.Println(err)
	// Output:
	// 118.626343ms
	// 132.227035ms
	// 139.526428ms
	// 631.59352ms
	// poisson(rate=5/s) mean rate 5
	// rate: must be > 0, got -1
}

// A business-hours pattern: quiet at night, busy 09:00–18:00, moderate in
// the evening, every day. Expected gives the offered load per window.
func ExampleSchedule() {
	h := time.Hour
	p, err := arrival.Schedule([]arrival.RatePoint{
		{At: 0, Rate: 2},      // 00:00–09:00: 2/s
		{At: 9 * h, Rate: 8},  // 09:00–18:00: 8/s
		{At: 18 * h, Rate: 3}, // 18:00–24:00: 3/s
	}, 24*h)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	fmt.Printf("mean rate %.2f/s\n", p.MeanRate())
	fmt.Printf("expected 08:00–10:00 %.0f\n", p.Expected(8*h, 10*h))
	fmt.Printf("expected per day     %.0f\n", p.Expected(0, 24*h))

	_, err = arrival.Schedule([]arrival.RatePoint{{0, 2}, {9 * h, 8}, {18 * h, -1}}, 24*h)
	fmt.Println(err)
	// Output:
	// schedule(0s: 2/s, 9h0m0s: 8/s, 18h0m0s: 3/s; repeat 24h0m0s)
	// mean rate 4.50/s
	// expected 08:00–10:00 36000
	// expected per day     388800
	// points[2].rate: must be ≥ 0, got -1
}

// A launch: 50/s for ten seconds, then nothing. The process ends by itself.
func ExampleSchedule_ending() {
	p, _ := arrival.Schedule([]arrival.RatePoint{{0, 50}, {10 * time.Second, 0}}, 0)
	r := rand.New(rand.NewPCG(1, 2))
	var n int64
	var prev time.Duration
	for {
		at, ok := p.Next(n, prev, r)
		if !ok {
			break
		}
		n, prev = n+1, at
	}
	fmt.Printf("%d arrivals, the last at %v (expected %.0f)\n", n, prev.Round(time.Millisecond), p.Expected(0, time.Hour))
	// Output:
	// 463 arrivals, the last at 9.937s (expected 500)
}

// A smooth daily cycle peaking at 14:00 (phase π/2 − 2π·14/24), between
// 1/s and 9/s.
func ExampleDiurnal() {
	phase := math.Pi/2 - 2*math.Pi*14/24
	p, err := arrival.Diurnal(5, 0.8, 24*time.Hour, phase)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, from := range []time.Duration{2 * time.Hour, 14 * time.Hour} {
		fmt.Printf("%v–%v: %.2f/s\n", from, from+time.Minute,
			p.Expected(from, from+time.Minute)/60)
	}
	// Output:
	// 2h0m0s–2h1m0s: 1.00/s
	// 14h0m0s–14h1m0s: 9.00/s
}

// Recorded arrivals from a log, replayed exactly; errors carry the line.
func ExampleReadTrace() {
	const log = `# arrivals exported from the gateway, 2024-06-01
2024-06-01T09:00:00Z
2024-06-01T09:00:00.250Z
2024-06-01T09:00:00.250Z   # two in the same millisecond
2024-06-01T09:00:01.5Z
`
	times, err := arrival.ReadTrace(strings.NewReader(log), "gateway.log")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := arrival.Trace(times)
	var prev time.Duration
	for n := int64(0); ; n++ {
		at, ok := p.Next(n, prev, nil) // a trace draws nothing
		if !ok {
			break
		}
		fmt.Println(at)
		prev = at
	}
	fmt.Println(p)

	_, err = arrival.ReadTrace(strings.NewReader("0\n1.5s\n250ms\n"), "offsets.txt")
	fmt.Println(err)
	// Output:
	// 0s
	// 250ms
	// 250ms
	// 1.5s
	// trace(n=4, first=0s, last=1.5s)
	// offsets.txt:3: out of order: "250ms" is before "1.5s" on line 2
}
