package system

import "time"

// Stage rows: the time a run spent in each stage (queue, each step, each
// parallel step, backoff), for the tail breakdown. A run takes a row when
// it arrives and gives it back when it ends; the members of its parallel
// and hedged steps, which hold run slots of their own, take none (their
// spans go to their parent's row, memberSpan). So the rows in use are the
// runs in the system, each as long as the plan's stages, and not the plan's
// stages for every member's slot, which made a wide parallel step's state
// quadratic in its members.

// stageBlock is how many rows are allocated at once.
const stageBlock = 64

// takeStages gives run slot ri a cleared stage row.
func (m *Model) takeStages(ri int32) {
	n := len(m.stagePool)
	if n == 0 {
		slab := make([]time.Duration, stageBlock*m.nStages)
		for i := range stageBlock {
			m.stagePool = append(m.stagePool, slab[i*m.nStages:(i+1)*m.nStages:(i+1)*m.nStages])
		}
		n = stageBlock
	}
	m.stages[ri] = m.stagePool[n-1]
	m.stagePool = m.stagePool[:n-1]
}

// putStages takes run slot ri's row back, cleared, if it has one.
func (m *Model) putStages(ri int32) {
	if st := m.stages[ri]; st != nil {
		clear(st)
		m.stagePool = append(m.stagePool, st)
		m.stages[ri] = nil
	}
}
