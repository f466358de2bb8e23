package system

import "math"

// ToolOffer is the load the arrivals alone offer one tool, from the
// scenario's own numbers (one call per step that names the tool, cache
// hits left out; retries only add to it), for tools that have a capacity.
type ToolOffer struct {
	// Tool indexes Config.Tools.
	Tool int
	// CallRate is the calls per second the arrivals need.
	CallRate float64
	// Utilisation is CallRate × mean latency / concurrency for a tool with
	// server-side concurrency, else 0.
	Utilisation float64
	// RateLimited reports whether a client-side rate limit allows fewer
	// calls per second than CallRate.
	RateLimited bool
	// TokenLoad, for a model API with per-minute limits, is what the
	// arrivals need of the limit nearest its allowance, TokenBinding
	// ("rpm", "tpm", "itpm" or "otpm"): the calls, or their mean tokens
	// (a step's own token counts, input_from an earlier step's mean)
	// counted as the tool's rate_limit.profile counts them
	// (stepTokenCharges), per minute over the limit. At 1 or more the limit caps the calls
	// below what the arrivals send, whatever the workers
	// (model/analytic's TokenLimits.CallCap).
	TokenLoad    float64
	TokenBinding string
}

// OfferedToolLoads returns the offered load of each tool with server-side
// concurrency or a rate limit (enforced by either side), in Config.Tools order; nil when
// the arrival process has no rate (batches, closed populations).
func OfferedToolLoads(cfg *Config) []ToolOffer {
	if cfg.Arrivals.Process == Batch || cfg.Arrivals.Process == Closed || cfg.Arrivals.Rate <= 0 {
		return nil
	}
	var out []ToolOffer
	steps, shares := cfg.PlanSteps(), cfg.stepShares()
	tokIn, tokOut := cfg.stepTokenMeans(steps)
	charges := cfg.stepTokenCharges(steps, tokIn, tokOut)
	for i := range cfg.Tools {
		t := &cfg.Tools[i]
		calls, inTokens, outTokens, busy := 0.0, 0.0, 0.0, 0.0
		for j, st := range steps {
			if st.Tool == i {
				calls += shares[j]
				inTokens += float64(shares[j] * tokIn[j])
				outTokens += float64(shares[j] * tokOut[j])
				busy += float64(shares[j] * cfg.stepMeanLatency(st))
			}
		}
		tpm, itpm, otpm := inTokens+outTokens, inTokens, outTokens
		if charges[i] != nil {
			tpm, itpm, otpm = 0, 0, 0
			for j, st := range steps {
				if st.Tool == i {
					tpm += float64(shares[j] * charges[i][j].tpm)
					itpm += float64(shares[j] * charges[i][j].itpm)
					otpm += float64(shares[j] * charges[i][j].otpm)
				}
			}
		}
		if t.Cache != nil {
			calls *= 1 - t.Cache.HitRatio
			tpm *= 1 - t.Cache.HitRatio
			itpm *= 1 - t.Cache.HitRatio
			otpm *= 1 - t.Cache.HitRatio
			busy *= 1 - t.Cache.HitRatio
		}
		o := ToolOffer{Tool: i, CallRate: cfg.Arrivals.Rate * calls}
		if o.CallRate <= 0 {
			continue
		}
		if t.Concurrency > 0 {
			o.Utilisation = cfg.Arrivals.Rate * busy / float64(t.Concurrency)
		}
		rl := t.RateLimit
		o.RateLimited = rl != nil && rl.Client && o.CallRate > rl.Rate
		if tl := t.TokenLimit; tl != nil {
			perMinute := 60 * cfg.Arrivals.Rate
			for _, l := range []struct {
				name  string
				limit int
				need  float64
			}{
				{"rpm", tl.Limits.RPM, calls},
				{"tpm", tl.Limits.TPM, tpm},
				{"itpm", tl.Limits.ITPM, itpm},
				{"otpm", tl.Limits.OTPM, otpm},
			} {
				if l.limit <= 0 {
					continue
				}
				if load := perMinute * l.need / float64(l.limit); load > o.TokenLoad {
					o.TokenLoad, o.TokenBinding = load, l.name
				}
			}
		}
		if t.Concurrency > 0 || rl != nil || t.TokenLimit != nil {
			out = append(out, o)
		}
	}
	return out
}

// OfferedUtilisation estimates ρ = λ·E[service per run]/workers from the
// scenario's own numbers, counting one attempt per step (retries only add to
// it). ok is false when the arrival process has no rate.
func OfferedUtilisation(cfg *Config) (rho float64, ok bool) {
	if cfg.Arrivals.Process == Batch || cfg.Arrivals.Process == Closed || cfg.Arrivals.Rate <= 0 {
		return 0, false
	}
	var service float64
	shares := cfg.stepShares()
	for j, st := range cfg.PlanSteps() {
		mean := cfg.stepMeanLatency(st)
		if st.Timeout > 0 {
			mean = math.Min(mean, st.Timeout.Seconds())
		}
		service += float64(shares[j] * mean)
	}
	return cfg.Arrivals.Rate * service / float64(cfg.Workers), true
}

// stepMeanLatency is the mean latency of one call of step st: its tool's
// (Tool.MeanLatency), with the step's own output tokens, when it has them,
// timing a model API's per-output-token phase.
func (c *Config) stepMeanLatency(st Step) float64 {
	t := &c.Tools[st.Tool]
	tk := t.Tokens
	if tk == nil || tk.PerOutputToken == nil || st.Tokens == nil || st.Tokens.Output == nil {
		return t.MeanLatency()
	}
	out := st.Tokens.Output.Mean()
	if tk.MaxOutput > 0 {
		out = math.Min(out, float64(tk.MaxOutput))
	}
	return t.Latency.Mean() + float64(tk.PerOutputToken.Mean()*out)
}

// stepTokenMeans returns the mean input and output tokens of one call of
// each step of steps (PlanSteps), 0 for a tool without tokens: the step's
// own distributions or its tool's, an input_from following the earlier
// step's mean (within the same plan: the top-level steps or one class's),
// outputs cut to max_output. The means are of the distributions, before
// the simulation rounds each draw to whole tokens.
func (c *Config) stepTokenMeans(steps []Step) (in, out []float64) {
	in, out = make([]float64, len(steps)), make([]float64, len(steps))
	first := 0 // where the plan of step j starts
	ends := []int{len(c.Steps)}
	for k := range c.Classes {
		ends = append(ends, ends[len(ends)-1]+len(c.Classes[k].Steps))
	}
	for j, st := range steps {
		for len(ends) > 0 && j >= ends[0] {
			first, ends = ends[0], ends[1:]
		}
		tk := c.Tools[st.Tool].Tokens
		if tk == nil {
			continue
		}
		iDist, oDist := tk.Input, tk.Output
		if s := st.Tokens; s != nil {
			if s.Input != nil {
				iDist = s.Input
			}
			if s.Output != nil {
				oDist = s.Output
			}
		}
		if iDist != nil {
			in[j] = math.Max(iDist.Mean(), 0)
		}
		if oDist != nil {
			out[j] = math.Max(oDist.Mean(), 0)
			if tk.MaxOutput > 0 {
				out[j] = math.Min(out[j], float64(tk.MaxOutput))
			}
		}
		if s := st.Tokens; s != nil && s.InputFrom >= 0 && first+s.InputFrom < j {
			from := out[first+s.InputFrom]
			if s.FromInput {
				from = in[first+s.InputFrom]
			}
			in[j] = float64(s.Scale*from) + float64(s.Plus)
		}
	}
	return in, out
}

// CallTime is the service time of one call to a tool, as the plan's steps
// ask for it: the mean over the steps that call the tool, weighted by how
// often each is called, and the squared coefficient of variation of that
// mixture (Var/Mean², +Inf when a latency has infinite variance).
type CallTime struct {
	Mean float64
	SCV  float64
}

// CallTimes returns the mean service time of a call to each tool, in
// Config.Tools order: the steps' own (stepMeanLatency: the time to first
// token plus the per-token time of the step's output tokens, for a model
// API), weighted by the steps' calls per run; a tool that no step names
// (a fallback only) gets its own MeanLatency. Multiplied by the calls that
// actually reached the tool, retries and hedges included, it gives the
// load the tool was offered.
func CallTimes(cfg *Config) []CallTime {
	out := make([]CallTime, len(cfg.Tools))
	steps, shares := cfg.PlanSteps(), cfg.stepShares()
	w := make([]float64, len(cfg.Tools))
	second := make([]float64, len(cfg.Tools))
	for j, st := range steps {
		m, v := cfg.stepLatencyMoments(st)
		out[st.Tool].Mean += float64(shares[j] * m)
		second[st.Tool] += float64(shares[j] * (v + float64(m*m)))
		w[st.Tool] += shares[j]
	}
	for i := range out {
		if w[i] <= 0 {
			m := cfg.Tools[i].MeanLatency()
			out[i] = CallTime{Mean: m, SCV: math.Inf(1)}
			if v := cfg.Tools[i].Latency.Variance(); cfg.Tools[i].Tokens == nil && m > 0 {
				out[i].SCV = v / (m * m)
			}
			continue
		}
		m := out[i].Mean / w[i]
		out[i] = CallTime{Mean: m, SCV: math.Inf(1)}
		if m > 0 {
			out[i].SCV = max(second[i]/w[i]-float64(m*m), 0) / float64(m*m)
		}
	}
	return out
}

// stepLatencyMoments returns the mean (stepMeanLatency) and variance of
// one call's latency at step st: for a model API with a per-token time
// and output tokens, ttft + per-token × output, the three independent.
func (c *Config) stepLatencyMoments(st Step) (mean, variance float64) {
	t := &c.Tools[st.Tool]
	mean, variance = c.stepMeanLatency(st), t.Latency.Variance()
	tk := t.Tokens
	if tk == nil || tk.PerOutputToken == nil {
		return mean, variance
	}
	od := tk.Output
	if st.Tokens != nil && st.Tokens.Output != nil {
		od = st.Tokens.Output
	}
	if od == nil {
		return mean, variance
	}
	mo, vo := od.Mean(), od.Variance()
	if tk.MaxOutput > 0 && mo > float64(tk.MaxOutput) {
		mo, vo = float64(tk.MaxOutput), 0
	}
	mp, vp := tk.PerOutputToken.Mean(), tk.PerOutputToken.Variance()
	return mean, variance + float64(vp*vo) + float64(vp*mo*mo) + float64(vo*mp*mp)
}
