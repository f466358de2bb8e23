package main

import (
	"strings"
	"testing"
)

// TestVersion: --version prints the build, before or after a directory.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"results", "-version"}} {
		out, errOut, code := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(out, "plot ") || !strings.Contains(out, "module github.com/budgetsim/budgetsim\n") || errOut != "" {
			t.Errorf("plot %s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, out, errOut)
		}
	}
}
