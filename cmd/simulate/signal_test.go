//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the simulate command: with
// BUDGETSIM_TEST_MAIN=1 in its environment it runs main instead of the
// tests, so a test can start the real command as a child process and
// signal it.
//
// With BUDGETSIM_TEST_READY_FD=3 as well, the child tells the parent on
// file descriptor 3 (a pipe passed in ExtraFiles) how far it has got: the
// byte 'm' as it enters main, 'w' once a graceful command's signal handler
// is installed (interruptWatched).
func TestMain(m *testing.M) {
	if os.Getenv("BUDGETSIM_TEST_MAIN") == "1" {
		if os.Getenv("BUDGETSIM_TEST_READY_FD") == "3" {
			ready := os.NewFile(3, "ready")
			ready.Write([]byte{'m'})
			interruptWatched = func() { ready.Write([]byte{'w'}) }
		}
		main()
		return
	}
	os.Exit(m.Run())
}

// startChild starts cmd (the test binary standing in for simulate, see
// TestMain) with a pipe on which it reports how far it has got. It returns
// a channel closed when the child has exited and a function that waits
// for the byte b ('m' or 'w') on that pipe. The child is killed, if still
// running, when the test ends.
func startChild(t *testing.T, cmd *exec.Cmd) (exited chan struct{}, waitReady func(b byte)) {
	t.Helper()
	cmd.Env = append(cmd.Env, "BUDGETSIM_TEST_READY_FD=3")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited = make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
		r.Close()
	})
	chans := map[byte]chan struct{}{'m': make(chan struct{}), 'w': make(chan struct{})}
	go func(pending map[byte]chan struct{}) {
		buf := make([]byte, 1)
		for {
			if n, err := r.Read(buf); n == 0 || err != nil {
				return
			}
			if ch, ok := pending[buf[0]]; ok {
				close(ch)
				delete(pending, buf[0])
			}
		}
	}(maps.Clone(chans))
	return exited, func(b byte) {
		t.Helper()
		what := map[byte]string{'m': "the child entering main", 'w': "the child's signal handler"}[b]
		waitFor(t, what, chans[b], exited)
	}
}

// waitTimeout bounds every wait below on a child process. It only expires
// when something is wrong: each wait ends as soon as its condition holds.
const waitTimeout = 60 * time.Second

// openWhenRead opens the FIFO at path for writing as soon as a process has
// it open for reading: a non-blocking open for writing fails with ENXIO
// until then. A command opens its scenario after installing its signal
// handler, so the open also says the handler is in place. It fails the
// test if the child ends first (exited is closed) or after waitTimeout.
func openWhenRead(t *testing.T, path string, exited <-chan struct{}) *os.File {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), path)
		}
		if err != syscall.ENXIO && err != syscall.EINTR {
			t.Fatalf("open %s for writing: %v", path, err)
		}
		select {
		case <-exited:
			t.Fatalf("the child ended before it opened %s", path)
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reader on %s after %v", path, waitTimeout)
		}
	}
}

// watchWriter collects a child's output and closes seen once the output
// contains want.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want []byte
	seen chan struct{}
}

func newWatchWriter(want string) *watchWriter {
	return &watchWriter{want: []byte(want), seen: make(chan struct{})}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.want != nil && bytes.Contains(w.buf.Bytes(), w.want) {
		close(w.seen)
		w.want = nil
	}
	return n, err
}

// String returns the output so far.
func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitFor waits for ch to be closed; it fails the test if the child ends
// first (exited is closed) or after waitTimeout.
func waitFor(t *testing.T, what string, ch, exited <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-exited:
		select {
		case <-ch: // both at once
		default:
			t.Fatalf("the child ended before %s", what)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("%s: not within %v", what, waitTimeout)
	}
}

// TestSignalWritesPartialResults sends SIGINT (Ctrl-C) and SIGTERM (what a
// batch scheduler sends) to a real simulate process in the middle of a long
// run, sweep and plan: it must stop within seconds, exit 130, and leave
// complete files marked partial (or interrupted) in --out, and no
// temporary files.
func TestSignalWritesPartialResults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes and waits for them")
	}
	type summary struct {
		Partial bool `json:"partial"`
		Runs    struct {
			Arrived int64 `json:"arrived"`
		} `json:"runs"`
	}
	checkRun := func(t *testing.T, dir string, stdout []byte) {
		var printed, written summary
		if err := json.Unmarshal(stdout, &printed); err != nil {
			t.Fatalf("stdout is not a JSON summary: %v\n%s", err, stdout)
		}
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, "summary.json")), &written); err != nil {
			t.Fatalf("summary.json: %v", err)
		}
		for name, s := range map[string]summary{"stdout": printed, "summary.json": written} {
			// A billion runs of M/M/c would take minutes: the signal, not
			// the end of the arrivals, must have stopped it.
			if !s.Partial || s.Runs.Arrived <= 0 || s.Runs.Arrived >= 1000000000 {
				t.Errorf("%s: partial %v, %d runs arrived; want a partial result of some runs", name, s.Partial, s.Runs.Arrived)
			}
		}
		if printed.Runs.Arrived != written.Runs.Arrived {
			t.Errorf("stdout says %d runs, summary.json %d", printed.Runs.Arrived, written.Runs.Arrived)
		}
	}
	checkSweep := func(t *testing.T, dir string, stdout []byte) {
		// Points with replications are summarised (those cut short marked
		// partial); points not started are absent.
		var points []struct {
			Summary struct {
				Warnings []string `json:"warnings"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, "sweep.json")), &points); err != nil {
			t.Fatalf("sweep.json: %v", err)
		}
		if len(points) >= 40 {
			t.Errorf("sweep.json has all %d points: the sweep was not interrupted", len(points))
		}
		for i, p := range points {
			if !slices.ContainsFunc(p.Summary.Warnings, func(w string) bool { return strings.HasPrefix(w, "sweep interrupted: ") }) {
				t.Errorf("sweep.json point %d does not say the sweep was interrupted: %q", i, p.Summary.Warnings)
			}
		}
		checkCSVPartial(t, filepath.Join(dir, "sweep.csv"), 0) // rows, if the signal came after a point
	}
	checkPlan := func(t *testing.T, dir string, stdout []byte) {
		var ans struct {
			Interrupted bool `json:"interrupted"`
			Confidence  struct {
				Note string `json:"note"`
			} `json:"confidence"`
		}
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, "plan.json")), &ans); err != nil {
			t.Fatalf("plan.json: %v", err)
		}
		if !ans.Interrupted || !bytes.HasPrefix([]byte(ans.Confidence.Note), []byte("interrupted")) {
			t.Errorf("plan.json: interrupted %v, note %q; want the answer marked interrupted", ans.Interrupted, ans.Confidence.Note)
		}
		checkCSVPartial(t, filepath.Join(dir, "sweep.csv"), 0) // a plan stopped at once has no probes
	}
	checkSweepTable := func(t *testing.T, dir string, stdout []byte) {
		checkSweep(t, dir, nil)
		if !bytes.Contains(stdout, []byte("\ninterrupted: ")) {
			t.Errorf("the sweep table does not say it was interrupted:\n%s", stdout)
		}
	}
	cases := []struct {
		name  string
		sig   syscall.Signal
		args  []string
		check func(t *testing.T, dir string, stdout []byte)
	}{
		{"run/SIGINT", syscall.SIGINT, []string{"run", "mmc", "--runs", "1000000000", "--set", "warmup=0"}, checkRun},
		{"run/SIGTERM", syscall.SIGTERM, []string{"run", "mmc", "--runs", "1000000000", "--set", "warmup=0"}, checkRun},
		{"sweep/SIGINT", syscall.SIGINT, []string{"sweep", "mmc", "--vary", "workers=10..49:40", "--runs", "2000000", "--set", "warmup=0"}, checkSweep},
		{"sweep/SIGINT/table", syscall.SIGINT, []string{"sweep", "mmc", "--vary", "workers=10..49:40", "--runs", "2000000", "--set", "warmup=0", "--format", "table"}, checkSweepTable},
		{"plan/SIGINT", syscall.SIGINT, []string{"plan", "mmc", "--slo", "p99<=100ms", "--search", "workers=10..1000", "--replications", "2", "--runs", "5000000", "--set", "warmup=0"}, checkPlan},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{}, c.args...)
			if !slices.Contains(args, "--format") {
				args = append(args, "--format", "json")
			}
			args = append(args, "--out", dir)
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "BUDGETSIM_TEST_MAIN=1")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			exited, waitReady := startChild(t, cmd)
			// Once the handler is installed the signal asks the command
			// to stop; the work it has started by then (at least one
			// guard check's worth of events) is what it writes.
			waitReady('w')
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(waitTimeout):
				t.Fatalf("still running %v after %v", waitTimeout, c.sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Fatalf("exit %d after %v, want 130; stderr:\n%s", code, c.sig, errb.String())
			}
			if !bytes.Contains(errb.Bytes(), []byte("interrupted")) {
				t.Errorf("stderr does not say it was interrupted:\n%s", errb.String())
			}
			c.check(t, dir, out.Bytes())
			// Nothing half-written is left behind: only complete files.
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name()[0] == '.' {
					t.Errorf("temporary file left in --out: %s", e.Name())
				}
			}
		})
	}
}

// TestSignalEndsWhatCannotStopGracefully: a graceful command blocked where
// it never looks at the interrupt flag (reading a scenario from a FIFO
// nobody writes) ends at the second signal; a command with nothing partial
// to write (validate) ends at the first. Both die of the signal.
func TestSignalEndsWhatCannotStopGracefully(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes and waits for them")
	}
	fifo := filepath.Join(t.TempDir(), "blocked.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []struct {
		name      string
		args      []string
		sigs      []syscall.Signal
		ignoreINT bool // started as "cmd &" in a script starts it: SIGINT ignored
		together  bool // the signals are sent back to back, before the handler can take the first
	}{
		{"run blocked in a read", []string{"run", fifo}, []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, false, false},
		{"run blocked, two signals at once", []string{"run", fifo}, []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}, false, true},
		{"validate", []string{"validate", "--replications", "1000"}, []syscall.Signal{syscall.SIGTERM}, false, false},
		// With SIGINT ignored at start, a second SIGINT stays ignored;
		// SIGTERM is handled as SIGINT is, and a second one quits.
		{"run blocked, SIGINT ignored", []string{"run", fifo}, []syscall.Signal{syscall.SIGTERM, syscall.SIGTERM}, true, false},
		{"run blocked, SIGINT ignored, then SIGTERM", []string{"run", fifo}, []syscall.Signal{syscall.SIGINT, syscall.SIGINT, syscall.SIGTERM}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], c.args...)
			if c.ignoreINT {
				cmd = exec.Command("sh", append([]string{"-c", `trap "" INT; exec "$0" "$@"`, os.Args[0]}, c.args...)...)
			}
			cmd.Env = append(os.Environ(), "BUDGETSIM_TEST_MAIN=1")
			// The first signal a graceful command takes is acknowledged on
			// stderr once its handler is gone again.
			stderr := newWatchWriter("interrupted: stopping")
			cmd.Stderr = stderr
			exited, waitReady := startChild(t, cmd)
			if slices.Contains(c.args, fifo) {
				// Blocked reading the scenario (its handler installed
				// before): the FIFO open for reading, nothing written.
				w := openWhenRead(t, fifo, exited)
				defer w.Close()
			} else {
				waitReady('m') // validate installs no handler: main suffices
			}
			for i, s := range c.sigs {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
				// The first signal a graceful command takes: wait until it
				// has been taken and the default action is back. (A
				// second SIGINT that the shell's trap left ignored is
				// discarded as it is sent: nothing to wait for.)
				if i == 0 && !c.together && len(c.sigs) > 1 {
					waitFor(t, "the first signal's acknowledgement on stderr", stderr.seen, exited)
				}
			}
			select {
			case <-exited:
			case <-time.After(waitTimeout):
				t.Fatalf("still running %v after %v", waitTimeout, c.sigs)
			}
			// Signals sent back to back may reach the process's threads in
			// either order, and the handler takes whichever comes first:
			// the other ends the process.
			want := c.sigs[len(c.sigs)-1:]
			if c.together {
				want = c.sigs
			}
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || !slices.Contains(want, ws.Signal()) {
				t.Errorf("ended %v, want killed by one of %v; stderr:\n%s", cmd.ProcessState, want, stderr.String())
			}
		})
	}
}

// checkCSVPartial checks that sweep.csv has at least minRows rows and
// marks each partial.
func checkCSVPartial(t *testing.T, path string, minRows int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n")
	col := slices.Index(strings.Split(lines[0], ","), "partial")
	if len(lines) < 1+minRows || col < 0 {
		t.Errorf("%s: %d lines, header %q; want rows under a header with a partial column", path, len(lines), lines[0])
		return
	}
	for _, l := range lines[1:] {
		if cells := strings.Split(l, ","); col >= len(cells) || cells[col] != "true" {
			t.Errorf("%s: row %q is not marked partial after an interrupt", path, l)
		}
	}
}
