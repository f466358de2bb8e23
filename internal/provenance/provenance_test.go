package provenance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/internal/buildinfo"
	"github.com/budgetsim/budgetsim/internal/provenance"
	"github.com/budgetsim/budgetsim/scenarios"
)

func TestOf(t *testing.T) {
	t.Setenv(buildinfo.EnvVersion, "test")
	sc, err := scenarios.Load("mmc", []string{"workers=19", "retry.backoff={base: 1s}"})
	if err != nil {
		t.Fatal(err)
	}
	r := provenance.Of(sc)
	if r.Scenario != "mmc" || r.FormatVersion != scenarios.FormatVersion || r.Budgetsim != "test" ||
		r.SHA256 != sc.SHA256() || r.Effective != string(sc.Effective()) || len(r.Overrides) != 2 {
		t.Errorf("Of = %+v", r)
	}
	want := `scenario ` + sc.File + ` --set workers=19 --set "retry.backoff={base: 1s}" · sha256 ` + sc.SHA256()[:12] + ` · format 1 · budgetsim test`
	if got := r.Line(); got != want {
		t.Errorf("Line() = %q\nwant     %q", got, want)
	}
	// No overrides: an empty list in JSON, not null.
	plain, err := scenarios.Load("mmc", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(provenance.Of(plain))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"overrides":[]`) {
		t.Errorf("JSON %s: want \"overrides\":[]", b)
	}
}
