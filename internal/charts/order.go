package charts

import (
	"math"
	"time"
)

// variantIndex keeps variants (or tools, or stages) in order of first
// appearance: the order the charts draw and colour them in.
type variantIndex struct {
	names []string
	index map[string]int
}

func (v *variantIndex) of(name string) (i int, isNew bool) {
	if v.index == nil {
		v.index = map[string]int{}
	}
	if i, ok := v.index[name]; ok {
		return i, false
	}
	v.index[name] = len(v.names)
	v.names = append(v.names, name)
	return len(v.names) - 1, true
}

// secondsToDuration rounds seconds to the nearest nanosecond; ok is false
// beyond time.Duration's range (about 292 years).
func secondsToDuration(s float64) (time.Duration, bool) {
	ns := math.Round(s * 1e9)
	if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
		return 0, false
	}
	return time.Duration(ns), true
}
