package system

// spareCore is the one goroutine a simulation runs when a core is spare
// (Options.SpareCore): it fills the draw-ahead batches (drawAhead). It
// shares nothing with the simulation but the batches, handed over through
// channels whose buffers hold every batch in circulation, so that no send
// blocks.
type spareCore struct {
	done   chan struct{} // closed by stopSpare
	exited chan struct{} // closed when the goroutine returns
}

// startSpare starts the spare core's goroutine when the scenario's draws
// can be made ahead (an open workload). It must run before the first
// arrival is scheduled, which reads the first batch of draws.
func (m *Model) startSpare() {
	if !aheadApplies(m.cfg) {
		return
	}
	var p *drawProducer
	m.arr.ahead, p = newDrawAhead(m.cfg, m.arr.src, m.res.Seed)
	s := &spareCore{done: make(chan struct{}), exited: make(chan struct{})}
	m.arr.spare = s
	go s.run(m.arr.ahead, p)
}

// run fills the draw batches (a, p) until the arrivals end or stopSpare
// is called.
func (s *spareCore) run(a *drawAhead, p *drawProducer) {
	defer close(s.exited)
	for {
		select {
		case b := <-a.free:
			last := p.fill(b)
			a.full <- b
			if last {
				return
			}
		case <-s.done:
			return
		}
	}
}

// stopSpare ends the spare core's goroutine, if any, and waits for it.
func (m *Model) stopSpare() {
	if m.arr.spare == nil {
		return
	}
	close(m.arr.spare.done)
	<-m.arr.spare.exited
	m.arr.spare, m.arr.ahead = nil, nil
}
