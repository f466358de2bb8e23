package calibrate

import "github.com/budgetsim/budgetsim/calibrate/sample"

func newRes(cap int, seed uint64) *sample.Reservoir { return sample.New(cap, seed, "runs\x00e2e") }
