//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the simulate command: with
// BUDGETSIM_TEST_MAIN=1 in its environment it runs main instead of the
// tests, so a test can start the real command as a child process and
// signal it.
func TestMain(m *testing.M) {
	if os.Getenv("BUDGETSIM_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestSignalWritesPartialResults sends SIGINT (Ctrl-C) and SIGTERM (what a
// batch scheduler sends) to a real simulate process in the middle of a long
// run: it must stop within seconds, exit 130, and leave a complete,
// partial-marked summary in --out and on stdout.
func TestSignalWritesPartialResults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process and waits for it")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			// A billion runs of M/M/c would take minutes: the signal, not
			// the end of the arrivals, has to stop it.
			cmd := exec.Command(os.Args[0], "run", "mmc", "--runs", "1000000000", "--set", "warmup=0", "--format", "json", "--out", dir)
			cmd.Env = append(os.Environ(), "BUDGETSIM_TEST_MAIN=1")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The handler is installed within milliseconds of start; give
			// the simulation time to get well under way.
			time.Sleep(700 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running 30 s after %v", sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Fatalf("exit %d after %v, want 130; stderr:\n%s", code, sig, errb.String())
			}
			type summary struct {
				Partial bool `json:"partial"`
				Runs    struct {
					Arrived int64 `json:"arrived"`
				} `json:"runs"`
			}
			var printed, written summary
			if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
				t.Fatalf("stdout is not a JSON summary: %v\n%s", err, out.String())
			}
			b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &written); err != nil {
				t.Fatalf("summary.json: %v", err)
			}
			for name, s := range map[string]summary{"stdout": printed, "summary.json": written} {
				if !s.Partial || s.Runs.Arrived <= 0 || s.Runs.Arrived >= 1000000000 {
					t.Errorf("%s: partial %v, %d runs arrived; want a partial result of some runs", name, s.Partial, s.Runs.Arrived)
				}
			}
			if printed.Runs.Arrived != written.Runs.Arrived {
				t.Errorf("stdout says %d runs, summary.json %d", printed.Runs.Arrived, written.Runs.Arrived)
			}
			if !bytes.Contains(errb.Bytes(), []byte("interrupted")) {
				t.Errorf("stderr does not say it was interrupted:\n%s", errb.String())
			}
			// Nothing half-written is left behind: only complete files.
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if filepath.Ext(e.Name()) == ".tmp" || e.Name()[0] == '.' {
					t.Errorf("temporary file left in --out: %s", e.Name())
				}
			}
		})
	}
}
