//go:build unix

package processors

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// pumpOutput reads a script's standard output and error until both reach
// end of file or stop is closed, emitting lines as they complete.
//
// One loop polls both pipes rather than a goroutine per pipe: the order
// between the two streams is otherwise lost (the two goroutines race, and
// a stdout line followed a microsecond later by a stderr line is logged
// after it about a third of the time). Two pipes carry no global order, so
// when both are readable at once standard output is read first: that
// keeps the common "progress line, then the error" order, and any order
// of lines written further apart than the loop's reaction time.
func pumpOutput(stdout, stderr *os.File, emit [2]func(string), stop <-chan struct{}) {
	files := [2]*os.File{stdout, stderr}
	var fds [2]int
	for i, f := range files {
		fd, err := rawFd(f)
		if err != nil {
			pumpEach(files, emit, stop)
			return
		}
		fds[i] = fd
	}
	split := [2]*lineSplitter{{emit: emit[0]}, {emit: emit[1]}}
	open := [2]bool{true, true}
	buf := make([]byte, 64<<10)
	pfds := make([]unix.PollFd, 0, 2)
	for open[0] || open[1] {
		select {
		case <-stop:
			return
		default:
		}
		pfds, idx := pfds[:0], [2]int{}
		for i := range 2 {
			if open[i] {
				idx[len(pfds)] = i
				pfds = append(pfds, unix.PollFd{Fd: int32(fds[i]), Events: unix.POLLIN})
			}
		}
		// A bounded wait, to notice stop.
		n, err := unix.Poll(pfds, 100)
		if errors.Is(err, unix.EINTR) || n == 0 {
			continue
		}
		if err != nil {
			for i := range 2 {
				split[i].flush()
			}
			return
		}
		for k, p := range pfds { // stdout first
			if p.Revents == 0 {
				continue
			}
			i := idx[k]
			m, err := unix.Read(fds[i], buf)
			switch {
			case m > 0:
				split[i].write(buf[:m])
			case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
			default: // end of file, or an error: this stream is over
				split[i].flush()
				open[i] = false
			}
		}
	}
}

// outputPipe makes a pipe for a script's output. Unlike os.Pipe it does
// not register the ends with the runtime's poller: pumpOutput polls the
// read ends itself and the write end only goes to the child, so the
// registration (and its removal on close) were two wasted system calls
// per end, per script.
func outputPipe() (r, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, fmt.Errorf("making a pipe for the script's output: %w", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// rawFd is f's descriptor, left non-blocking (File.Fd would make it
// blocking). f must stay open while it is used.
func rawFd(f *os.File) (int, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	fd := -1
	if err := sc.Control(func(u uintptr) { fd = int(u) }); err != nil {
		return 0, err
	}
	return fd, nil
}
