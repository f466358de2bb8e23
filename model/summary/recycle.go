package summary

import "github.com/budgetsim/budgetsim/model/system"

// Recycle hands a's histograms, time series and tail bands to later
// simulations in this process, like system.Result.Recycle. Call it when
// nothing will read a again: not its Summary, Latency, Wait nor StepCalls,
// which it leaves nil.
func (a *Accumulator) Recycle() {
	system.RecycleHistogram(a.lat)
	system.RecycleHistogram(a.wait)
	a.lat, a.wait = nil, nil
	for i := range a.steps {
		system.RecycleHistogram(a.steps[i].Latency)
		a.steps[i].Latency = nil
	}
	for i := range a.tools {
		system.RecycleHistogram(a.tools[i].delay)
		a.tools[i].delay = nil
	}
	a.recycleClasses()
	system.RecycleSeries(a.series)
	a.series = nil
	a.tail.Release()
}
