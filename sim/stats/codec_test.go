package stats_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/sim/stats"
)

// codecCases are histograms that exercise every part of the encodings:
// empty, zeros only (underflow), one value, the overflow bucket, subnormals,
// the extremes of float64 and ordinary latencies.
func codecCases() map[string]*stats.Histogram {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := map[string]*stats.Histogram{}
	add := func(name string, xs ...float64) {
		h := stats.NewHistogram()
		for _, x := range xs {
			h.Add(x)
		}
		cases[name] = h
	}
	add("empty")
	add("zeros", 0, 0, 0)
	add("one", 0.25)
	add("underflow and overflow", 0x1p-40, 1, 0x1p40)
	add("subnormals", 0x1p-1074, 0x1p-1060, math.SmallestNonzeroFloat64)
	add("max float", math.MaxFloat64, 1)
	lat := stats.NewHistogram()
	for range 20000 {
		lat.Add(rng.ExpFloat64() * 0.2)
	}
	cases["20000 exponential latencies"] = lat
	many := stats.NewHistogram()
	many.AddN(1.5, 1<<40)
	many.AddN(3, 7)
	cases["AddN 2^40"] = many
	huge := stats.NewHistogram()
	huge.Add(math.MaxFloat64)
	huge.Add(math.MaxFloat64) // Sum is +Inf; the exact sum is still finite
	cases["sum overflows float64"] = huge
	return cases
}

// TestCodecRoundTrip: decoding an encoded histogram gives one == to the
// original, for both forms, so Quantile, Mean and Merge cannot tell them
// apart.
func TestCodecRoundTrip(t *testing.T) {
	for name, h := range codecCases() {
		t.Run(name, func(t *testing.T) {
			bin, err := h.MarshalBinary()
			if err != nil {
				t.Fatalf("MarshalBinary() error %v", err)
			}
			var fromBin stats.Histogram
			if err := fromBin.UnmarshalBinary(bin); err != nil {
				t.Fatalf("UnmarshalBinary(MarshalBinary()) error %v", err)
			}
			if fromBin != *h {
				t.Errorf("UnmarshalBinary(MarshalBinary(h)) != h (count %d vs %d, sum %v vs %v)", fromBin.Count(), h.Count(), fromBin.Sum(), h.Sum())
			}
			js, err := json.Marshal(h)
			if err != nil {
				t.Fatalf("json.Marshal(h) error %v", err)
			}
			var fromJSON stats.Histogram
			if err := json.Unmarshal(js, &fromJSON); err != nil {
				t.Fatalf("json.Unmarshal(json.Marshal(h)) error %v\n%s", err, js)
			}
			if fromJSON != *h {
				t.Errorf("json round trip != h (count %d vs %d, sum %v vs %v)", fromJSON.Count(), h.Count(), fromJSON.Sum(), h.Sum())
			}
			// Re-encoding is stable: the encodings are canonical.
			bin2, _ := fromJSON.MarshalBinary()
			if !bytes.Equal(bin, bin2) {
				t.Errorf("MarshalBinary after a JSON round trip differs")
			}
		})
	}
}

// TestCodecMergeAcrossMachines: merging decoded shards equals recording
// everything in one histogram, which is what simulate merge relies on.
func TestCodecMergeAcrossMachines(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	all := stats.NewHistogram()
	merged := stats.NewHistogram()
	for range 5 {
		shard := stats.NewHistogram()
		for range 1000 {
			x := rng.ExpFloat64()
			shard.Add(x)
			all.Add(x)
		}
		js, _ := json.Marshal(shard)
		var back stats.Histogram
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		merged.Merge(&back)
	}
	if *merged != *all {
		t.Errorf("merge of decoded shards: mean %v p99 %v, want mean %v p99 %v", merged.Mean(), merged.Quantile(0.99), all.Mean(), all.Quantile(0.99))
	}
}

// TestCodecSize: only non-empty buckets are written, so a latency histogram
// is kilobytes, not the 66 KB held in memory.
func TestCodecSize(t *testing.T) {
	h := codecCases()["20000 exponential latencies"]
	bin, _ := h.MarshalBinary()
	js, _ := json.Marshal(h)
	if len(bin) > 4000 || len(js) > 30000 {
		t.Errorf("encoded sizes: binary %d bytes, JSON %d bytes; want ≤ 4000 and ≤ 30000", len(bin), len(js))
	}
}

// TestUnmarshalJSONErrors: each corruption is refused with a message naming
// the field, and the destination is left unchanged.
func TestUnmarshalJSONErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not JSON", `{"count":`, "unexpected end"},
		{"geometry", `{"sub_buckets":64,"count":0,"sum_exact":"0x0p0","bucket_low":[],"bucket_count":[]}`, "sub_buckets"},
		{"lengths", `{"sub_buckets":128,"count":1,"min":1,"max":1,"sum_exact":"0x1p0","bucket_low":[1],"bucket_count":[]}`, "bucket_low has 1 entries but bucket_count has 0"},
		{"count mismatch", `{"sub_buckets":128,"count":2,"min":1,"max":1,"sum_exact":"0x2p0","bucket_low":[1],"bucket_count":[1]}`, "count: 2, but the bucket counts add up to 1"},
		{"not an edge", `{"sub_buckets":128,"count":1,"min":1.001,"max":1.001,"sum_exact":"0x1p0","bucket_low":[1.001],"bucket_count":[1]}`, "bucket_low[0]: 1.001 is not the lower edge"},
		{"unordered", `{"sub_buckets":128,"count":2,"min":1,"max":2,"sum_exact":"0x3p0","bucket_low":[2,1],"bucket_count":[1,1]}`, "increasing order"},
		{"zero count", `{"sub_buckets":128,"count":1,"min":1,"max":1,"sum_exact":"0x1p0","bucket_low":[1,2],"bucket_count":[1,0]}`, "count 0"},
		{"min outside", `{"sub_buckets":128,"count":1,"min":3,"max":3,"sum_exact":"0x3p0","bucket_low":[1],"bucket_count":[1]}`, "min: 3 is not in the first non-empty bucket"},
		{"max below min", `{"sub_buckets":128,"count":2,"min":2,"max":1,"sum_exact":"0x3p0","bucket_low":[1,2],"bucket_count":[1,1]}`, "max: must be finite and >= min"},
		{"sum too large", `{"sub_buckets":128,"count":1,"min":1,"max":1,"sum_exact":"0x5p0","bucket_low":[1],"bucket_count":[1]}`, "sum: 5 is outside [count×min, count×max]"},
		{"sum disagrees", `{"sub_buckets":128,"count":1,"min":1,"max":1,"sum":2,"sum_exact":"0x1p0","bucket_low":[1],"bucket_count":[1]}`, "sum: 2 does not match sum_exact"},
		{"sum syntax", `{"sub_buckets":128,"count":0,"sum_exact":"12","bucket_low":[],"bucket_count":[]}`, "sum_exact: \"12\" is not of the form"},
		{"sum below 2^-1074", `{"sub_buckets":128,"count":0,"sum_exact":"0x1p-1080","bucket_low":[],"bucket_count":[]}`, "not a multiple of 2^-1074"},
		{"empty with sum", `{"sub_buckets":128,"count":0,"sum_exact":"0x1p0","bucket_low":[],"bucket_count":[]}`, "for an empty histogram"},
		{"missing min", `{"sub_buckets":128,"count":1,"sum_exact":"0x1p0","bucket_low":[1],"bucket_count":[1]}`, "min and max are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := stats.NewHistogram()
			h.Add(42)
			before := *h
			err := h.UnmarshalJSON([]byte(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("UnmarshalJSON(%s) = %v, want an error containing %q", tt.json, err, tt.want)
			}
			if *h != before {
				t.Errorf("UnmarshalJSON(%s) changed the histogram on error", tt.json)
			}
		})
	}
}

// TestUnmarshalBinaryCorrupt: every truncation, and flipped bytes, give an
// error or a valid histogram, never a panic or an inconsistent value.
func TestUnmarshalBinaryCorrupt(t *testing.T) {
	h := codecCases()["underflow and overflow"]
	bin, _ := h.MarshalBinary()
	for n := range len(bin) {
		var g stats.Histogram
		if err := g.UnmarshalBinary(bin[:n]); err == nil {
			t.Errorf("UnmarshalBinary(first %d of %d bytes) = nil, want an error", n, len(bin))
		}
	}
	var g stats.Histogram
	if err := g.UnmarshalBinary(append(bin, 0)); err == nil || !strings.Contains(err.Error(), "trailing") {
		t.Errorf("UnmarshalBinary(with a trailing byte) = %v, want a trailing-bytes error", err)
	}
	if err := g.UnmarshalBinary([]byte{'H', 9}); err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("UnmarshalBinary(version 9) = %v, want a version error", err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		b := bytes.Clone(bin)
		b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
		var g stats.Histogram
		if g.UnmarshalBinary(b) == nil {
			checkConsistent(t, &g)
		}
	}
}

// checkConsistent verifies the invariants a decoded histogram must satisfy.
func checkConsistent(t *testing.T, g *stats.Histogram) {
	t.Helper()
	if g.Count() == 0 {
		return
	}
	q := g.Quantile(0.5)
	if !(g.Min() <= q && q <= g.Max()) || g.Sum() < g.Min() {
		t.Errorf("decoded corrupt histogram is inconsistent: min %v median %v max %v sum %v", g.Min(), q, g.Max(), g.Sum())
	}
}

// FuzzUnmarshalBinary: no input panics, and whatever decodes re-encodes to
// the same bytes' meaning.
func FuzzUnmarshalBinary(f *testing.F) {
	for _, h := range codecCases() {
		b, _ := h.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var g stats.Histogram
		if g.UnmarshalBinary(b) != nil {
			return
		}
		checkConsistent(t, &g)
		again, _ := g.MarshalBinary()
		var g2 stats.Histogram
		if err := g2.UnmarshalBinary(again); err != nil || g2 != g {
			t.Fatalf("re-encoding a decoded histogram does not round-trip: %v", err)
		}
	})
}

// BenchmarkHistogramMarshalBinary measures encoding a 20000-sample
// latency histogram.
func BenchmarkHistogramMarshalBinary(b *testing.B) {
	h := codecCases()["20000 exponential latencies"]
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = h.AppendBinary(buf[:0])
	}
}

func ExampleHistogram_MarshalJSON() {
	h := stats.NewHistogram()
	h.Add(0.5)
	h.Add(0.5)
	h.Add(3)
	b, _ := json.Marshal(h)
	fmt.Println(string(b))
	var back stats.Histogram
	if err := json.Unmarshal(b, &back); err != nil {
		fmt.Println(err)
	}
	// The median reads the midpoint of the bucket [0.5, 0.50390625).
	fmt.Println(back == *h, back.Quantile(0.5), back.Mean())
	// Output:
	// {"sub_buckets":128,"count":3,"min":0.5,"max":3,"sum":4,"sum_exact":"0x1p2","bucket_low":[0.5,3],"bucket_count":[2,1]}
	// true 0.501953125 1.3333333333333333
}
