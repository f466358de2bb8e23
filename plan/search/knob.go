package search

import (
	"fmt"
	"strings"
)

// Knob is one dimension of a grid of configurations: a scenario key and
// the values to try, or a tier, a named bundle of overrides set together
// (a provider's plan: its rate limits and its prices).
type Knob struct {
	// Key is the scenario key ("tools.model.concurrency"), or "tier" for
	// the bundles of --tier.
	Key string `json:"key"`
	// Settings are the values tried, in the order given.
	Settings []Setting `json:"settings"`
}

// Setting is one value of a knob: its label as the user wrote it ("16",
// "5m", a tier's name) and the overrides it applies.
type Setting struct {
	Label string   `json:"label"`
	Sets  []string `json:"sets"`
}

// TierKey is the Key of the knob made of a variants file's tiers.
const TierKey = "tier"

// checkKnobs returns an error when two knobs set the same key (the grid
// would set it twice in one configuration).
func checkKnobs(knobs []Knob) error {
	owner := map[string]string{}
	for _, k := range knobs {
		name := k.Key
		for _, st := range k.Settings {
			for _, set := range st.Sets {
				key, _, _ := strings.Cut(set, "=")
				if o, ok := owner[key]; ok && o != name {
					return fmt.Errorf("%s is set by two knobs (%s and %s): give it once", key, o, name)
				}
				owner[key] = name
			}
		}
	}
	return nil
}

// ShortNames returns a column name for each knob: the shortest dotted
// suffix of its key that no other knob's key ends with ("concurrency",
// "ttl"), so a table of several knobs fits a terminal.
func ShortNames(knobs []Knob) []string {
	out := make([]string, len(knobs))
	for i, k := range knobs {
		parts := strings.Split(k.Key, ".")
		out[i] = k.Key
		for n := 1; n <= len(parts); n++ {
			suffix := strings.Join(parts[len(parts)-n:], ".")
			clash := false
			for j, o := range knobs {
				if j != i && (o.Key == suffix || strings.HasSuffix(o.Key, "."+suffix)) {
					clash = true
				}
			}
			if !clash {
				out[i] = suffix
				break
			}
		}
	}
	return out
}
