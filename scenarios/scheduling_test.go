package scenarios_test

import (
	"testing"

	"github.com/budgetsim/budgetsim/model/system"
	"github.com/budgetsim/budgetsim/scenarios"
)

// twoTenants is a top of two classes, whose tenants default to their names.
const twoTenants = "classes: [{name: free}, {name: paying, priority: 0}]\n"

func TestParseScheduling(t *testing.T) {
	runRows(t, []row{
		{name: "valid", top: "scheduling: {workers: fair}\n" + twoTenants + "tenants: {free: {weight: 1, max_in_flight: 2}, paying: {weight: 3}}", want: ""},
		{name: "workers/word", top: "scheduling: {workers: lifo}", want: "t.yaml:4: scheduling.workers: must be one of fifo, priority, fair, got \"lifo\" (did you mean \"fifo\"?)"},
		{name: "workers/typo", top: "scheduling: {wokers: fair}", want: "t.yaml:4: scheduling.wokers: unknown key (did you mean \"workers\"?); allowed here: workers"},
		{name: "tenants/no-classes", top: "tenants: {free: {weight: 1}}", want: "t.yaml:4: tenants.free: a tenant's runs are those of the classes that name it, and the scenario has no classes: add classes with tenant: free (a class's tenant defaults to its name)"},
		{name: "tenants/unnamed", top: twoTenants + "tenants:\n  fre: {weight: 1}", want: "t.yaml:6: tenants.fre: no class names this tenant (did you mean \"free\"?) (classes[].tenant, which defaults to the class's name; the classes' tenants: free, paying)"},
		{name: "tenants/weight-zero", top: twoTenants + "tenants:\n  free: {weight: 0}", want: "t.yaml:6: tenants.free.weight: must be in (0, 1e+09], got 0"},
		{name: "tenants/weight-negative", top: twoTenants + "tenants:\n  free: {weight: -1}", want: "t.yaml:6: tenants.free.weight: must be in (0, 1e+09], got -1"},
		{name: "tenants/cap-zero", top: twoTenants + "tenants:\n  free: {max_in_flight: 0}", want: "t.yaml:6: tenants.free.max_in_flight: must be in [1, 100000000], got 0"},
		{name: "tenants/typo", top: twoTenants + "tenants:\n  free: {max_inflight: 2}", want: "t.yaml:6: tenants.free.max_inflight: unknown key (did you mean \"max_in_flight\"?); allowed here: max_in_flight, weight"},
		{name: "tenants/scalar", top: twoTenants + "tenants:\n  free: 3", want: "t.yaml:6: tenants.free: must be a mapping (key: value lines), got \"3\""},
	})
}

func TestParseToolDiscipline(t *testing.T) {
	runRows(t, []row{
		{name: "valid", tool: "concurrency: 2, queue: {discipline: priority}", want: ""},
		{name: "word", tool: "concurrency: 2, queue: {discipline: random}", want: "t.yaml:8: tools.t.queue.discipline: must be one of fifo, priority, fair, got \"random\""},
	})
}

// TestSchedulingConfig: the keys reach the Config, and a class's tenant
// defaults to its name.
func TestSchedulingConfig(t *testing.T) {
	src := row{top: "scheduling: {workers: priority}\n" + twoTenants + "tenants: {free: {max_in_flight: 2}, paying: {weight: 3}}",
		tool: "concurrency: 2, queue: {discipline: fair}"}.src()
	sc, err := scenarios.Parse("t.yaml", []byte(src), nil, latencyFiles)
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Config
	want := []system.Tenant{{Name: "free", Weight: 1, MaxInFlight: 2}, {Name: "paying", Weight: 3}}
	if c.Scheduling.Workers != system.PriorityOrder || len(c.Scheduling.Tenants) != 2 || c.Scheduling.Tenants[0] != want[0] || c.Scheduling.Tenants[1] != want[1] {
		t.Errorf("scheduling = %+v, want priority over %+v", c.Scheduling, want)
	}
	if c.Tools[0].Discipline != system.FairShare {
		t.Errorf("tool discipline = %v, want fair", c.Tools[0].Discipline)
	}
	sc, err = scenarios.Parse("t.yaml", []byte(src), []string{"scheduling.workers=fifo"}, latencyFiles)
	if err != nil || sc.Config.Scheduling.Workers != system.FIFO {
		t.Errorf("--set scheduling.workers=fifo: %v, %v", err, sc)
	}
}
