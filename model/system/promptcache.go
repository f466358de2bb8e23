package system

import (
	"time"

	"github.com/budgetsim/budgetsim/model/dist"
)

// Prompt caching. A model API with a PromptCache keeps the prefixes of
// recent prompts: a call whose input starts with a cached prefix reads
// those tokens from the cache (billed at the cache-read price, not
// prefilled, so its time to first token is shorter) and writes the rest
// of its cacheable prefix (billed at the cache-write price). The rules
// follow the providers' documentation (docs/agents.md): a prefix is
// cached only from MinTokens tokens; an entry lives TTL after it was
// written, and, with Refresh, TTL after its last use; and an entry can be
// read only once the call that writes it has started to answer (its time
// to first token), so parallel calls sent before the first response is
// back miss it.
//
// Two kinds of entries are kept:
//   - shared, per tool and prefix: the system prompt of an agent loop
//     (steps[].loop.context.system), or the tool's Prefix for calls
//     outside loops, common to every run;
//   - per run: the whole input of the run's last model call in its loop,
//     which the next turn's input starts with (its context only grows),
//     unless the window truncated it.

// PromptCache is a model API's prompt cache.
type PromptCache struct {
	// TTL is how long an entry lives after it is written (and, with
	// Refresh, after each use).
	TTL     time.Duration
	Refresh bool
	// MinTokens is the shortest cacheable prefix.
	MinTokens int64
	// Prefix is the shared prefix of calls outside agent loops, in tokens
	// (a system prompt common to every run; 0: none).
	Prefix int64
}

// cacheEntry is one cached prefix.
type cacheEntry struct {
	tokens     int64
	from, till time.Duration // readable in [from, till)
}

// valid reports whether e can be read at now.
func (e *cacheEntry) valid(now time.Duration) bool {
	return e.tokens > 0 && now >= e.from && now < e.till
}

// promptCaches is the prompt caches' state of a replication: the shared
// entries, per tool and per loop (index len(loops) for calls outside
// loops).
type promptCaches struct {
	shared [][]cacheEntry
}

// newPromptCaches returns the caches of cfg's tools, or nil when no tool
// has one.
func newPromptCaches(cfg *Config) *promptCaches {
	var pc *promptCaches
	for i := range cfg.Tools {
		if cfg.Tools[i].PromptCache != nil {
			if pc == nil {
				pc = &promptCaches{shared: make([][]cacheEntry, len(cfg.Tools))}
			}
			pc.shared[i] = make([]cacheEntry, len(cfg.Loops)+1)
		}
	}
	return pc
}

// cacheLookup decides how much of run ri's model call's input (tc.in) is
// read from the cache and how much written, at now, before the call is
// sent: li is its loop with a context (-1: none).
func (m *Model) cacheLookup(ri int32, r *run, tp *toolPlan, li int32, now time.Duration) {
	tc := &m.held[ri].tok
	pc := tp.promptCache
	tc.cacheRead, tc.cacheWrite = 0, 0
	if pc == nil || tc.in < pc.MinTokens {
		return
	}
	shared, slot := pc.Prefix, len(m.cfg.Loops)
	var own *cacheEntry
	if li >= 0 {
		shared, slot = m.loops.loops[li].Context.System, int(li)
		ls := m.loopRunOf(m.owner(ri, r))
		if ls.cacheTool == r.tool+1 && !tc.truncated {
			own = &ls.cache
		}
	}
	shared = min(shared, tc.in)
	hit := int64(0)
	if e := &m.caches.shared[r.tool][slot]; shared >= pc.MinTokens && e.valid(now) {
		hit = min(e.tokens, shared)
	}
	if own != nil && own.valid(now) {
		hit = max(hit, min(own.tokens, tc.in))
	}
	if hit < pc.MinTokens {
		hit = 0
	}
	tc.cacheRead = hit
	// What the call caches: its whole input in a loop (the next turn's
	// prefix), else the shared prefix.
	end := shared
	if li >= 0 {
		end = tc.in
	}
	if end >= pc.MinTokens && end > hit {
		tc.cacheWrite = end - hit
	}
}

// cacheCommit records run ri's model call, reaching its tool at now (sent,
// or served after the tool's queue) and starting to answer tc.first later:
// the entries it read are refreshed, and those it wrote become readable
// when it answers.
func (m *Model) cacheCommit(ri int32, r *run, tp *toolPlan, now time.Duration) {
	tc := &m.held[ri].tok
	pc := tp.promptCache
	li := m.tk.steps[r.step].loop
	first := now + tc.first
	if tc.in < pc.MinTokens {
		return
	}
	shared, slot := pc.Prefix, len(m.cfg.Loops)
	if li >= 0 {
		shared, slot = m.loops.loops[li].Context.System, int(li)
	}
	shared = min(shared, tc.in)
	if e := &m.caches.shared[r.tool][slot]; shared >= pc.MinTokens {
		switch {
		case e.valid(now):
			if pc.Refresh {
				e.till = max(e.till, now+pc.TTL)
			}
		case e.tokens == 0 || now >= e.till:
			// A new entry; one still being written (now < from) stands.
			*e = cacheEntry{tokens: shared, from: first, till: first + pc.TTL}
		}
	}
	if li >= 0 {
		// The run's entry becomes this call's whole input, which starts
		// with the entry it read.
		ls := m.loopRunOf(m.owner(ri, r))
		ls.cacheTool = r.tool + 1
		ls.cache = cacheEntry{tokens: tc.in, from: first, till: first + pc.TTL}
	}
}

// prefill is the time the uncached part of run ri's model call adds to its
// time to first token, drawn from the tool's PerInputToken (keyed like
// its other token draws, after them).
func (m *Model) prefill(ri int32, per dist.Dist) time.Duration {
	tc := &m.held[ri].tok
	return seconds(float64(per.Sample(m.tk.rng.Rand()) * float64(tc.in-tc.cacheRead)))
}
