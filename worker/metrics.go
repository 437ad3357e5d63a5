package worker

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// collectMetrics measures what the server's HEALTH_FIRST selection and
// the jobs' minimum-resource filters look at. Figures the platform cannot
// give are 0 (load and memory come from /proc, so are 0 outside Linux).
func collectMetrics(workDir string) protocol.Metrics {
	return protocol.Metrics{
		CPUCores:     runtime.NumCPU(),
		Load1:        load1(),
		FreeMemoryMB: freeMemoryMB(),
		FreeDiskMB:   freeDiskMB(workDir),
	}
}

// load1 is the one-minute load average, the first field of /proc/loadavg.
func load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// freeMemoryMB is MemAvailable from /proc/meminfo: memory the kernel can
// give without swapping, counting reclaimable caches (MemFree does not).
func freeMemoryMB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return parseMemAvailable(b)
}

func parseMemAvailable(b []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		f := strings.Fields(rest) // "123456 kB"
		if len(f) == 0 {
			return 0
		}
		kb, _ := strconv.ParseInt(f[0], 10, 64)
		return kb / 1024
	}
	return 0
}
