package charts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChartsNameWhatRan: every chart drawn from a results directory whose
// JSON records provenance carries a footnote with the scenario, the
// SHA-256 of each variant's scenario text as simulated and the build, so
// a chart pasted into a review can be traced to what produced it; a
// directory without provenance gets no such note.
func TestChartsNameWhatRan(t *testing.T) {
	dir := t.TempDir()
	compare := `[{"name": "once", "provenance": {"scenario": "svc", "file": "scenarios/svc.yaml", "format_version": 1, "sha256": "ef638dc0a44eeb33e63e", "budgetsim": "test"}, "scenario": "svc"},
{"name": "three", "provenance": {"scenario": "svc", "file": "scenarios/svc.yaml", "format_version": 1, "sha256": "f35b362db44d9a", "budgetsim": "test"}, "scenario": "svc"}]`
	series, err := os.ReadFile("testdata/storm/series.csv")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"compare.json": []byte(compare), "series.csv": series} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := ReadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "Scenario svc (scenarios/svc.yaml, format 1), as simulated: SHA-256 per variant: once ef638dc0a44e, three f35b362db44d; budgetsim test."
	if note := d.ProvenanceNote(); !strings.HasPrefix(note, want) {
		t.Errorf("ProvenanceNote = %q, want it to start %q", note, want)
	}
	builds := d.Builds()
	if len(builds) == 0 {
		t.Fatal("no chart from series.csv")
	}
	for _, b := range builds {
		ch, err := b.Build()
		if err != nil {
			t.Fatalf("%s: %v", b.From, err)
		}
		if n := ch.Notes; len(n) == 0 || !strings.HasPrefix(n[len(n)-1], want) {
			t.Errorf("%s: notes %q lack the provenance", ch.Name, n)
		}
	}

	bare, err := ReadDir("testdata/storm", nil)
	if err != nil {
		t.Fatal(err)
	}
	if note := bare.ProvenanceNote(); note != "" {
		t.Errorf("a directory without provenance: note %q, want none", note)
	}
}
