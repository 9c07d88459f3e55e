package bench

import (
	"flag"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// Profiles are the --cpuprofile and --trace flags of the commands that
// take them (analyze, capture): a Go CPU profile and an execution trace of
// the run.
type Profiles struct{ cpu, trace string }

// Register adds the flags to fs.
func (p *Profiles) Register(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a Go CPU profile of the run to this file")
	fs.StringVar(&p.trace, "trace", "", "write a Go execution trace of the run to this file (go tool trace)")
}

// Start begins the recordings asked for; the function it returns ends
// them.
func (p *Profiles) Start() (func(), error) {
	var stops []func()
	stopAll := func() {
		for _, stop := range stops {
			stop()
		}
	}
	for _, rec := range []struct {
		path  string
		start func(io.Writer) error
		stop  func()
	}{{p.cpu, pprof.StartCPUProfile, pprof.StopCPUProfile}, {p.trace, trace.Start, trace.Stop}} {
		if rec.path == "" {
			continue
		}
		stop, err := startRecording(rec.path, rec.start, rec.stop)
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, stop)
	}
	return stopAll, nil
}

// startRecording starts a CPU profile or an execution trace (start, stop)
// into a new file at path and returns what ends it.
func startRecording(path string, start func(io.Writer) error, stop func()) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { stop(); f.Close() }, nil
}
