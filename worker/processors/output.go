package processors

import (
	"os"
	"sync"
)

// pumpEach reads each stream in its own goroutine: lines of one stream
// keep their order, but the order between the streams is not kept. It is
// the fallback where pumpOutput cannot poll.
func pumpEach(files [2]*os.File, emit [2]func(string), stop <-chan struct{}) {
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &lineSplitter{emit: emit[i]}
			buf := make([]byte, 64<<10)
			for {
				n, err := f.Read(buf)
				s.write(buf[:n])
				if err != nil {
					s.flush()
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-stop:
		// The caller closes the files, which ends the reads.
	}
}
