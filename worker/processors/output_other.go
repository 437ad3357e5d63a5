//go:build !unix

package processors

import "os"

func pumpOutput(stdout, stderr *os.File, emit [2]func(string), stop <-chan struct{}) {
	pumpEach([2]*os.File{stdout, stderr}, emit, stop)
}

func outputPipe() (r, w *os.File, err error) { return os.Pipe() }
