package logs

import (
	"fmt"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// A worker may have several log batches in flight. If an earlier one fails
// to store (the database failing over) and a later one of the same
// instance is stored by the next transaction, the earlier lines, sent
// again, would get sequence numbers after the later ones: out of order.
// So a batch that failed with the database (a broken connection, a node
// turned read-only by a switchover; not one whose data PostgreSQL refused,
// db.IsDataError, which would fail again and hold its successors forever)
// leaves a gap per (worker, instance) at its first
// line, and a later batch whose lines of that instance all come after the
// gap is refused — the worker sends it again after a pause, behind the
// failed one it re-sends first. The gap closes when a batch holding the
// line is stored (or found stored already: a failed write may have
// committed). A worker restarted under the same id numbers its lines
// from 1 again, below any old gap, so nothing waits on a gap forever; the
// map is bounded all the same.

type gapKey struct {
	worker   string
	instance int64
}

// maxGaps bounds the gaps remembered; beyond it they are forgotten (lines
// may then be stored out of order, as before gaps were kept).
const maxGaps = 10000

// firstLines is a batch's lowest line seq per instance.
func firstLines(b batch) map[int64]int64 {
	out := map[int64]int64{}
	for _, l := range b.logs.Lines {
		if first, ok := out[l.InstanceID]; !ok || l.Seq < first {
			out[l.InstanceID] = l.Seq
		}
	}
	return out
}

// waitsForEarlier refuses b if, for one of its instances, it would
// overtake the lines of an earlier batch of its worker that failed.
func (s *Service) waitsForEarlier(b batch) error {
	if len(s.gaps) == 0 {
		return nil
	}
	for inst, first := range firstLines(b) {
		if gap, ok := s.gaps[gapKey{b.worker, inst}]; ok && first > gap {
			return &protocol.Error{Code: protocol.CodeInternal, Message: fmt.Sprintf(
				"instance %d's lines from %d on have not been stored yet; sending these later keeps the log in order", inst, gap)}
		}
	}
	return nil
}

// gapAt records that b failed to store.
func (s *Service) gapAt(b batch) {
	if len(s.gaps) >= maxGaps {
		clear(s.gaps)
	}
	for inst, first := range firstLines(b) {
		k := gapKey{b.worker, inst}
		if gap, ok := s.gaps[k]; !ok || first < gap {
			s.gaps[k] = first
		}
	}
}

// settled closes the gaps b's storing filled.
func (s *Service) settled(b batch, result error) {
	if result != nil || len(s.gaps) == 0 {
		return
	}
	for _, l := range b.logs.Lines {
		k := gapKey{b.worker, l.InstanceID}
		if gap, ok := s.gaps[k]; ok && l.Seq == gap {
			delete(s.gaps, k)
		}
	}
}
