package sim

import (
	"runtime"
	"sync"
)

// Parallel calls fn(i) for i in [0, n) on up to workers goroutines (0 means
// GOMAXPROCS) and returns the results in index order, so the output is the
// same whatever the degree of parallelism. Each fn(i) must build its own
// simulator and streams: nothing is shared between calls.
func Parallel[T any](n, workers int, fn func(i int) T) []T {
	out := make([]T, n)
	if n == 0 {
		return out
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > n {
		workers = n
	}
	if workers == 1 {
		for i := range n {
			out[i] = fn(i)
		}
		return out
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
