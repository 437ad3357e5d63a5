package dispatch

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/jobwheel/jobwheel/db"
)

// PickFor is Pick for a task of an instance: CONSISTENT_HASH needs the
// instance's key (key returns it, as Key computes it); the other
// strategies never ask for it.
func (p *Picker) PickFor(strategy string, key func() string, candidates []*Worker) *Worker {
	if strategy != db.DispatchConsistentHash {
		return p.Pick(strategy, candidates)
	}
	w := consistentHash(key(), candidates)
	if w == nil || w.Free() <= 0 {
		// The key's worker is busy: its task waits for it rather than go
		// elsewhere, which is what affinity is for.
		return nil
	}
	p.used(w, candidates)
	return w
}

// Key is what CONSISTENT_HASH hashes for an instance: the "key" member of
// its params when they are a JSON object with a string or number "key"
// (e.g. {"key": "customer-42"}), else the job.
func Key(jobID int64, params string) string {
	if strings.HasPrefix(strings.TrimSpace(params), "{") {
		var p struct {
			Key json.RawMessage `json:"key"`
		}
		if json.Unmarshal([]byte(params), &p) == nil && len(p.Key) > 0 {
			var s string
			if json.Unmarshal(p.Key, &s) == nil && s != "" {
				return "key:" + s
			}
			var n json.Number
			if json.Unmarshal(p.Key, &n) == nil {
				return "key:" + n.String()
			}
		}
	}
	return "job:" + strconv.FormatInt(jobID, 10)
}

// consistentHash picks by rendezvous hashing: the candidate whose hash
// with the key is highest. A key keeps its worker while that worker stays
// a candidate; when one leaves, only its keys move, each to its next
// highest; when one joins it takes only the keys it now ranks first for.
func consistentHash(key string, candidates []*Worker) *Worker {
	var best *Worker
	var bestScore uint64
	for _, w := range candidates {
		h := fnv.New64a()
		_, _ = h.Write([]byte(key))
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(w.ID))
		// FNV's last bytes barely reach its high bits: mix them.
		score := mix(h.Sum64())
		if best == nil || score > bestScore || (score == bestScore && w.ID < best.ID) {
			best, bestScore = w, score
		}
	}
	return best
}

// mix is the SplitMix64 finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// leastRecentlyUsed is the free worker picked longest ago (never first,
// then by id as the candidates come).
func (p *Picker) leastRecentlyUsed(free []*Worker) *Worker {
	best := free[0]
	for _, w := range free[1:] {
		if p.lastPicked[w.ID] < p.lastPicked[best.ID] {
			best = w
		}
	}
	return best
}

// used records a pick. Workers no longer among the candidates are
// forgotten once the record grows well past them, so it stays bounded
// while workers come and go.
func (p *Picker) used(w *Worker, candidates []*Worker) {
	if w == nil {
		return
	}
	if p.lastPicked == nil {
		p.lastPicked = map[string]uint64{}
	}
	p.picks++
	p.lastPicked[w.ID] = p.picks
	if len(p.lastPicked) > 4*len(candidates)+64 {
		keep := make(map[string]uint64, len(candidates))
		for _, c := range candidates {
			if n, ok := p.lastPicked[c.ID]; ok {
				keep[c.ID] = n
			}
		}
		p.lastPicked = keep
	}
}
