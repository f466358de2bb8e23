package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
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
// recent one, or one of a process still running, is left alone, as are
// other files.
func TestCreateRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * StaleAfter)
	files := map[string]bool{ // name: removed
		".summary.json.tmp-1234567":                           true,  // CreateTemp's name, no pid
		".sweep.csv.tmp-2147483646-99":                        true,  // a process that is gone
		".series.csv.tmp-" + strconv.Itoa(os.Getpid()) + "-1": false, // this one: running
		"notes.tmp-1":   false, // not hidden: not ours
		".keep":         false,
		".recent.tmp-1": false, // touched below: too recent
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if name != ".recent.tmp-1" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := WriteFile(filepath.Join(dir, "summary.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("%d files left, want the 4 kept and summary.json", len(entries))
	}
}
