package system_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/sim/stats"
)

// TestCheckAgainst: a result of Run fits its scenario; each damage a
// hand-edited or corrupt shard file could carry is refused with a message
// naming what is wrong, before Summarize would index past a table or loop
// forever coarsening a series.
func TestCheckAgainst(t *testing.T) {
	cfg := load(t, "seed-plan")
	fresh := func() *system.Result { return system.New(cfg, system.Options{}).Run() }
	if err := fresh().CheckAgainst(cfg); err != nil {
		t.Fatalf("a result of Run: %v", err)
	}
	otherTail := func() system.Tail {
		c := load(t, "mmc", "runs=2000", "warmup=100")
		return system.New(c, system.Options{}).Run().Tail
	}()
	for _, tc := range []struct {
		name, want string
		damage     func(r *system.Result)
	}{
		{"no latency", "no latency or wait", func(r *system.Result) { r.Latency = nil }},
		{"no wait", "no latency or wait", func(r *system.Result) { r.Wait = nil }},
		{"no series", "no time series", func(r *system.Result) { r.Series = nil }},
		{"zero width", "bin width 0 ns", func(r *system.Result) { r.Series.Width = 0 }},
		{"huge width", "bin width", func(r *system.Result) { r.Series.Width = math.MaxInt64 }},
		{"series tools", "time series has 9 tools", func(r *system.Result) { r.Series.ToolBusy = make([][]float64, 9) }},
		{"steps", "per-step tables", func(r *system.Result) { r.StepLatency = r.StepLatency[:1] }},
		{"step timeouts", "per-step tables", func(r *system.Result) { r.StepTimeouts = append(r.StepTimeouts, 0) }},
		{"tools", "per-tool tables", func(r *system.Result) { r.Tools = nil }},
		{"tool delay", "per-tool tables", func(r *system.Result) { r.ToolDelay = []*stats.Histogram{nil} }},
		{"tail stages", "tail breakdown has 3 stages", func(r *system.Result) { r.Tail = otherTail }},
	} {
		r := fresh()
		tc.damage(r)
		err := r.CheckAgainst(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckAgainst = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestTailRefusesBandsOutOfRange: a tail table whose bands lie outside
// what a latency can fall in is refused at decoding (merging it would grow
// the band window toward 2^32 entries).
func TestTailRefusesBandsOutOfRange(t *testing.T) {
	enc := func(lo int64, nb uint64) []byte {
		b := binary.AppendUvarint(nil, 2) // stages
		b = binary.AppendVarint(b, lo)
		b = binary.AppendUvarint(b, nb)
		for range nb {
			b = binary.AppendVarint(b, 1)
		}
		b = append(b, make([]byte, 8*int(nb)*2+8)...) // sums, P99
		b = binary.AppendVarint(b, 0)                 // N
		return append(b, make([]byte, 8*2)...)        // stages
	}
	var tl system.Tail
	lo := int64(math.Float64bits(1.0) >> 46) // the band of 1 s
	if err := tl.UnmarshalBinary(enc(lo, 3)); err != nil {
		t.Fatalf("bands around 1 s: %v", err)
	}
	for _, lo := range []int64{-1 << 31, 0, 1 << 20, 1<<31 - 2} {
		if err := tl.UnmarshalBinary(enc(lo, 3)); err == nil {
			t.Errorf("bands from %d decoded without error", lo)
		}
	}
}

// TestCheckAgainstGroups: a result of a scenario with parallel steps fits
// it (its tail breakdown has a stage per group), and one whose groups,
// token or breaker tables do not match is refused.
func TestCheckAgainstGroups(t *testing.T) {
	cfg := load(t, "fan-out", "runs=1500", "warmup=100")
	fresh := func() *system.Result { return system.New(cfg, system.Options{}).Run() }
	if err := fresh().CheckAgainst(cfg); err != nil {
		t.Fatalf("a result of Run: %v", err)
	}
	for _, tc := range []struct {
		name, want string
		damage     func(r *system.Result)
	}{
		{"groups", "groups", func(r *system.Result) { r.Groups = r.Groups[:0] }},
		{"group latency", "groups", func(r *system.Result) { r.Groups[0].Latency = nil }},
		{"tokens", "token figures for 1 tools", func(r *system.Result) { r.Tokens = make([]system.TokenStats, 1) }},
		{"breakers", "circuit breaker figures for 9 tools", func(r *system.Result) { r.Breakers = make([]system.BreakerStats, 9) }},
	} {
		r := fresh()
		tc.damage(r)
		err := r.CheckAgainst(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckAgainst = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
