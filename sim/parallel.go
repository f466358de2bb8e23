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

// ParallelEach calls fn(i) for i in [0, n) on up to workers goroutines (0
// means GOMAXPROCS), like Parallel, but hands each result to each(i, v) in
// index order, on the caller's goroutine, as soon as it and every earlier
// one are done, instead of returning them all. At most window results (at
// least workers) are computed ahead of the next one to hand over, so a
// caller that folds results as they come holds a bounded number at once.
// What each sees does not depend on workers or window.
func ParallelEach[T any](n, workers, window int, fn func(i int) T, each func(i int, v T)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(n, 1))
	window = max(window, workers)
	if workers == 1 {
		for i := range n {
			each(i, fn(i))
		}
		return
	}
	type item struct {
		i int
		v T
	}
	jobs := make(chan int)
	done := make(chan item)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				done <- item{i, fn(i)}
			}
		}()
	}
	buf := make(map[int]T, window)
	sent, next := 0, 0
	for next < n {
		var send chan int
		if sent < n && sent < next+window {
			send = jobs
		}
		select {
		case send <- sent:
			sent++
		case it := <-done:
			buf[it.i] = it.v
			for {
				v, ok := buf[next]
				if !ok {
					break
				}
				delete(buf, next)
				each(next, v)
				next++
			}
		}
	}
	close(jobs)
	wg.Wait()
}
