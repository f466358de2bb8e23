package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestUsageGolden pins what a person sees after a usage mistake: one line
// naming the mistake (with the closest command or flag when it is a typo)
// and one line saying where the usage is, exit status 2, never pages of
// usage; and "help COMMAND" prints that command's flags on stdout.
func TestUsageGolden(t *testing.T) {
	var b strings.Builder
	for _, args := range [][]string{
		{"runn", "mmc"},
		{"compar", "mmc"},
		{"frobnicate"},
		{"run", "mmc", "--sed", "3"},
		{"sweep", "mmc", "--vary", "workers=10..12", "--replicatoins", "4"},
		{"list", "-x"},
		{"run", "mmc", "--seed", "x"},
		{"help", "runn"},
		{"help", "run", "sweep"},
		{"sweep", "mmc", "--vary", "arrivals.rate=1/s..5/s"},
		{"run", "mmc", "--unset", "retry.budget"},
	} {
		out, errOut, code := runCLI(t, "", args...)
		fmt.Fprintf(&b, "$ simulate %s\n%s%s[exit %d]\n\n", strings.Join(args, " "), out, errOut, code)
		if code != 2 && code != 1 {
			t.Errorf("simulate %s: exit %d, want a usage or input error", strings.Join(args, " "), code)
		}
		if n := strings.Count(errOut, "\n"); n > 2 {
			t.Errorf("simulate %s: %d lines on stderr, want the mistake and a hint:\n%s", strings.Join(args, " "), n, errOut)
		}
	}
	golden(t, "usage_errors.txt", b.String())
}

// TestHelpCommand: "help COMMAND" prints the command's usage and flags on
// stdout (exit 0), the same text "COMMAND -h" prints on stderr.
func TestHelpCommand(t *testing.T) {
	for _, name := range []string{"run", "compare", "sweep", "plan", "list"} {
		out, errOut, code := runCLI(t, "", "help", name)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "Usage: simulate "+name) || !strings.Contains(out, "Flags:") {
			t.Errorf("simulate help %s: exit %d, stdout:\n%s\nstderr:\n%s", name, code, out, errOut)
		}
		hOut, hErr, hCode := runCLI(t, "", name, "-h")
		if hCode != 0 || hOut != "" || hErr != out {
			t.Errorf("simulate %s -h: exit %d, stderr differs from help's stdout:\n%s", name, hCode, hErr)
		}
	}
	out, _, code := runCLI(t, "", "help", "compare")
	if code != 0 || !strings.Contains(out, "-vary") {
		t.Errorf("simulate help compare lacks --vary:\n%s", out)
	}
}
