// Command bareloop simulates M/M/c with nothing but an event loop: the
// hardware reference of bench/run.sh. It does the least work any
// discrete-event simulator of M/M/c does (exponential draws, a 4-ary heap
// of future events ordered by instant then scheduling order, a FIFO queue
// of waiting customers, the mean sojourn) and none of what budgetsim adds
// (histograms, time series, Little's-law integrals, outcome counts, a
// scenario file, JSON output). budgetsim's whole process on the same
// system, divided by this one's, is what its model and its outputs cost.
//
//	go build -o /tmp/bareloop ./bench/bareloop && /tmp/bareloop -customers 3000000
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
)

// event is one scheduled arrival (cust < 0) or departure of customer cust,
// at instant at (nanoseconds), seq its place in the scheduling order.
type event struct {
	at, seq int64
	cust    int64
}

func before(a, b *event) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

// heap is a 4-ary min-heap of events.
type heap []event

func (h *heap) push(e event) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !before(&e, &s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = e
}

func (h *heap) pop() event {
	s := *h
	top := s[0]
	n := len(s) - 1
	e := s[n]
	s = s[:n]
	*h = s
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if before(&s[j], &s[m]) {
				m = j
			}
		}
		if !before(&s[m], &e) {
			break
		}
		s[i] = s[m]
		i = m
	}
	if n > 0 {
		s[i] = e
	}
	return top
}

func main() {
	customers := flag.Int64("customers", 1_000_000, "customers to simulate")
	lambda := flag.Float64("rate", 9, "arrival rate λ, per second")
	mu := flag.Float64("mu", 1, "service rate μ per server, per second")
	servers := flag.Int("servers", 10, "servers c")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *customers < 1 || *servers < 1 || !(*lambda > 0) || !(*mu > 0) {
		fmt.Fprintln(os.Stderr, "bareloop: -customers and -servers must be ≥ 1, -rate and -mu > 0")
		os.Exit(2)
	}
	arr := rand.New(rand.NewPCG(*seed, 1)) // one stream per component
	svc := rand.New(rand.NewPCG(*seed, 2))
	exp := func(r *rand.Rand, rate float64) int64 { return int64(r.ExpFloat64() / rate * 1e9) }

	h := make(heap, 0, 64)
	var seq, now, next int64
	arrived := make([]int64, 0, 1024) // arrival instants of waiting customers, a FIFO ring
	head, busy := 0, 0
	var sojourn float64
	var departed, events int64
	schedule := func(at, cust int64) { seq++; h.push(event{at, seq, cust}) }
	schedule(exp(arr, *lambda), -1)
	for len(h) > 0 {
		e := h.pop()
		now = e.at
		events++
		if e.cust < 0 { // an arrival: the next one, then a server or the queue
			if next++; next < *customers {
				schedule(now+exp(arr, *lambda), -1)
			}
			if busy < *servers {
				busy++
				schedule(now+exp(svc, *mu), now)
			} else {
				arrived = append(arrived, now)
			}
			continue
		}
		// A departure (cust holds its arrival instant): the freed server
		// takes the queue's head.
		sojourn += float64(now-e.cust) / 1e9
		departed++
		if head < len(arrived) {
			schedule(now+exp(svc, *mu), arrived[head])
			if head++; head == len(arrived) {
				arrived, head = arrived[:0], 0
			}
		} else {
			busy--
		}
	}
	fmt.Printf("customers %d\nevents %d\nmean_sojourn_s %.4f\n", departed, events, sojourn/float64(departed))
}
