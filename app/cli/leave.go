package cli

import (
	"github.com/prismaudio/prism/app/cli/kit"
	"github.com/prismaudio/prism/app/encode"
	"github.com/prismaudio/prism/app/engine"
	"github.com/prismaudio/prism/internal/proc"
)

// newEarlyRelease is the early release (proc.Release) of sess's GPU
// engines after files files written as format, or nil where it does not
// apply. Only rows (NPY, CSV) take part: their output ends with an fsync
// of hundreds of MB, which the release overlaps; after a PNG the work
// left is shorter than the release (see proc.Release). Nor does a session
// of several GPUs still opening take part. The CPU engine and everything
// else are left to session.leave, which waits for the release first.
func newEarlyRelease(sess *kit.Session, files int, format encode.Format) *proc.Release {
	if format == encode.FormatPNG || sess.Opening != nil {
		return nil
	}
	var gpus []engine.Pair
	for _, e := range sess.Set {
		if e.HasGPU() {
			gpus = append(gpus, e)
		}
	}
	if len(gpus) == 0 {
		return nil
	}
	return proc.NewRelease(files, func() {
		for _, e := range gpus {
			e.Plans.Close()
			e.Preferred.Close()
		}
	})
}
