package dispatch

import (
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

func workers() []*Worker {
	return []*Worker{
		{ID: "a-1", Host: "a", Types: []string{"SHELL"}, Processors: []string{"sync"}, Tags: []string{"gpu"}, Slots: 4,
			Metrics: protocol.Metrics{CPUCores: 8, FreeMemoryMB: 8000, FreeDiskMB: 50000}},
		{ID: "b-1", Host: "b", Types: []string{"SHELL", "PYTHON"}, Slots: 4, Busy: 3,
			Metrics: protocol.Metrics{CPUCores: 2, FreeMemoryMB: 1000, FreeDiskMB: 100}},
		{ID: "c-1", Host: "c", Types: []string{"SHELL"}, Slots: 2, Busy: 2, Metrics: protocol.Metrics{CPUCores: 4, Load1: 1}},
	}
}

func ids(ws []*Worker) string {
	var out []string
	for _, w := range ws {
		out = append(out, w.ID)
	}
	return strings.Join(out, ",")
}

func TestEligible(t *testing.T) {
	cases := []struct {
		name string
		req  Requirements
		want string
	}{
		{"by type", Requirements{ProcessorType: "SHELL"}, "a-1,b-1,c-1"},
		{"python only on b", Requirements{ProcessorType: "PYTHON"}, "b-1"},
		{"go processor by name", Requirements{ProcessorType: "GO", Processor: "sync"}, "a-1"},
		{"designated by host", Requirements{ProcessorType: "SHELL", Filter: db.WorkerFilter{Designated: []string{"b", "c-1"}}}, "b-1,c-1"},
		{"tags", Requirements{ProcessorType: "SHELL", Filter: db.WorkerFilter{Tags: []string{"gpu"}}}, "a-1"},
		{"cores", Requirements{ProcessorType: "SHELL", Filter: db.WorkerFilter{MinCPUCores: 4}}, "a-1,c-1"},
		{"memory", Requirements{ProcessorType: "SHELL", Filter: db.WorkerFilter{MinMemoryMB: 2000}}, "a-1"},
		{"disk", Requirements{ProcessorType: "SHELL", Filter: db.WorkerFilter{MinDiskMB: 1000}}, "a-1"},
		{"nothing", Requirements{ProcessorType: "HTTP"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ids(c.req.Eligible(workers())); got != c.want {
				t.Fatalf("Eligible = %q; want %q", got, c.want)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	req := Requirements{ProcessorType: "GO", Processor: "report", Filter: db.WorkerFilter{Tags: []string{"gpu"}}}
	got := req.Explain("orders", workers())
	for _, want := range []string{"3 worker(s) of app \"orders\"", "does not register GO processor \"report\""} {
		if !strings.Contains(got, want) {
			t.Fatalf("Explain = %q; want it to contain %q", got, want)
		}
	}
	if got := req.Explain("orders", nil); !strings.Contains(got, "no worker of app \"orders\" is connected") {
		t.Fatalf("Explain with none = %q", got)
	}
}

func TestPick(t *testing.T) {
	ws := workers()
	p := NewPicker()
	// HEALTH_FIRST: a-1 has every slot free and a light load.
	if w := p.Pick(db.DispatchHealthFirst, ws); w == nil || w.ID != "a-1" {
		t.Fatalf("HEALTH_FIRST picked %v", w)
	}
	// Only workers with a free slot are picked: c-1 is full.
	seen := map[string]int{}
	for i := 0; i < 10; i++ {
		w := p.Pick(db.DispatchRoundRobin, ws)
		seen[w.ID]++
	}
	if seen["c-1"] != 0 || seen["a-1"] != 5 || seen["b-1"] != 5 {
		t.Fatalf("ROUND_ROBIN spread = %v", seen)
	}
	p.rand = func(n int) int { return n - 1 }
	if w := p.Pick(db.DispatchRandom, ws); w.ID != "b-1" {
		t.Fatalf("RANDOM picked %s", w.ID)
	}
	if w := p.Pick(db.DispatchHealthFirst, ws[2:]); w != nil {
		t.Fatalf("a full worker was picked: %v", w)
	}
}
