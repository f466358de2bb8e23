package scenarios_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/budgetsim/budgetsim/scenarios"
)

// TestEffective: the effective text is what was simulated: the file itself
// without overrides, and with them a document that reads back to the same
// configuration, says workers: 19 where --set workers=19 put it, and shows
// a key that only an override added (a retry budget).
func TestEffective(t *testing.T) {
	plain, err := scenarios.Load("mmc", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(plain.Effective()) != string(plain.Source) || len(plain.Overrides) != 0 {
		t.Fatalf("no overrides: effective text differs from the file, or overrides %q", plain.Overrides)
	}
	h := sha256.Sum256(plain.Source)
	if want := hex.EncodeToString(h[:]); plain.SHA256() != want {
		t.Errorf("SHA256 = %s, want %s (sha256sum of the file)", plain.SHA256(), want)
	}
	sets := []string{"workers=19", "retry.budget.kind=ratio", "retry.budget.ratio=0.1"}
	sc, err := scenarios.Load("mmc", sets)
	if err != nil {
		t.Fatal(err)
	}
	eff := string(sc.Effective())
	for _, want := range []string{"\nworkers: 19\n", "budget:", "ratio: 0.1"} {
		if !strings.Contains(eff, want) {
			t.Errorf("effective text lacks %q:\n%s", want, eff)
		}
	}
	if strings.Contains(eff, "workers: 10") || sc.SHA256() == plain.SHA256() {
		t.Errorf("effective text still has the file's workers, or the same fingerprint:\n%s", eff)
	}
	if strings.Join(sc.Overrides, " ") != strings.Join(sets, " ") {
		t.Errorf("Overrides = %q, want %q", sc.Overrides, sets)
	}
	// Comments are kept.
	tb, err := scenarios.Load("tool-bottleneck", []string{"workers=19"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tb.Effective()), "# Little's law says") {
		t.Errorf("effective text lost the file's comments:\n%s", tb.Effective())
	}
	// It reads back, with no overrides, to the configuration simulated.
	back, err := scenarios.Parse("effective.yaml", sc.Effective(), nil, nil)
	if err != nil {
		t.Fatalf("effective text does not load: %v\n%s", err, eff)
	}
	if back.Config.Workers != 19 || back.Config.Steps[0].Budget == nil || back.Config.Steps[0].Budget.Ratio != 0.1 {
		t.Errorf("effective text loads to workers %d, budget %+v", back.Config.Workers, back.Config.Steps[0].Budget)
	}
}
