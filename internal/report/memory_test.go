package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/charts"
	"github.com/budgetsim/budgetsim/internal/outputs"
	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/model/summary"
	"github.com/budgetsim/budgetsim/plan/compare"
)

// manyVariants is the size of the comparison the memory test pages.
const manyVariants = 10000

// writeManyVariants writes dir/compare.json with n variants, each as
// compare writes one (a scenario text of a few kilobytes in its
// provenance, a summary), and returns the size of one variant's JSON.
func writeManyVariants(t *testing.T, dir string, n int) int {
	t.Helper()
	f, err := os.Create(outputs.CompareJSON.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("[\n")
	size := 0
	for i := range n {
		v := compare.Summary{Name: fmt.Sprintf("v%05d", i), Variant: map[string]string{"workers": strconv.Itoa(i + 1)},
			Provenance: provenance.Record{Scenario: "many", File: "many.yaml", FormatVersion: 1, Overrides: []string{"workers=" + strconv.Itoa(i+1)},
				SHA256: strings.Repeat("ab", 32), Effective: strings.Repeat("tools:\n  search: {latency: {dist: exponential, mean: 200ms}}\n", 50)},
			Summary: summary.Summary{Scenario: "many", Seed: 1, Replications: 1, SuccessRate: 0.99}}
		b, err := json.MarshalIndent(v, "  ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		size = max(size, len(b))
		if i > 0 {
			w.WriteString(",\n")
		}
		w.WriteString("  ")
		w.Write(b)
	}
	w.WriteString("\n]\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return size
}

// TestCompareReportMemoryBounded: the page of a comparison of 10,000
// variants keeps the first charts.MaxSeriesVariants of them (and says how
// many it leaves out), and reading compare.json holds only those: the
// heap grows by at most a few times what is kept, however long the file.
// It measures in a child process, whose heap starts empty: the growth of
// HeapSys (the heap's address space, which never shrinks) there is the
// peak of the heap while the page was built.
func TestCompareReportMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a compare.json of some 30 MB")
	}
	dir := t.TempDir()
	elem := writeManyVariants(t, dir, manyVariants)
	st, err := os.Stat(outputs.CompareJSON.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCompareReportMemoryChild$", "-test.v")
	cmd.Env = append(os.Environ(), "BUDGETSIM_MEMORY_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("child: %v\n%s", err, out)
	}
	var grown uint64
	for _, line := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(line, "heap grew "); ok {
			grown, _ = strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		}
	}
	if grown == 0 {
		t.Fatalf("child printed no heap growth:\n%s", out)
	}
	// What is kept: MaxSeriesVariants variants, twice (the charts' and
	// the page's copies), each decoded to at most a few times its JSON,
	// plus one element being decoded; and the runtime's minimum heap
	// target (4 MB) twice for garbage between collections.
	kept := uint64(2*charts.MaxSeriesVariants+1) * uint64(elem)
	bound := 4*kept + 8<<20
	if uint64(st.Size()) < 2*bound {
		t.Fatalf("compare.json is %d bytes, under twice the bound %d: the test could not tell reading it whole", st.Size(), bound)
	}
	if grown > bound {
		t.Errorf("building the page of %d variants (%d bytes of compare.json, %d per variant) grew the heap by %d bytes, over the bound %d", manyVariants, st.Size(), elem, grown, bound)
	}
	t.Logf("compare.json %d bytes; heap grew %d bytes (bound %d)", st.Size(), grown, bound)
}

// TestCompareReportMemoryChild is TestCompareReportMemoryBounded's child
// process (it does nothing in a plain test run): it builds the page of
// the directory it is given and prints how much the heap grew.
func TestCompareReportMemoryChild(t *testing.T) {
	dir := os.Getenv("BUDGETSIM_MEMORY_CHILD")
	if dir == "" {
		t.Skip("run by TestCompareReportMemoryBounded")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := charts.ReadDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := FromDir(d, "test", "")
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// HeapSys moves by a few kilobytes as stacks come and go; a heap that
	// did not grow prints 1.
	fmt.Printf("heap grew %d\n", max(1, int64(after.HeapSys)-int64(before.HeapSys)))
	// The page says how many variants there are and which it shows.
	if !strings.Contains(r.Description, strconv.Itoa(manyVariants)+" variants") {
		t.Errorf("description %q does not count the %d variants", r.Description, manyVariants)
	}
	want := fmt.Sprintf("show the first %d of the %d variants", charts.MaxSeriesVariants, manyVariants)
	if !strings.Contains(strings.Join(r.Warnings, "\n"), want) {
		t.Errorf("warnings %q lack %q", r.Warnings, want)
	}
	for _, s := range r.Sections {
		if s.ID == "variants" && len(s.Tables[0].Rows) != charts.MaxSeriesVariants {
			t.Errorf("variants table has %d rows, want the first %d", len(s.Tables[0].Rows), charts.MaxSeriesVariants)
		}
	}
	if len(d.Summaries) != charts.MaxSeriesVariants || d.VariantsOmitted != manyVariants-charts.MaxSeriesVariants {
		t.Errorf("ReadDir kept %d summaries and left out %d, want %d and %d", len(d.Summaries), d.VariantsOmitted, charts.MaxSeriesVariants, manyVariants-charts.MaxSeriesVariants)
	}
}
