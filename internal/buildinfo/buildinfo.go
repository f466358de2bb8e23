// Package buildinfo says which build of budgetsim is running: the main
// module's version and the version-control revision it was built from, as
// the Go toolchain records them in the binary (runtime/debug.ReadBuildInfo).
// The commands print it for --version, and every output records Stamp.
package buildinfo

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

// EnvVersion names the environment variable that, when set, replaces the
// build's version in outputs (Stamp). results/regenerate.sh sets it, so
// that the committed results do not change with every commit: a file
// cannot name the commit that holds it, since the commit's hash depends
// on the file.
const EnvVersion = "BUDGETSIM_VERSION"

// Info is what the binary records about its build. The zero value is an
// unknown build.
type Info struct {
	// Module is the main module's path; Version its version: a tag
	// (v1.2.0) for go install …@v1.2.0, a pseudo-version for a build
	// from a clone, "(devel)" or "" when the toolchain recorded none (go
	// run, go test).
	Module  string `json:"module"`
	Version string `json:"version"`
	// Revision is the version-control revision (a git commit hash), Time
	// its commit time (RFC 3339), and Modified whether the working tree
	// had uncommitted changes; empty or false when not recorded.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// Go is the toolchain's version (go1.26.8).
	Go string `json:"go"`
}

// Read returns the running binary's Info; the zero Info when the binary
// has no build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo extracts Info from the toolchain's record.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is the version as one word and a qualifier: the module version
// ("v1.2.0"), or "devel" for a build without one, then the revision's
// first 12 hex digits when the version does not already contain them, and
// "+dirty" for a modified tree ("devel 0123456789ab+dirty").
func (i Info) String() string {
	v := i.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	if rev := short(i.Revision); rev != "" && !strings.Contains(v, rev) {
		v += " " + rev
	}
	if i.Modified && !strings.HasSuffix(v, "+dirty") {
		v += "+dirty"
	}
	return v
}

// Long is the text of --version: the program, the version, then the
// module, revision, commit time and toolchain, one per line.
func (i Info) Long(prog string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", prog, i)
	if i.Module != "" {
		fmt.Fprintf(&b, "module %s\n", i.Module)
	}
	if i.Revision != "" {
		mod := ""
		if i.Modified {
			mod = " (uncommitted changes)"
		}
		fmt.Fprintf(&b, "revision %s%s\n", i.Revision, mod)
	}
	if i.Time != "" {
		fmt.Fprintf(&b, "committed %s\n", i.Time)
	}
	if i.Go != "" {
		fmt.Fprintf(&b, "built with %s\n", i.Go)
	}
	return b.String()
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// Stamp is the version outputs record: $BUDGETSIM_VERSION when set (see
// EnvVersion), else Read().String().
func Stamp() string {
	if v := os.Getenv(EnvVersion); v != "" {
		return v
	}
	return Read().String()
}

// WantsVersion reports whether args (a command line without the program)
// ask for the version: --version, -version or -v before any "--".
func WantsVersion(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--version", "-version", "-v":
			return true
		}
	}
	return false
}
