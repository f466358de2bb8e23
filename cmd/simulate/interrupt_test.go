package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestInterruptWritesPartialResults: Ctrl-C (the interrupt flag) stops the
// simulation at its next check; what is complete is written, marked
// partial, and the exit status is 130.
func TestInterruptWritesPartialResults(t *testing.T) {
	dir := t.TempDir()
	var interrupted atomic.Bool
	interrupted.Store(true)
	var out, errb bytes.Buffer
	err := runWith(&out, &errb, []string{"run", "mmc", "--runs", "1000000", "--format", "json", "--out", dir}, &interrupted)
	if code := exitCode(err, &errb); code != 130 {
		t.Fatalf("exit %d, want 130; stderr %s", code, errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Partial  bool     `json:"partial"`
		Warnings []string `json:"warnings"`
		Runs     struct {
			Arrived int64 `json:"arrived"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if !s.Partial || s.Runs.Arrived >= 1000000 {
		t.Fatalf("summary: partial %v, arrived %d; want a partial result", s.Partial, s.Runs.Arrived)
	}
	if out.Len() == 0 {
		t.Fatal("nothing printed")
	}
}

// TestUnstableSystemStopsBounded: utilisation 2 with an unbounded queue is
// warned about before the run and stopped by the in-system guard, with a
// partial result instead of unbounded memory.
func TestUnstableSystemStopsBounded(t *testing.T) {
	out, errOut, code := runCLI(t, "", "run", "mm1", "--set", "arrivals.rate=2/s", "--runs", "100000000", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Partial  bool     `json:"partial"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	joined, _ := json.Marshal(s.Warnings)
	if !s.Partial || !bytes.Contains(joined, []byte("utilisation 2 ≥")) || !bytes.Contains(joined, []byte("max_in_system")) {
		t.Fatalf("partial %v, warnings %s; want partial with the utilisation and guard warnings", s.Partial, joined)
	}
}
