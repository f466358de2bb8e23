package fpcheck

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exact lists source lines whose fused multiply-add is harmless: the
// product is by a power of two (exact), so rounding it first changes
// nothing. Each entry is a substring of the line.
var exact = []string{
	"(hi-lo)/2",                        // bisection midpoint: × 0.5
	"(passLo-lo)/2",                    // bisection midpoint: × 0.5
	"r*0x1p-50",                        // × 2^-50
	"1 - r.Float64()",                  // Float64 is an integer × 2^-53
	"distuv.StudentsT{Mu: 0, Sigma: 1", // gonum's Mu + Sigma·x with Sigma 1
	"t := tQuantile(",                  // the same, inlined; and frac × 2^16
	"z/2 + float64(z/x*p)",             // z/2 is × 0.5
}

var fused = regexp.MustCompile(`\b(FMADDD|FMSUBD|FNMADDD|FNMSUBD|FMADDS|FMSUBS|FNMADDS|FNMSUBS)\b`)
var site = regexp.MustCompile(`\(([^()]*\.go):(\d+)\)`)

// Env is the environment variable that runs TestNoFusedMultiplyAdd.
const Env = "BUDGETSIM_FPCHECK"

// TestNoFusedMultiplyAdd compiles the module for arm64 with the assembly
// listing on and fails on every fused multiply-add in its own code (charts
// aside) that exact does not explain.
//
// On a cold build cache the cross-compilation (every dependency, for
// arm64) takes minutes, more than the rest of go test ./... together, so
// the test runs only when BUDGETSIM_FPCHECK=1: CI runs it as a step of its
// own (.ci/run), and so should anyone who changes float arithmetic:
//
//	BUDGETSIM_FPCHECK=1 go test ./internal/fpcheck
func TestNoFusedMultiplyAdd(t *testing.T) {
	if os.Getenv(Env) != "1" {
		t.Skip("cross-compiles the module for arm64 (minutes on a cold cache); run it with " + Env + "=1 go test ./internal/fpcheck (CI does)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	touchInputs(t, root)
	cmd := exec.Command("go", "build", "-o", os.DevNull, "-gcflags=github.com/budgetsim/budgetsim/...=-S", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build for arm64: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if !fused.MatchString(line) {
			continue
		}
		m := site.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		file, _ := filepath.Abs(m[1])
		rel, err := filepath.Rel(root, file)
		if err != nil || strings.HasPrefix(rel, "..") || strings.HasPrefix(rel, "internal/charts/") {
			continue // not this module's, or a chart's
		}
		n++
		key := rel + ":" + m[2]
		if seen[key] {
			continue
		}
		seen[key] = true
		src := sourceLine(t, file, m[2])
		if harmless(src) {
			continue
		}
		t.Errorf("%s: fused multiply-add in %q: wrap the product in float64() so that every CPU rounds it the same way", key, strings.TrimSpace(src))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Log("no fused multiply-add at all (the listing format may have changed: check that -S still prints FMADDD)")
	}
}

// touchInputs stats every Go file and PGO profile of the module. The build
// runs in a subprocess, which go test's result cache does not see: a file
// the test itself has looked at is part of the cache key, so an edit
// anywhere in the module (or a regenerated default.pgo) runs the test
// again instead of replaying a stale pass.
func touchInputs(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "results") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".pgo") || d.Name() == "go.mod" || d.Name() == "go.sum" {
			_, err := os.Stat(path)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func harmless(src string) bool {
	for _, e := range exact {
		if strings.Contains(src, e) {
			return true
		}
	}
	return false
}

func sourceLine(t *testing.T, file, line string) string {
	t.Helper()
	k, err := strconv.Atoi(line)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if k < 1 || k > len(lines) {
		t.Fatalf("%s has no line %d", file, k)
	}
	return lines[k-1]
}
