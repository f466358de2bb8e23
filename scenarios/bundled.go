package scenarios

import (
	"embed"
	"sort"
	"strings"
)

// bundled holds the scenarios shipped with budgetsim, so that they run by
// name from any directory.
//
//go:embed *.yaml
var bundled embed.FS

// Names returns the bundled scenarios' names, sorted.
func Names() []string {
	entries, _ := bundled.ReadDir(".")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func sortStrings(xs []string) { sort.Strings(xs) }
