package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/graph/client"
)

// logs: one agent runs `instances` instances of example.logs at once,
// writing rate lines per second in all for seconds; a subscriber on one
// GraphQL websocket follows every instance's log (instanceLogs). Each line
// carries the time the worker wrote it, compared when it arrives: the
// whole path (worker buffer, frame, server, database, hint, re-read,
// websocket). Lines stored per second are counted in the database.
func (b *bench) logs(rate, instances, seconds int) map[string]any {
	if instances < 1 || rate < instances {
		b.Fatalf("logs: -log-rate %d must be at least -log-instances %d (one line per second each)", rate, instances)
	}
	e := b.start(1, instances+8)
	ctx := context.Background()
	const delay = 2 * time.Second
	perInstance := float64(rate) / float64(instances)
	params, _ := json.Marshal(map[string]any{"perSecond": perInstance, "seconds": seconds, "delayMs": delay.Milliseconds()})
	jobID, err := e.c.CreateJob(map[string]any{"app": "bench", "name": "chatty", "scheduleType": "API",
		"processorType": "GO", "processor": "example.logs", "params": string(params), "maxInstances": instances})
	if err != nil {
		b.Fatalf("%v", err)
	}
	conn, err := client.Dial(ctx, e.c.URL, client.Options{Token: e.c.Token})
	if err != nil {
		b.Fatalf("opening the subscriber's websocket: %v", err)
	}
	defer conn.Close()

	var (
		mu        sync.Mutex
		latencies []float64
		received  int
		subErrs   []error
		wg        sync.WaitGroup
	)
	// Each subscription ends when its instance has ended, or at this bound.
	subCtx, cancel := context.WithTimeout(ctx, delay+time.Duration(seconds)*time.Second+2*time.Minute)
	defer cancel()
	var ids []int64
	prof := b.profile(e, "logs")
	share := newCPUShare(e, false)
	started := time.Now()
	for i := 0; i < instances; i++ {
		id, err := e.c.RunJob(jobID, "")
		if err != nil {
			b.Fatalf("runJob: %v", err)
		}
		n, _ := strconv.ParseInt(id, 10, 64)
		ids = append(ids, n)
		// Subscribed right after the run is created: the worker writes
		// its first line `delay` after it starts.
		sub, err := conn.Subscribe(subCtx, `subscription($id: ID!) { instanceLogs(instanceId: $id) { seq text } }`, map[string]any{"id": id})
		if err != nil {
			b.Fatalf("subscribing to instance %s's log: %v", id, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []float64
			count := 0
			for {
				data, err := sub.Next(subCtx)
				if err != nil {
					if !errors.Is(err, io.EOF) && !errors.Is(err, context.DeadlineExceeded) {
						mu.Lock()
						subErrs = append(subErrs, fmt.Errorf("instance %s: %w", id, err))
						mu.Unlock()
					}
					break
				}
				now := time.Now().UnixNano()
				var line struct{ InstanceLogs struct{ Text string } }
				if json.Unmarshal(data, &line) != nil {
					continue
				}
				f := strings.Fields(line.InstanceLogs.Text)
				if len(f) != 3 || f[0] != "bench-log" {
					continue
				}
				at, err := strconv.ParseInt(f[2], 10, 64)
				if err != nil {
					continue
				}
				count++
				mine = append(mine, float64(now-at)/1e6)
				if count == int(perInstance*float64(seconds)) {
					break // all of its lines: the instance is about to end
				}
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			received += count
			mu.Unlock()
		}()
	}
	// Every instance ends; then the subscribers have what they will get.
	deadline := started.Add(delay + time.Duration(seconds)*time.Second + 2*time.Minute)
	for {
		counts, err := e.db.InstanceStatusCounts(ctx, e.appID)
		if err != nil {
			b.Fatalf("%v", err)
		}
		if counts["SUCCEEDED"]+counts["FAILED"]+counts["CANCELED"]+counts["STOPPED"] >= instances || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	took := time.Since(started)
	cpuShare := share.finish()
	profiles := prof.finish()
	// Lines still on their way get a moment before the subscriptions stop.
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		cancel()
		<-waited
	}
	var stored int
	var first, last time.Time
	if err := e.db.Bun().NewRaw(`SELECT count(*), min(time), max(time) FROM instance_logs WHERE instance_id IN (?)`,
		bun.List(ids)).Scan(ctx, &stored, &first, &last); err != nil {
		b.Fatalf("counting stored lines: %v", err)
	}
	counts, _ := e.db.InstanceStatusCounts(ctx, e.appID)
	perJob := share.perJob(map[string]int{"line": stored, "instance": instances})
	sort.Float64s(latencies)
	expected := int(perInstance*float64(seconds)) * instances
	var errText []string
	for _, err := range subErrs {
		errText = append(errText, err.Error())
	}
	return map[string]any{
		"linesPerSec": rate, "instances": instances, "seconds": seconds, "workers": 1,
		"expectedLines": expected, "receivedLines": received, "storedLines": stored,
		// Lines stored over the span their workers wrote them in.
		"storedLinesPerSec": round(float64(stored) / max(last.Sub(first).Seconds(), 1)),
		// Written on the worker to received by the websocket subscriber.
		"lineToSubscriberMs": map[string]any{"p50": pct(latencies, 50), "p99": pct(latencies, 99), "max": pct(latencies, 100)},
		"statuses":           counts,
		"subscriptionErrors": errText,
		"tookSec":            round(took.Seconds()),
		"serverPeakRssMB":    peakRSSMB(e.srv.Pid()),
		"profiles":           profiles,
		"cpuSec":             cpuShare,
		"perJob":             perJob,
	}
}
