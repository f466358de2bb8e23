package analytic_test

import (
	"container/heap"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/budgetsim/budgetsim/model/analytic"
	"github.com/budgetsim/budgetsim/model/ratelimit"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestTokenQueueMonteCarlo reserves Poisson calls of random token counts
// on a model/ratelimit TokenBucket, waiting for capacity in arrival order,
// and checks the closed forms of analytic.TokenQueue within the confidence
// interval of 20 replications: the bucket's backlog after each reservation
// has the M/G/1 mean sojourn (Pollaczek–Khinchine), and calls of a
// constant size on a bucket of that size wait the M/D/1 mean wait.
func TestTokenQueueMonteCarlo(t *testing.T) {
	const reps, calls, warmup = 20, 30000, 2000
	const rate = 750.0 // tokens per second: 45,000 per minute
	type cfg struct {
		name       string
		lo, hi     int // tokens uniform on {lo, …, hi}
		burst      int
		wantWait   bool // compare the wait (else the backlog)
		meanTokens float64
	}
	for _, c := range []cfg{
		{name: "uniform tokens, backlog = sojourn", lo: 100, hi: 900, burst: 900},
		{name: "constant tokens, wait = M/D/1 wait", lo: 600, hi: 600, burst: 600, wantWait: true},
	} {
		n := float64(c.hi - c.lo + 1)
		mean := float64(c.lo+c.hi) / 2
		m2 := (n*n-1)/12 + mean*mean
		q, err := analytic.TokenQueue(1, rate, mean, m2)
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		if c.wantWait {
			want, err = q.MeanWait()
		} else {
			want, err = q.MeanSojourn()
		}
		if err != nil {
			t.Fatal(err)
		}
		var means []float64
		for r := range reps {
			rng := rand.New(rand.NewPCG(2323, uint64(r)))
			b, err := ratelimit.NewTokenBucket(rate, c.burst)
			if err != nil {
				t.Fatal(err)
			}
			var now time.Duration
			var sum float64
			for i := range calls {
				now += seconds(rng.ExpFloat64())
				tokens := c.lo + rng.IntN(c.hi-c.lo+1)
				wait := b.ReserveAt(now, tokens)
				if i < warmup {
					continue
				}
				if c.wantWait {
					sum += wait.Seconds()
				} else {
					// Backlog: the time until the bucket is full again.
					sum += (float64(c.burst) - b.TokensAt(now)) * b.Interval().Seconds()
				}
			}
			means = append(means, sum/float64(calls-warmup))
		}
		ci := stats.MeanCI(means, level)
		t.Logf("%s: simulated %v, closed form %.4f", c.name, ci, want)
		if !ci.Contains(want) {
			t.Errorf("%s: simulated %v, closed form %v", c.name, ci, want)
		}
		if ci.RelativeHalfWidth() > 0.05 {
			t.Errorf("%s: interval %v too wide to test anything", c.name, ci)
		}
	}
}

// settleEvent is a call's end, when its actual usage is settled.
type settleEvent struct {
	at     time.Duration
	seq    int
	r      ratelimit.TokenReservation
	actual ratelimit.Usage
}

type settleHeap []settleEvent

func (h settleHeap) Len() int { return len(h) }
func (h settleHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}
func (h settleHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *settleHeap) Push(x any)   { *h = append(*h, x.(settleEvent)) }
func (h *settleHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TestTokenThroughputCapMonteCarlo offers more calls than the limits
// admit to a model/ratelimit TokenLimiter (rpm and tpm) through a client
// FIFO queue whose head reserves its input and max_tokens when the limiter
// admits it, and settles its actual output 2s later. The calls sent per
// second after the warm-up must match analytic.TokenLimits.CallCap on the
// actual mean usage (tpm binds), within the replications' interval.
func TestTokenThroughputCapMonteCarlo(t *testing.T) {
	limits := ratelimit.TokenLimits{RPM: 120, TPM: 30000}
	const (
		lambda    = 3.0 // offered calls per second
		maxTokens = 400
		latency   = 2 * time.Second
		warm      = 120 * time.Second
		horizon   = 720 * time.Second
		reps      = 10
	)
	// Input uniform on {100, …, 300}, output uniform on {0, …, 200}.
	want, binding, err := analytic.TokenLimits{RPM: 120, TPM: 30000}.CallCap(200, 100)
	if err != nil || binding != "tpm" {
		t.Fatalf("CallCap = %v %q %v, want tpm binding", want, binding, err)
	}
	var rates []float64
	for r := range reps {
		rng := rand.New(rand.NewPCG(2324, uint64(r)))
		m, err := ratelimit.NewTokenLimiter(limits)
		if err != nil {
			t.Fatal(err)
		}
		var queue []ratelimit.Usage // waiting calls: input and their max_tokens
		var settles settleHeap
		nextArr := seconds(rng.ExpFloat64() / lambda)
		wake := ratelimit.InfDuration // when the head of the queue tries again
		sent, seq := 0, 0
		for {
			now := min(nextArr, wake)
			if len(settles) > 0 && settles[0].at <= now {
				e := heap.Pop(&settles).(settleEvent)
				if err := m.Settle(e.at, e.r, e.actual); err != nil {
					t.Fatal(err)
				}
				if len(queue) > 0 {
					wake = e.at // tokens came back: the head tries again
				}
				continue
			}
			if now > horizon {
				break
			}
			if now == nextArr {
				queue = append(queue, ratelimit.Usage{Input: 100 + rng.IntN(201), Output: maxTokens})
				nextArr = now + seconds(rng.ExpFloat64()/lambda)
				if len(queue) == 1 {
					wake = now
				}
				continue
			}
			// The head tries: send every call the limiter admits now.
			wake = ratelimit.InfDuration
			for len(queue) > 0 {
				res, retry, ok, err := m.TryAcquireAt(now, queue[0])
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					wake = now + retry
					break
				}
				seq++
				heap.Push(&settles, settleEvent{at: now + latency, seq: seq, r: res,
					actual: ratelimit.Usage{Input: queue[0].Input, Output: rng.IntN(201)}})
				queue = queue[1:]
				if now >= warm {
					sent++
				}
			}
		}
		rates = append(rates, float64(sent)/(horizon-warm).Seconds())
	}
	ci := stats.MeanCI(rates, level)
	t.Logf("sent %v calls/s, CallCap %.4f (%s)", ci, want, binding)
	if !ci.Contains(want) {
		t.Errorf("sent %v calls/s, want the cap %v", ci, want)
	}
	if ci.RelativeHalfWidth() > 0.02 {
		t.Errorf("interval %v too wide to test anything", ci)
	}
}
