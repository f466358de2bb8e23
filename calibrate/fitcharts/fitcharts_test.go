package fitcharts

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChartsFromReport(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "qq.csv"), []byte("tool,quantity,family,p,observed_s,fitted_s\nsearch,latency,lognormal,0.25,0.2,0.21\nsearch,latency,lognormal,0.75,0.5,0.45\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "e2e.csv"), []byte("series,p,seconds\nobserved,0.5,1\nobserved,0.9,2\nsimulated,0.5,1.1\nsimulated,0.9,1.8\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "fit.json"), []byte(`{"tools": [{"name": "search", "distributions": [{"quantity": "latency", "tail_p": 0.99, "tail_observed": 0.9, "tail_lower": 0.7, "tail_fitted": 0.6, "tail_heavier": true}]}]}`), 0o644)
	r, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	bs := r.Builds()
	if len(bs) != 2 {
		t.Fatalf("%d charts, want 2", len(bs))
	}
	qq, err := bs[0].Build()
	if err != nil {
		t.Fatal(err)
	}
	if qq.Name != "qq_search_latency" || !strings.Contains(strings.Join(qq.Notes, " "), "HEAVIER than the fit") {
		t.Errorf("chart %s, notes %q", qq.Name, qq.Notes)
	}
	var png bytes.Buffer
	if err := qq.Render(&png, "png"); err != nil || png.Len() == 0 {
		t.Fatalf("render: %v (%d bytes)", err, png.Len())
	}
	e2e, err := bs[1].Build()
	if err != nil || len(e2e.Legend) != 2 {
		t.Fatalf("e2e: %v", err)
	}
}

func TestBadReport(t *testing.T) {
	dir := t.TempDir()
	if r, err := Read(dir); r != nil || err != nil {
		t.Fatalf("an empty directory: %v, %v", r, err)
	}
	os.WriteFile(filepath.Join(dir, "qq.csv"), []byte("tool,quantity,family,p,observed_s,fitted_s\nsearch,latency,lognormal,0.25,fast,0.21\n"), 0o644)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "qq.csv:2: column observed_s: \"fast\" is not a number") {
		t.Errorf("error %v", err)
	}
}

// A loop's turns.csv gives a chart of the chance of ending at each turn
// against the fitted constant, with the χ² verdict in its notes.
func TestTurnsChart(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "turns.csv"), []byte("rule,turn,at_risk,ends,observed,observed_lo,observed_hi,fitted,fitted_lo,fitted_hi,p_value\n"+
		"answer,1,1000,200,0.2,0.18,0.23,0.21,0.2,0.22,0.004\nanswer,2,800,180,0.225,0.2,0.25,0.21,0.2,0.22,0.004\n"), 0o644)
	r, err := Read(dir)
	if err != nil || r == nil {
		t.Fatal(r, err)
	}
	bs := r.Builds()
	if len(bs) != 1 {
		t.Fatalf("%d charts, want 1", len(bs))
	}
	ch, err := bs[0].Build()
	if err != nil {
		t.Fatal(err)
	}
	if ch.Name != "loop_turns" || !strings.Contains(ch.Title, "the model answers") || !strings.Contains(strings.Join(ch.Notes, " "), "p 0.004: rejected") {
		t.Errorf("chart %s %q, notes %q", ch.Name, ch.Title, ch.Notes)
	}
	var png bytes.Buffer
	if err := ch.Render(&png, "png"); err != nil || png.Len() == 0 {
		t.Fatalf("render: %v (%d bytes)", err, png.Len())
	}
}
