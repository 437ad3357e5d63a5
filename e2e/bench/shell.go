package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// shellScenario runs the shell scenario once (-shell-jobs) or, with
// -shell-sweep, once per job count on a fresh server and agent each, and
// names the largest count at which nothing was CANCELED.
func (b *bench) shellScenario(o options) map[string]any {
	if len(o.shellSweep) == 0 {
		return b.shell(o.shellJobs, o.seconds, o.shellSlots)
	}
	var runs []map[string]any
	largest := 0
	for _, n := range o.shellSweep {
		run := newBench(b.profileDir)
		out := func() map[string]any {
			defer run.Close()
			return run.shell(n, o.seconds, o.shellSlots)
		}()
		runs = append(runs, out)
		if out["canceled"] == 0 && out["missed"] == 0 && n > largest {
			largest = n
		}
	}
	return map[string]any{"sweep": o.shellSweep, "seconds": o.seconds, "runs": runs, "largestJobsWithoutCanceled": largest}
}

// shell: n SHELL `true` jobs firing every second through one agent started
// with its defaults (slots, everything, unless slots > 0), for seconds.
func (b *bench) shell(n, seconds, slots int) map[string]any {
	e := b.start(1, slots)
	ctx := context.Background()
	ids := make([]string, 0, n)
	for i := 0; i < n; i++ {
		id, err := e.c.CreateJob(map[string]any{"app": "bench", "name": fmt.Sprintf("true-%d", i), "scheduleType": "CRON",
			"scheduleExpression": "* * * * * ?", "processorType": "SHELL", "processor": "true"})
		if err != nil {
			b.Fatalf("creating job %d: %v", i, err)
		}
		ids = append(ids, id)
	}
	from := time.Now().Truncate(time.Second).Add(3 * time.Second)
	to := from.Add(time.Duration(seconds) * time.Second)
	time.Sleep(time.Until(from))
	prof := b.profile(e, fmt.Sprintf("shell-%d", n))
	share := newCPUShare(e, false)
	cpu0 := cpuSeconds(e.srv.Pid())
	agentCPU0 := cpuSeconds(e.agents[0].Pid())
	childCPU0 := childrenCPUSeconds(e.agents[0].Pid())
	time.Sleep(time.Until(to))
	cpu1 := cpuSeconds(e.srv.Pid())
	agentCPU1 := cpuSeconds(e.agents[0].Pid())
	childCPU1 := childrenCPUSeconds(e.agents[0].Pid())
	cpuShare := share.finish()
	profiles := prof.finish()
	for _, id := range ids {
		_ = e.c.Do(`mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": id}, nil)
	}
	// The window's last fires finish (or are canceled) before they are
	// counted; a bound, not a measurement.
	var rows []instanceTimes
	deadline := time.Now().Add(time.Minute)
	for {
		var err error
		rows, err = b.instanceTimes(ctx, e, from, to)
		if err != nil {
			b.Fatalf("%v", err)
		}
		if finished(rows) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	agentRSS := peakRSSMB(e.agents[0].Pid())
	perJob := share.perJob(map[string]int{"instance": len(rows)})
	type key struct {
		job int64
		at  int64
	}
	seen := map[key]bool{}
	statuses := map[string]int{}
	canceledBy := map[string]int{}
	ran, canceled := 0, 0
	var lateness, overhead []float64
	for _, r := range rows {
		seen[key{r.JobID, r.ExpectedTriggerAt.Unix()}] = true
		statuses[r.Status]++
		if r.Status == "CANCELED" {
			canceled++
			canceledBy[r.Reason]++
		}
		if r.StartedAt != nil {
			ran++
			lateness = append(lateness, ms(r.StartedAt.Sub(*r.ExpectedTriggerAt)))
			if r.FinishedAt != nil {
				overhead = append(overhead, ms(r.FinishedAt.Sub(*r.StartedAt)))
			}
		}
	}
	sort.Float64s(lateness)
	sort.Float64s(overhead)
	expected := n * seconds
	return map[string]any{
		"jobs": n, "seconds": seconds, "workers": 1, "agentSlots": slotsName(slots),
		"expectedFires": expected, "fires": len(rows), "missed": expected - len(seen),
		"ran": ran, "canceled": canceled, "canceledByReason": canceledBy, "statuses": statuses,
		// Expected fire time to the task started on the agent.
		"startLatenessMs": map[string]any{"p50": pct(lateness, 50), "p99": pct(lateness, 99), "max": pct(lateness, 100)},
		// Started to finished as the agent reports them: what running
		// `true` costs the worker (directory, file, process, logs,
		// report) while the task holds its slot.
		"taskOverheadMs": map[string]any{"p50": pct(overhead, 50), "p99": pct(overhead, 99), "max": pct(overhead, 100)},
		"agentPeakRssMB": agentRSS,
		"agentCpuSec":    round(agentCPU1 - agentCPU0),
		// The scripts' own CPU (the agent's reaped children), and both
		// per task finished in the window: what a script costs the
		// worker's machine, the agent's share apart from the process's.
		"scriptsCpuSec":       round(childCPU1 - childCPU0),
		"agentCpuUsPerTask":   perUnit(agentCPU1-agentCPU0, len(overhead)),
		"scriptsCpuUsPerTask": perUnit(childCPU1-childCPU0, len(overhead)),
		"serverCpuSec":        round(cpu1 - cpu0),
		"serverPeakRssMB":     peakRSSMB(e.srv.Pid()),
		"profiles":            profiles,
		"cpuSec":              cpuShare,
		"perJob":              perJob,
	}
}

// instanceTimes is what the shell scenario reads of each fire.
type instanceTimes struct {
	JobID             int64      `bun:"job_id"`
	ExpectedTriggerAt *time.Time `bun:"expected_trigger_at"`
	StartedAt         *time.Time `bun:"started_at"`
	FinishedAt        *time.Time `bun:"finished_at"`
	Status            string     `bun:"status"`
	Reason            string     `bun:"reason"`
}

func (b *bench) instanceTimes(ctx context.Context, e *env, from, to time.Time) ([]instanceTimes, error) {
	var rows []instanceTimes
	err := e.db.Bun().NewRaw(`SELECT job_id, expected_trigger_at, started_at, finished_at, status, reason FROM instances
		WHERE app_id = ? AND expected_trigger_at >= ? AND expected_trigger_at < ?`, e.appID, from, to).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("reading the window's instances: %w", err)
	}
	return rows, nil
}

// finished says whether every instance is in a final state.
func finished(rows []instanceTimes) bool {
	for _, r := range rows {
		switch r.Status {
		case "SUCCEEDED", "FAILED", "STOPPED", "CANCELED":
		default:
			return false
		}
	}
	return true
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// perUnit is seconds per unit, in microseconds (0 without units).
func perUnit(sec float64, units int) float64 {
	if units == 0 {
		return 0
	}
	return round(sec * 1e6 / float64(units))
}

// loadAvg is the machine's 1-minute load average at the end of a run: CPU
// figures taken while other work shares the cores read higher.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}

// slotsName is the agent's slots as the JSON reports them.
func slotsName(slots int) any {
	if slots <= 0 {
		return "default"
	}
	return slots
}
