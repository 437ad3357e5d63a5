package processors

import (
	"bytes"
	"strings"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// lineSplitter turns a stream of output chunks into lines, calling emit
// with each complete line (without its line ending) as soon as it is
// complete. A line longer than a log line may be is cut — its start is
// emitted, the rest skipped — so output without newlines cannot make us
// buffer without bound.
type lineSplitter struct {
	emit     func(string)
	buf      []byte
	skipping bool // inside a cut line: drop bytes until its newline
}

const maxLine = protocol.MaxLogLineBytes

func (s *lineSplitter) write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
			p = p[i+1:]
		} else {
			p = nil
		}
		if !s.skipping {
			s.buf = append(s.buf, chunk...)
			if len(s.buf) > maxLine {
				s.emit(strings.TrimRight(string(s.buf[:maxLine]), "\r") + "…[cut]")
				s.buf, s.skipping = s.buf[:0], true
			}
		}
		if i >= 0 {
			if !s.skipping {
				s.emit(strings.TrimRight(string(s.buf), "\r"))
			}
			s.buf, s.skipping = s.buf[:0], false
		}
	}
}

// flush emits a last line that had no newline.
func (s *lineSplitter) flush() {
	if len(s.buf) > 0 && !s.skipping {
		s.emit(strings.TrimRight(string(s.buf), "\r"))
	}
	s.buf, s.skipping = s.buf[:0], false
}
