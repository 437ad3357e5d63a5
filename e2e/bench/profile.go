package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// profiler records the server's CPU profile over a scenario's measured
// phase, then its heap profile, into the -profile directory as
// <name>-cpu.pb.gz and <name>-heap.pb.gz (for `go tool pprof`).
//
// A CPU profile over HTTP lasts a number of seconds fixed when it is asked
// for, and a phase's length is often not known in advance (until every
// instance finished), so the profile is taken in one-second pieces back to
// back and merged at the end with `go tool pprof -proto`; the phase is
// covered to within a second.
type profiler struct {
	b      *bench
	addr   string
	name   string
	stop   chan struct{}
	done   chan struct{}
	pieces []string
	err    error
}

// profile starts profiling e's server as name; nil (which finish accepts)
// unless -profile was given.
func (b *bench) profile(e *env, name string) *profiler {
	if b.profileDir == "" || e.debugAddr == "" {
		return nil
	}
	p := &profiler{b: b, addr: e.debugAddr, name: name, stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *profiler) run() {
	defer close(p.done)
	for i := 0; ; i++ {
		select {
		case <-p.stop:
			return
		default:
		}
		file := filepath.Join(p.b.profileDir, fmt.Sprintf("%s-cpu.%04d.pb.gz", p.name, i))
		if err := p.get("/debug/pprof/profile?seconds=1", file); err != nil {
			p.err = err
			return
		}
		p.pieces = append(p.pieces, file)
	}
}

// get saves what the debug listener answers at path into file.
func (p *profiler) get(path, file string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.addr+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("profiling the server (an old binary without JOBWHEEL_DEBUG_ADDR?): %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, body)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return fmt.Errorf("saving %s: %w", file, err)
	}
	return f.Close()
}

// finish ends the CPU profile, takes the heap profile and merges the CPU
// pieces. It returns the files written (for the scenario's JSON); a
// failure is reported on stderr and leaves the figures alone.
func (p *profiler) finish() map[string]string {
	if p == nil {
		return nil
	}
	close(p.stop)
	<-p.done
	out := map[string]string{}
	heap := filepath.Join(p.b.profileDir, p.name+"-heap.pb.gz")
	if err := p.get("/debug/pprof/heap", heap); err != nil {
		p.b.Logf("bench: %s: heap profile: %v", p.name, err)
	} else {
		out["heap"] = heap
	}
	if p.err != nil {
		p.b.Logf("bench: %s: CPU profile: %v", p.name, p.err)
	}
	if len(p.pieces) == 0 {
		return out
	}
	cpu := filepath.Join(p.b.profileDir, p.name+"-cpu.pb.gz")
	if err := mergeProfiles(cpu, p.pieces); err != nil {
		p.b.Logf("bench: %s: merging the CPU profile's pieces (left as %s-cpu.NNNN.pb.gz; go tool pprof takes them all): %v", p.name, p.name, err)
		return out
	}
	for _, f := range p.pieces {
		_ = os.Remove(f)
	}
	out["cpu"] = cpu
	return out
}

// mergeProfiles writes the profiles in pieces as one, with go tool pprof.
func mergeProfiles(to string, pieces []string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	f, err := os.Create(to)
	if err != nil {
		return err
	}
	cmd := exec.Command(goBin, append([]string{"tool", "pprof", "-proto"}, pieces...)...)
	var msg strings.Builder
	cmd.Stdout, cmd.Stderr = f, &msg
	err = cmd.Run()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(to)
		return fmt.Errorf("%w: %s", err, msg.String())
	}
	return nil
}
