package system

// NewGeneral is New with the plain path off: tests compare the two paths.
func NewGeneral(cfg *Config, opt Options) *Model {
	opt.general = true
	return New(cfg, opt)
}

// WithEndLogSwitch returns opt with a spare core whose end log stops after
// n records, as it does when its applier falls a ring behind.
func WithEndLogSwitch(opt Options, n int64) Options {
	opt.SpareCore = true
	opt.endLogSwitchAt = n
	return opt
}

// TakesPlainPath reports whether cfg, simulated with opt, takes the plain
// path.
func TakesPlainPath(cfg *Config, opt Options) bool { return plainApplies(cfg, opt) }
