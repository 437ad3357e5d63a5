package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// cpuShare measures where the machine's CPU time went over a scenario's
// measured phase: the server, PostgreSQL (every process named postgres, as
// the bench's database runs on the same machine), the agents, the bench
// process itself (its clients and subscribers), and what stayed idle.
// A goal that is not reached is bounded by whichever of these is near the
// machine's capacity; the server's pprof profile only explains the first.
//
// It also takes the phase's cost per unit of work (perJob): what the
// scenario's own database did — commits, rows written by table, the CPU of
// the backends serving it — and the server's and agents' CPU, divided by
// the instances (and tasks) the phase ran. Those figures hardly depend on
// what else the machine runs, so they compare commits with each other even
// on a busy machine, where latencies and throughput do not.
type cpuShare struct {
	e      *env
	settle bool
	start  time.Time
	t0, t1 map[string]float64
	wall   float64
	// The scenario database's counts and its backends' CPU, by pid.
	db0, db1   *db.DatabaseStats
	pg0, pg1   map[int]float64
	bench0     int64 // the bench's own statements (commits of its own)
	benchStmts int64
}

// statsSettle is how long PostgreSQL 15 may hold an idle backend's counts
// before publishing them (PGSTAT_IDLE_INTERVAL, 10 s), and a margin.
const statsSettle = 11 * time.Second

// newCPUShare starts measuring. settle is for a phase that starts and ends
// idle (api, tasks, workflow): the database's counts are read once what
// came before has been published, and again once the phase's own has; a
// steady phase (fires, shell) is read at its edges, where what is pending
// at the start and at the end is about the same.
func newCPUShare(e *env, settle bool) *cpuShare {
	c := &cpuShare{e: e, settle: settle}
	if settle {
		time.Sleep(statsSettle)
	}
	c.db0, c.pg0, c.bench0 = e.dbReading()
	c.start = time.Now()
	c.t0 = cpuByPart(e)
	return c
}

// finish returns CPU seconds per part over the phase, the wall seconds and
// the machine's capacity (wall × CPUs) for the scenario's JSON.
func (c *cpuShare) finish() map[string]float64 {
	c.t1 = cpuByPart(c.e)
	c.wall = time.Since(c.start).Seconds()
	_, c.pg1, _ = c.e.dbReading()
	if !c.settle {
		c.db1, _, c.benchStmts = c.e.dbReading()
	}
	out := map[string]float64{"wallSec": round(c.wall), "capacitySec": round(c.wall * float64(runtime.NumCPU()))}
	used := 0.0
	for k, v := range c.t1 {
		d := v - c.t0[k]
		used += d
		out[k+"Sec"] = round(d)
	}
	out["idleSec"] = round(c.wall*float64(runtime.NumCPU()) - used)
	return out
}

// perJob is the phase's cost per unit: units names what the phase ran
// ("instance", and "task" where instances have many) and how many. Call
// it after finish; for a settled phase it waits for the counts.
func (c *cpuShare) perJob(units map[string]int) map[string]any {
	if c.db0 == nil || c.pg1 == nil {
		return map[string]any{"error": "the database's statistics could not be read"}
	}
	if c.settle {
		time.Sleep(statsSettle)
		c.db1, _, c.benchStmts = c.e.dbReading()
	}
	if c.db1 == nil {
		return map[string]any{"error": "the database's statistics could not be read"}
	}
	// The backends' CPU: those alive at both readings by their difference,
	// those that started meanwhile by all they used (backends that ended
	// meanwhile are lost, which can only understate it).
	pgCPU := 0.0
	for pid, v := range c.pg1 {
		pgCPU += v - c.pg0[pid]
	}
	// The bench's own statements (its polling, these readings) are
	// commits too; they are not the system's.
	commits := float64(c.db1.Commits-c.db0.Commits) - float64(c.benchStmts-c.bench0)
	var ins, upd, hot, del float64
	byTable := map[string]map[string]int64{}
	names := make([]string, 0, len(c.db1.Tables))
	for name := range c.db1.Tables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a, b := c.db0.Tables[name], c.db1.Tables[name]
		d := db.TableStats{Inserted: b.Inserted - a.Inserted, Updated: b.Updated - a.Updated, HOTUpdated: b.HOTUpdated - a.HOTUpdated,
			Deleted: b.Deleted - a.Deleted}
		if d == (db.TableStats{}) {
			continue
		}
		ins, upd, hot, del = ins+float64(d.Inserted), upd+float64(d.Updated), hot+float64(d.HOTUpdated), del+float64(d.Deleted)
		byTable[name] = map[string]int64{"inserted": d.Inserted, "updated": d.Updated, "hotUpdated": d.HOTUpdated, "deleted": d.Deleted}
	}
	walRecords, walBytes := float64(c.db1.WALRecords-c.db0.WALRecords), float64(c.db1.WALBytes-c.db0.WALBytes)
	out := map[string]any{
		"wallSec": round(c.wall), "commits": commits, "rowsInserted": ins, "rowsUpdated": upd, "rowsHotUpdated": hot,
		"rowsDeleted": del, "postgresBackendsCpuSec": round(pgCPU), "byTable": byTable,
		"walRecords": walRecords, "walBytes": walBytes,
	}
	for unit, n := range units {
		if n <= 0 {
			continue
		}
		per := func(v float64) float64 { return round(v / float64(n)) }
		us := func(sec float64) float64 { return round(sec * 1e6 / float64(n)) }
		out["per"+strings.ToUpper(unit[:1])+unit[1:]] = map[string]any{
			"n": n, "postgresCpuUs": us(pgCPU), "serverCpuUs": us(c.t1["server"] - c.t0["server"]),
			"agentsCpuUs": us(c.t1["agents"] - c.t0["agents"]),
			"commits":     per(commits), "rowsInserted": per(ins), "rowsUpdated": per(upd), "rowsHotUpdated": per(hot),
			"rowsDeleted": per(del), "walRecords": per(walRecords), "walKB": round(walBytes / 1024 / float64(n)),
		}
	}
	return out
}

// dbReading reads the scenario database's counts, the CPU seconds of each
// backend serving it, and how many statements the bench itself has sent.
// Any failure gives nils: the figures are left out, not wrong.
func (e *env) dbReading() (*db.DatabaseStats, map[int]float64, int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := e.db.DatabaseStatsRead(ctx)
	if err != nil {
		return nil, nil, 0
	}
	cpu := make(map[int]float64, len(st.Backends))
	for _, b := range st.Backends {
		if b.Application != benchApplication {
			cpu[b.PID] = cpuSeconds(b.PID)
		}
	}
	return st, cpu, e.stmts.Load()
}

// cpuByPart reads /proc once: CPU seconds so far of each part. Processes
// that ended in between (a postgres backend) drop out, which can only
// understate PostgreSQL's share.
func cpuByPart(e *env) map[string]float64 {
	parts := map[string]float64{"server": e.serversCPU(), "bench": cpuSeconds(os.Getpid())}
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

// serversCPU is the CPU seconds of the scenario's server, or of its
// servers: a server that has ended counts what it used until its last
// reading (call cpuByPart before killing one).
func (e *env) serversCPU() float64 {
	if len(e.servers) == 0 {
		return cpuSeconds(e.srv.Pid())
	}
	if e.serverCPU == nil {
		e.serverCPU = map[int]float64{}
	}
	total := 0.0
	for _, s := range e.servers {
		pid := s.Pid()
		if v := cpuSeconds(pid); v > 0 {
			e.serverCPU[pid] = v
		}
		total += e.serverCPU[pid]
	}
	return total
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
