package reportfiles_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/budgetsim/budgetsim/calibrate"
	"github.com/budgetsim/budgetsim/calibrate/fitcharts"
	"github.com/budgetsim/budgetsim/calibrate/observe"
	"github.com/budgetsim/budgetsim/calibrate/reportfiles"
)

// TestReportRoundTrip: the report of the bundled example trace, with its
// replay, is exactly the declared files, each CSV file headed by its
// declared columns, and the reader plot uses reads them back.
func TestReportRoundTrip(t *testing.T) {
	res, err := calibrate.Calibrate([]string{"../../scenarios/traces/agent.otlp.jsonl"}, calibrate.Options{Observe: observe.Options{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sc := res.Scenario("calibrated")
	for n, b := range sc.Files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loaded, err := sc.Load(filepath.Join(dir, "calibrated.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cal, err := res.Replay(loaded, 2)
	if err != nil {
		t.Fatal(err)
	}
	files, err := calibrate.ReportFiles(res, cal)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]reportfiles.File{}
	for _, f := range []reportfiles.File{reportfiles.Fit, reportfiles.QQ, reportfiles.Turns, reportfiles.Calibration, reportfiles.E2E} {
		declared[f.Name] = f
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
		d, ok := declared[f.Name]
		if !ok {
			t.Errorf("the report writes %s, which reportfiles does not declare", f.Name)
			continue
		}
		if d.Columns != nil && !bytes.HasPrefix(f.Data, []byte(d.Header())) {
			line, _, _ := bytes.Cut(f.Data, []byte("\n"))
			t.Errorf("%s: header %q, declared %q", f.Name, line, d.Header())
		}
		if err := os.WriteFile(d.Path(dir), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{reportfiles.Fit.Name, reportfiles.QQ.Name, reportfiles.Calibration.Name, reportfiles.E2E.Name} {
		if !slices.Contains(names, want) {
			t.Errorf("the report with a replay wrote %v, not %s", names, want)
		}
	}
	rep, err := fitcharts.Read(dir)
	if err != nil || rep == nil {
		t.Fatalf("fitcharts.Read of the written report: %v, %v", rep, err)
	}
}
