package buildinfo_test

import (
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/budgetsim/budgetsim/internal/buildinfo"
)

func TestString(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-12-03T12:00:00Z"}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"", nil, "devel"},
		{"(devel)", nil, "devel"},
		{"(devel)", vcs("false"), "devel 0123456789ab"},
		{"(devel)", vcs("true"), "devel 0123456789ab+dirty"},
		{"v1.2.0", nil, "v1.2.0"},
		// A pseudo-version names the revision already, and +dirty.
		{"v0.0.0-20261203120000-0123456789ab+dirty", vcs("true"), "v0.0.0-20261203120000-0123456789ab+dirty"},
		{"v1.2.0", vcs("false"), "v1.2.0 0123456789ab"},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/budgetsim/budgetsim", Version: tc.version}, Settings: tc.settings}
		info := buildinfo.FromBuildInfo(bi)
		if got := info.String(); got != tc.want {
			t.Errorf("String(%q, %v) = %q, want %q", tc.version, tc.settings, got, tc.want)
		}
		if info.Module != "github.com/budgetsim/budgetsim" || info.Go != "go1.26.8" {
			t.Errorf("FromBuildInfo = %+v", info)
		}
	}
}

// TestStamp: the environment variable replaces the version in outputs.
func TestStamp(t *testing.T) {
	t.Setenv(buildinfo.EnvVersion, "")
	if got, want := buildinfo.Stamp(), buildinfo.Read().String(); got != want {
		t.Errorf("Stamp() = %q, want the build's %q", got, want)
	}
	t.Setenv(buildinfo.EnvVersion, "in-tree")
	if got := buildinfo.Stamp(); got != "in-tree" {
		t.Errorf("Stamp() with %s=in-tree = %q", buildinfo.EnvVersion, got)
	}
}

func ExampleInfo_Long() {
	info := buildinfo.Info{Module: "github.com/budgetsim/budgetsim", Version: "v1.2.0",
		Revision: "0123456789abcdef0123456789abcdef01234567", Time: "2026-12-03T12:00:00Z", Go: "go1.26.8"}
	fmt.Print(info.Long("simulate"))
	// Output:
	// simulate v1.2.0 0123456789ab
	// module github.com/budgetsim/budgetsim
	// revision 0123456789abcdef0123456789abcdef01234567
	// committed 2026-12-03T12:00:00Z
	// built with go1.26.8
}
