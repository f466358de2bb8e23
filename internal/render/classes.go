package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/budgetsim/budgetsim/model/summary"
)

// ClassTable writes the per-class table of a summary whose scenario has
// classes of work (nothing otherwise): each class's share of the arrivals,
// success rate, completion-time percentiles, mean wait, share of the
// workers' time, attempts and cost per run, with the intervals the summary has.
func ClassTable(w io.Writer, s *summary.Summary) error {
	if len(s.Classes) == 0 {
		return nil
	}
	header := []string{"class", "share", "arrived", "success", "p50", "p90", "p99", "mean wait", "worker share", "attempts/run", "retries"}
	cost := s.Cost != nil
	if cost {
		header = append(header, "cost/run", "cost/success")
	}
	var rows [][]string
	for _, name := range s.ClassNames() {
		c := s.Classes[name]
		success, p99 := "n/a", "–"
		if c.Runs.Arrived > 0 {
			success = Percent(c.SuccessRate)
		}
		if ci := c.Confidence; ci != nil && c.Runs.Arrived > 0 {
			success += fmt.Sprintf(" [%s, %s]", Percent(ci.SuccessRate.Lo), Percent(ci.SuccessRate.Hi))
		}
		p50, p90, wait := "–", "–", "–"
		if c.Latency.N > 0 {
			p50, p90, p99 = Seconds(c.Latency.P50), Seconds(c.Latency.P90), Seconds(c.Latency.P99)
			if ci := c.Confidence; ci != nil {
				p99 += " ±" + Seconds((ci.Latency.P99.Hi-ci.Latency.P99.Lo)/2)
			}
		}
		if c.Wait.N > 0 {
			wait = Seconds(c.Wait.Mean)
		}
		row := []string{name, Percent(c.Share), Number(float64(c.Runs.Arrived)), success, p50, p90, p99, wait, Percent(c.WorkerShare), Number(c.PerRun), Number(float64(c.Retries))}
		if cost {
			perRun, perSuccess := "–", "–"
			if c.Cost != nil {
				perRun = Number(c.Cost.PerRun)
				if c.Runs.Completed > 0 {
					perSuccess = Number(c.Cost.PerSuccess)
				}
			}
			row = append(row, perRun, perSuccess)
		}
		rows = append(rows, row)
	}
	if err := Table(w, header, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// TenantTable writes the per-tenant table of a summary that has tenant
// figures (summary.Summary.Tenants; nothing otherwise): each tenant's
// weight, classes, arrivals, and its shares of the runs handed a worker,
// of the completed runs and of the workers' time. Under fair queuing, the
// share of runs handed a worker is the weight's share while every tenant
// has runs waiting.
func TenantTable(w io.Writer, s *summary.Summary) error {
	if len(s.Tenants) == 0 {
		return nil
	}
	header := []string{"tenant", "weight", "classes", "arrived", "started share", "completed share", "worker share"}
	var rows [][]string
	for _, name := range s.TenantNames() {
		t := s.Tenants[name]
		rows = append(rows, []string{name, Number(t.Weight), strings.Join(t.Classes, ", "), Number(float64(t.Arrived)),
			Percent(t.StartedShare), Percent(t.CompletedShare), Percent(t.WorkerShare)})
	}
	if err := Table(w, header, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}
