package dispatch

import (
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Each connected worker is listed with the first filter that ruled it out,
// by id; one that could take the task is left out.
func TestVerdictsNameEachWorkersFilter(t *testing.T) {
	ws := []*Worker{
		{ID: "z-go", Host: "z", Types: []string{"SHELL"}, Slots: 1},
		{ID: "a-tag", Host: "a", Types: []string{"SHELL"}, Tags: []string{"cpu"}, Slots: 1},
		{ID: "b-cores", Host: "b", Types: []string{"SHELL"}, Tags: []string{"gpu"}, Slots: 1, Metrics: protocol.Metrics{CPUCores: 2, FreeMemoryMB: 9000, FreeDiskMB: 9000}},
		{ID: "c-mem", Host: "c", Types: []string{"SHELL"}, Tags: []string{"gpu"}, Slots: 1, Metrics: protocol.Metrics{CPUCores: 8, FreeMemoryMB: 100, FreeDiskMB: 9000}},
		{ID: "d-disk", Host: "d", Types: []string{"SHELL"}, Tags: []string{"gpu"}, Slots: 1, Metrics: protocol.Metrics{CPUCores: 8, FreeMemoryMB: 9000, FreeDiskMB: 10}},
		{ID: "e-drain", Host: "e", Types: []string{"SHELL"}, Tags: []string{"gpu"}, Slots: 1, Draining: true, Metrics: protocol.Metrics{CPUCores: 8, FreeMemoryMB: 9000, FreeDiskMB: 9000}},
		{ID: "f-full", Host: "f", Types: []string{"SHELL"}, Tags: []string{"gpu"}, Slots: 2, Busy: 2, Metrics: protocol.Metrics{CPUCores: 8, FreeMemoryMB: 9000, FreeDiskMB: 9000}},
		{ID: "g-ok", Host: "g", Types: []string{"SHELL"}, Tags: []string{"gpu"}, Slots: 2, Metrics: protocol.Metrics{CPUCores: 8, FreeMemoryMB: 9000, FreeDiskMB: 9000}},
		{ID: "h-python", Host: "h", Types: []string{"PYTHON"}, Slots: 1},
	}
	req := Requirements{ProcessorType: "SHELL", Filter: db.WorkerFilter{Tags: []string{"gpu"}, MinCPUCores: 4, MinMemoryMB: 1000, MinDiskMB: 1000}}
	got := req.Verdicts(ws, Usage{})
	want := []struct{ worker, filter, reason string }{
		{"a-tag", db.FilterTag, `lacks tag "gpu"`},
		{"b-cores", db.FilterCPU, "has 2 CPU cores, fewer than 4"},
		{"c-mem", db.FilterMemory, "has 100 MB free memory, less than 1000"},
		{"d-disk", db.FilterDisk, "has 10 MB free disk, less than 1000"},
		{"e-drain", db.FilterDraining, "is draining: it finishes its tasks and takes no new ones"},
		{"f-full", db.FilterFull, "has no free slot (2 slots)"},
		{"h-python", db.FilterProcessor, "does not run SHELL processors"},
		{"z-go", db.FilterTag, `lacks tag "gpu"`},
	}
	if len(got) != len(want) {
		t.Fatalf("Verdicts = %+v; want %d verdicts (all but g-ok)", got, len(want))
	}
	for i, w := range want {
		if g := got[i]; g.Worker != w.worker || g.Filter != w.filter || g.Reason != w.reason || g.Host == "" {
			t.Errorf("verdict %d = %+v; want %s %s %q", i, g, w.worker, w.filter, w.reason)
		}
	}

	designated := Requirements{ProcessorType: "SHELL", Filter: db.WorkerFilter{Designated: []string{"g"}}}
	if v := designated.Verdicts(ws[:1], Usage{}); len(v) != 1 || v[0].Filter != db.FilterDesignated {
		t.Errorf("designated: %+v", v)
	}
	gop := Requirements{ProcessorType: "GO", Processor: "sum"}
	if v := gop.Verdicts(ws[:1], Usage{}); len(v) != 1 || v[0].Filter != db.FilterProcessor || v[0].Reason != `does not register GO processor "sum"` {
		t.Errorf("GO processor: %+v", v)
	}
}

// An instance's own limits rule out workers that meet every requirement.
func TestVerdictsOfTheInstancesLimits(t *testing.T) {
	ws := []*Worker{
		{ID: "a", Host: "a", Types: []string{"SHELL"}, Slots: 4},
		{ID: "b", Host: "b", Types: []string{"SHELL"}, Slots: 4},
	}
	req := Requirements{ProcessorType: "SHELL"}
	got := req.Verdicts(ws, Usage{Used: map[string]int{"a": 2}, TaskConcurrency: 2, MaxWorkers: 1})
	if len(got) != 2 || got[0].Filter != db.FilterTaskLimit || got[1].Filter != db.FilterMaxWorkers {
		t.Fatalf("Verdicts = %+v; want a at its taskConcurrency, b over maxWorkers", got)
	}
}

// A finding that has not changed is not recorded again; its time alone
// does not count.
func TestFindingsChangedOnlyWhenTheVerdictsDo(t *testing.T) {
	var f Findings
	ws := []*Worker{{ID: "a", Host: "a", Types: []string{"SHELL"}, Tags: []string{"cpu"}, Slots: 1}}
	req := Requirements{ProcessorType: "SHELL", Filter: db.WorkerFilter{Tags: []string{"gpu"}}}
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if !f.Changed(1, req.NoWorker(t0, ws, Usage{})) {
		t.Fatal("first finding not recorded")
	}
	if f.Changed(1, req.NoWorker(t0.Add(time.Second), ws, Usage{})) {
		t.Fatal("the same finding a second later recorded again")
	}
	if !f.Changed(2, req.NoWorker(t0, ws, Usage{})) {
		t.Fatal("another instance's finding not recorded")
	}
	ws = append(ws, &Worker{ID: "b", Host: "b", Types: []string{"SHELL"}, Slots: 1})
	if !f.Changed(1, req.NoWorker(t0, ws, Usage{})) {
		t.Fatal("a finding with a worker more not recorded")
	}
	if nw := req.NoWorker(t0, nil, Usage{}); nw.Workers == nil || len(nw.Workers) != 0 {
		t.Fatalf("no worker connected: %+v; want an empty list, not null", nw.Workers)
	}
}
