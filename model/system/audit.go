package system

import "fmt"

// Audit returns the first bookkeeping violation the model found while it
// ran with Options.Audit, or nil. Call it after Run.
func (m *Model) Audit() error { return m.auditErr }

// auditf records a violation, keeping the first.
func (m *Model) auditf(format string, args ...any) {
	if m.auditErr == nil {
		m.auditErr = fmt.Errorf("at %v: "+format, append([]any{m.s.Now()}, args...)...)
	}
}
