package bench

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/prismaudio/prism/app/encode"
)

// npyFloorCase is bench --e2e's floor for the NPY rows: writing as many
// bytes as the NPY file holds, the way `prism analyze` writes it.
const npyFloorCase = "write the NPY's bytes (floor)"

// writeFloorChunk is the size of each write of the floor: the rows
// writer's chunk (encode.AsyncRows queues 4 MiB chunks).
const writeFloorChunk = 4 << 20

// writeFloor writes size bytes to path as `prism analyze` writes an NPY:
// through encode.Output (a temporary file beside path, 1 MiB buffered
// writes of writeFloorChunk bytes each, a header rewritten in place at the
// end, then Commit: flush, fsync, rename into place). buf (at least
// writeFloorChunk bytes) is what is written, over and over.
func writeFloor(path string, size int64, buf []byte) error {
	o, err := encode.Create(path)
	if err != nil {
		return err
	}
	defer o.Discard()
	for left := size; left > 0; {
		n := min(left, writeFloorChunk)
		if _, err := o.W.Write(buf[:n]); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		left -= n
	}
	if err := o.WriteAt(buf[:min(size, 128)], 0); err != nil { // the NPY header, completed last
		return err
	}
	return o.Commit()
}

// npyFloorRow times writeFloor of npy's size into npy's directory, right
// after the NPY rows that made it; ok is false if there is no such file.
func (r *e2eRunner) npyFloorRow(npy string) (row e2eRow, ok bool) {
	row = e2eRow{Case: npyFloorCase, Engine: "-", Files: 1}
	st, err := os.Stat(npy)
	if err != nil {
		fmt.Fprintf(r.stderr, "prism: bench: no NPY floor: %v\n", err)
		r.failed = true
		return row, false
	}
	buf := make([]byte, writeFloorChunk)
	for i := range buf {
		buf[i] = byte(i*7 + 1) // not zeros: nothing below may treat them specially
	}
	out := filepath.Join(filepath.Dir(npy), "floor.npy")
	row.Seconds = r.median(func() error { return writeFloor(out, st.Size(), buf) })
	row.PerFile = row.Seconds
	os.Remove(out)
	return row, true
}

// printNPYFloor says, for each engine, its NPY run's time above the floor.
func printNPYFloor(w io.Writer, rows []e2eRow) {
	floor := math.NaN()
	for _, r := range rows {
		if r.Case == npyFloorCase {
			floor = r.Seconds
		}
	}
	for _, r := range rows {
		if r.Case != npyCase || math.IsNaN(floor) {
			continue
		}
		fmt.Fprintf(w, "%s, %s: %.3f s = the floor's %.3f s + %.3f s", r.Case, r.Engine, r.Seconds, floor, r.Seconds-floor)
		if st := r.Stages; st != nil { // the last run's --timings
			fmt.Fprintf(w, "; its last run: engines open %.1f ms, then the file %.1f ms (the floor's %.1f ms), the rest of the process %.1f ms",
				r.Open, st.Total, 1000*floor, 1000*r.Seconds-r.Open-st.Total)
		}
		fmt.Fprintln(w)
	}
}
