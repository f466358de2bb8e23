package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
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
