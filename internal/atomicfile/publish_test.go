package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// commitGroup writes text into each of names in dir as one group.
func commitGroup(t *testing.T, dir, text string, names ...string) error {
	t.Helper()
	var g Group
	for _, n := range names {
		f, err := g.Create(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
	}
	return g.Commit()
}

// TestInterruptedGroupIsRefused: a group stopped between two renames (as
// a kill would stop it) leaves new files beside old ones, and its marker
// says so: CheckPublished refuses the directory, naming the files. The
// next complete write of the group takes the marker away; a complete
// write leaves none.
func TestInterruptedGroupIsRefused(t *testing.T) {
	dir := t.TempDir()
	names := []string{"summary.json", "latency_cdf.csv", "series.csv"}
	if err := commitGroup(t, dir, "old", names...); err != nil {
		t.Fatal(err)
	}
	if err := CheckPublished(dir); err != nil {
		t.Fatalf("after a complete write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, Publishing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the marker is still there after a complete write: %v", err)
	}

	killed := errors.New("killed")
	afterRename = func(i int) error {
		if i == 0 {
			return killed
		}
		return nil
	}
	err := commitGroup(t, dir, "new", names...)
	afterRename = nil
	if !errors.Is(err, killed) {
		t.Fatalf("commit: %v, want the injected stop", err)
	}
	var got []string
	for _, n := range names {
		b, _ := os.ReadFile(filepath.Join(dir, n))
		got = append(got, string(b))
	}
	if strings.Join(got, " ") != "new old old" {
		t.Fatalf("files %q: the stop did not fall between renames", got)
	}
	err = CheckPublished(dir)
	if err == nil || !strings.Contains(err.Error(), "summary.json, latency_cdf.csv, series.csv") || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("CheckPublished after an interrupted write: %v; want it refused, naming the files", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "budgetsim-tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}

	// Another group in the same directory does not hide the interruption.
	if err := commitGroup(t, dir, "x", "a.png", "b.png"); err != nil {
		t.Fatal(err)
	}
	if err := CheckPublished(dir); err == nil {
		t.Error("another group's write took away the interrupted group's marker")
	}
	// Rewriting the group completes it.
	if err := commitGroup(t, dir, "new", names...); err != nil {
		t.Fatal(err)
	}
	if err := CheckPublished(dir); err != nil {
		t.Errorf("after the group was written again: %v", err)
	}
}
