package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAbortKeepsPreviousFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "summary.json")
	if err := WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new but interrupted")
	f.Abort()
	got, _ := os.ReadFile(p)
	if string(got) != "old" {
		t.Fatalf("after Abort, file = %q, want %q", got, "old")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("after Abort, %d files in dir, want 1 (temp file left behind)", len(entries))
	}
	if err := WriteFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new" {
		t.Fatalf("after WriteFile, file = %q, want %q", got, "new")
	}
}

func TestCreateInMissingDirectory(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "f")); err == nil {
		t.Fatal("Create in a missing directory: err = nil, want an error")
	}
}

// TestGroup: a group replaces every file or none. A writer failing on the
// second file leaves both previous files as they were and no temporary
// file behind; a group that completes replaces both.
func TestGroup(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var g Group
	fa, err := g.Create(a)
	if err != nil {
		t.Fatal(err)
	}
	fa.WriteString("new\n")
	if _, err := g.Create(b); err != nil {
		t.Fatal(err)
	}
	g.Abort() // the second writer failed
	for _, p := range []string{a, b} {
		if got, _ := os.ReadFile(p); string(got) != "old\n" {
			t.Errorf("%s = %q after an aborted group, want the old file", filepath.Base(p), got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d entries after an aborted group, want the 2 files and no temporary", len(entries))
	}

	g = Group{}
	for _, p := range []string{a, b} {
		f, err := g.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("new " + filepath.Base(p) + "\n")
	}
	if err := g.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b} {
		if got, _ := os.ReadFile(p); string(got) != "new "+filepath.Base(p)+"\n" {
			t.Errorf("%s = %q after a committed group", filepath.Base(p), got)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries after a committed group, want 2", len(entries))
	}
}

// TestGroupCommitRefusesADirectory: a destination that became a directory
// fails the commit before any rename: the other file keeps its old
// content and no temporary is left.
func TestGroupCommitRefusesADirectory(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	if err := os.WriteFile(a, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(b, 0o755); err != nil {
		t.Fatal(err)
	}
	var g Group
	for _, p := range []string{a, b} {
		f, err := g.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("new\n")
	}
	if err := g.Commit(); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("Commit = %v, want a directory refused", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old\n" {
		t.Errorf("a.csv = %q after a refused commit, want the old file", got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries after a refused commit, want a.csv and b.csv only", len(entries))
	}
}

// TestGroupReplacesALinkToADirectory: a destination that is a symbolic
// link is replaced by the rename, not followed: even a link to a directory
// is no reason to refuse the commit.
func TestGroupReplacesALinkToADirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "summary.csv")
	if err := os.Symlink("d", link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	var g Group
	f, err := g.Create(link)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new\n")
	if err := g.Commit(); err != nil {
		t.Fatalf("Commit over a link to a directory: %v", err)
	}
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() {
		t.Errorf("summary.csv after the commit: %v, %v; want a regular file", st, err)
	}
}

// TestCreateRemovesStaleTemporaries: the hidden temporary files a killed
// writer left in a directory are removed at the next write there; a
// recent one, or one of a process still running, is left alone, and so
// is every file budgetsim did not make, however much its name looks like
// a temporary one: only a name of tempName's form whose mark checks is
// taken for one.
func TestCreateRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * StaleAfter)
	gone := 2147483646 // a process id that is not running
	forged := tempName("x.csv", gone)
	forged = forged[:len(forged)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", forged[len(forged)-1])+1)%16])
	files := map[string]bool{ // name: removed
		tempName("sweep.csv", gone):         true,  // a process that is gone
		tempName("series.csv", os.Getpid()): false, // this one: running
		tempName("recent.csv", gone):        false, // touched below: too recent
		forged:                              false, // the mark does not check
		".thesis.tmp-final":                 false, // the user's: an old-style name
		".summary.json.tmp-1234567":         false,
		".a.budgetsim-tmp-2147483646-1-1":   false,
		"notes.budgetsim-tmp-1":             false, // not hidden
		".keep":                             false,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(name, ".recent.csv") {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := WriteFile(filepath.Join(dir, "summary.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	kept := 1 // summary.json
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
		if !removed {
			kept++
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != kept {
		t.Errorf("%d files left, want %d: the ones kept and summary.json", len(entries), kept)
	}
}
