package system

// spareCore is the one goroutine a simulation runs when a core is spare
// (Options.SpareCore). It fills the draw-ahead batches and applies the end
// log's batches, whichever has work, so that the simulation's goroutine
// never has two helpers competing with it: when the other core is busy
// elsewhere, the end log falls a ring behind, stops (endLog.put), and the
// goroutine goes on with the draws alone. It shares nothing with the
// simulation but the batches, handed over through channels whose buffers
// hold every batch of a ring, so that no send blocks.
type spareCore struct {
	done   chan struct{} // closed by stopSpare
	exited chan struct{} // closed when the goroutine returns
}

// startSpare starts the spare core's goroutine with what applies to this
// simulation: the draws made ahead of an open workload, and the end log
// of a plain one-step plan. It must run before the first arrival is
// scheduled, which reads the first batch of draws.
func (m *Model) startSpare() {
	var p *drawProducer
	if aheadApplies(m.cfg) {
		m.ahead, p = newDrawAhead(m.cfg, m.src, m.res.Seed, !m.plain)
	}
	if m.endFigures != nil {
		// Long: the run goes round the ring at least once.
		long := m.cfg.Runs-m.cfg.WarmupRuns >= endLogBatches*endLogRecs
		m.endLog = newEndLog(m.opt.endLogSwitchAt, long)
	}
	if m.ahead == nil && m.endLog == nil {
		return
	}
	s := &spareCore{done: make(chan struct{}), exited: make(chan struct{})}
	m.spare = s
	go s.run(m.ahead, p, m.endLog, m.endFigures)
}

// run serves the draws (a, p) and the end log (l, f) until both are done
// or stopSpare is called. A nil channel in a select is never ready: each
// side drops out by setting its channel to nil.
func (s *spareCore) run(a *drawAhead, p *drawProducer, l *endLog, f *endFigures) {
	defer close(s.exited)
	var drawFree chan *aheadBatch
	if a != nil {
		drawFree = a.free
	}
	var endFull chan *endBatch
	if l != nil {
		endFull = l.full
	}
	toMake := 0 // the log's free batches still to make (newEndLog)
	if l != nil {
		toMake = l.toMake
	}
	for drawFree != nil || endFull != nil {
		if toMake > 0 {
			select {
			case <-s.done:
				return
			default:
			}
			if len(drawFree) == 0 && len(endFull) == 0 {
				// Idle: make the log's next batch, its pages touched
				// here rather than at the simulation's first write.
				l.free <- newTouchedBatch()
				toMake--
				continue
			}
		}
		select {
		case b := <-drawFree:
			if p.fill(b) {
				drawFree = nil // the arrivals have ended
			}
			a.full <- b
		case b := <-endFull:
			if b == nil { // the log is stopped and everything before is applied
				close(l.done)
				endFull, toMake = nil, 0
				continue
			}
			for i := range b.n {
				f.add(&b.recs[i], true)
			}
			b.n = 0
			l.free <- b
		case <-s.done:
			return
		}
	}
}

// stopSpare ends the spare core's goroutine, if any, and waits for it. The
// end log must be stopped first (stopEndLog), so that nothing logged is
// left unapplied.
func (m *Model) stopSpare() {
	if m.spare == nil {
		return
	}
	close(m.spare.done)
	<-m.spare.exited
	m.spare, m.ahead = nil, nil
}
