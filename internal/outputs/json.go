package outputs

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/budgetsim/budgetsim/internal/provenance"
)

// Objective is a service-level objective a sweep chart draws: a line at
// Threshold on the chart of its Figure.
type Objective struct {
	Text      string  // as written, for the legend: "p99<=3s"
	Figure    string  // "p50", "p99", "p999" (seconds) or "success" (a fraction)
	Threshold float64 // seconds, or the least success rate
}

// Plan is what the charts draw of plan.json: the objectives as written
// (plan/search's grammar, "p99<=2s"), the answer and what produced it.
type Plan struct {
	SLOs []string
	// Answer is the parameter's value the plan answered; Found is false
	// when no value met every objective.
	Answer float64
	Found  bool
	// Provenance is the plan's scenario (the overrides every probe
	// shares; each probe adds its value); nil without.
	Provenance *provenance.Record
}

// ReadPlan reads plan.json (simulate plan --out) as the charts draw it.
// The page reads the whole answer with ReadJSON into plan/search's
// PlanFile, the type plan writes.
func ReadPlan(r io.Reader, name string) (*Plan, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var p struct {
		Provenance *provenance.Record `json:"provenance"`
		Value      *float64           `json:"value"`
		Found      bool               `json:"found"`
		SLOs       []string           `json:"slos"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, jsonError(name, data, err)
	}
	out := &Plan{SLOs: p.SLOs, Found: p.Found && p.Value != nil, Provenance: p.Provenance}
	if out.Found {
		out.Answer = *p.Value
	}
	return out, nil
}

// ReadSweepProvenance reads the provenance of sweep.json's first point
// (simulate sweep|merge --out): the scenario as that point simulated it;
// nil when the file records none. It decodes the points one at a time and
// keeps none of them.
func ReadSweepProvenance(r io.Reader, name string) (*provenance.Record, error) {
	var first *provenance.Record
	_, err := ReadArray(r, name, func(dec *json.Decoder, i int) error {
		var p struct {
			Provenance *provenance.Record `json:"provenance"`
		}
		if err := dec.Decode(&p); err != nil {
			return err
		}
		if i == 0 {
			first = p.Provenance
		}
		return nil
	})
	return first, err
}

// WriteJSON writes v as indented JSON followed by a newline: the format of
// every JSON file of a results directory. encoding/json formats floats
// deterministically, so equal values give equal bytes.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// ReadJSON reads a JSON file into a value of the type its writer wrote
// (plan/search.PlanFile for plan.json); name labels errors.
func ReadJSON[T any](r io.Reader, name string) (*T, error) {
	v := new(T)
	if err := json.NewDecoder(r).Decode(v); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// ReadArray reads a JSON array element by element: each decodes element
// i from dec (into a value, or into struct{} to read past it), so that
// memory holds one element at a time however long the array. It returns
// the number of elements; an error names the element.
func ReadArray(r io.Reader, name string, each func(dec *json.Decoder, i int) error) (int, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return 0, fmt.Errorf("%s: want a JSON array, got %v", name, tok)
	}
	n := 0
	for dec.More() {
		if err := each(dec, n); err != nil {
			return n, fmt.Errorf("%s: element %d: %w", name, n+1, err)
		}
		n++
	}
	if _, err := dec.Token(); err != nil {
		return n, fmt.Errorf("%s: %w", name, err)
	}
	return n, nil
}
