package system

// NewGeneral is New with the plain path off: tests compare the two paths.
func NewGeneral(cfg *Config, opt Options) *Model {
	opt.general = true
	return New(cfg, opt)
}

// TakesPlainPath reports whether cfg, simulated with opt, takes the plain
// path.
func TakesPlainPath(cfg *Config, opt Options) bool { return plainApplies(cfg, opt) }
