package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// cpuShare measures where the machine's CPU time went over a scenario's
// measured phase: the server, PostgreSQL (every process named postgres, as
// the bench's database runs on the same machine), the agents, the bench
// process itself (its clients and subscribers), and what stayed idle.
// A goal that is not reached is bounded by whichever of these is near the
// machine's capacity; the server's pprof profile only explains the first.
type cpuShare struct {
	e     *env
	start time.Time
	t0    map[string]float64
}

func newCPUShare(e *env) *cpuShare {
	return &cpuShare{e: e, start: time.Now(), t0: cpuByPart(e)}
}

// finish returns CPU seconds per part over the phase, the wall seconds and
// the machine's capacity (wall × CPUs) for the scenario's JSON.
func (c *cpuShare) finish() map[string]float64 {
	t1 := cpuByPart(c.e)
	wall := time.Since(c.start).Seconds()
	out := map[string]float64{"wallSec": round(wall), "capacitySec": round(wall * float64(runtime.NumCPU()))}
	used := 0.0
	for k, v := range t1 {
		d := v - c.t0[k]
		used += d
		out[k+"Sec"] = round(d)
	}
	out["idleSec"] = round(wall*float64(runtime.NumCPU()) - used)
	return out
}

// cpuByPart reads /proc once: CPU seconds so far of each part. Processes
// that ended in between (a postgres backend) drop out, which can only
// understate PostgreSQL's share.
func cpuByPart(e *env) map[string]float64 {
	parts := map[string]float64{"server": cpuSeconds(e.srv.Pid()), "bench": cpuSeconds(os.Getpid())}
	for _, a := range e.agents {
		parts["agents"] += cpuSeconds(a.Pid())
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		comm, err := os.ReadFile(filepath.Join(d, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		parts["postgres"] += cpuSeconds(pid)
	}
	busy := machineBusySeconds()
	other := busy
	for _, v := range parts {
		other -= v
	}
	parts["other"] = other
	return parts
}

// machineBusySeconds is the machine's non-idle CPU time so far from
// /proc/stat, so that "other" (the kernel's own threads, anything else
// running) is accounted for too.
func machineBusySeconds() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)[1:]
	total := 0.0
	for i, s := range f {
		v, _ := strconv.ParseFloat(s, 64)
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 8 { // guest time is already in user
			break
		}
		total += v
	}
	return total / 100
}
