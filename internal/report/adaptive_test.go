package report

import (
	"strings"
	"testing"
)

// TestAdaptive: a scenario with adaptive concurrency gets the table of its
// limits and the chart of the limit over time, drawn.
func TestAdaptive(t *testing.T) {
	r, html := writeReport(t, load(t, "adaptive-concurrency"), Options{Replications: 1}, "2025-01-31")
	if doc := string(html); !strings.Contains(doc, "<caption>Adaptive concurrency</caption>") || !strings.Contains(doc, "aimd ") {
		t.Errorf("report lacks the adaptive concurrency table")
	}
	found := false
	for _, f := range figuresOf(r) {
		if f.Name == "concurrency_limit" {
			found = true
			if f.Skipped != "" {
				t.Errorf("concurrency_limit chart skipped: %s", f.Skipped)
			}
		}
	}
	if !found {
		t.Errorf("report has no concurrency_limit chart")
	}
}

// TestModelAPI: a scenario with a model API gets the table of its
// per-minute limits, the binding one marked, and the chart of their use,
// drawn.
func TestModelAPI(t *testing.T) {
	r, html := writeReport(t, load(t, "model-api"), Options{Replications: 1}, "2025-01-31")
	doc := string(html)
	if !strings.Contains(doc, "<caption>Model APIs</caption>") || !strings.Contains(doc, "← binds") || !strings.Contains(doc, "Model API llm:") {
		t.Errorf("report lacks the model APIs' table, its binding limit or its line")
	}
	found := false
	for _, f := range figuresOf(r) {
		if f.Name == "tokens" {
			found = true
			if f.Skipped != "" {
				t.Errorf("tokens chart skipped: %s", f.Skipped)
			}
		}
	}
	if !found {
		t.Errorf("report has no tokens chart")
	}
}
