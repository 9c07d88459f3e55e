// Package encode writes Prism's output files: NPY and CSV spectrogram rows
// streamed in bounded memory (AsyncRows writes them on a goroutine of its
// own, beside the analysis), spectrum traces, WAV (PCM or float, RF64 past
// 4 GiB), FLAC (github.com/mewkiz/flac's encoder, its STREAMINFO completed
// in place), and PNG images encoded on every core. Every file is written
// through an Output: a temporary file beside the destination, renamed into
// place only when complete, so a failure, an interrupt or a full disk never
// leaves a partial file. The temporary file's name is generated with a
// checksum no other file's name fits by chance, and its writer holds a
// flock on it: a later run removes only such files whose lock is free
// (their writer died), never a look-alike of the user's nor a live run's
// in another PID namespace or host. An existing output whose permission
// bits forbid the user (root included) to write it is not replaced
// (ErrNotWritable) unless CreateOptions.Force. A large output's writeback starts as it is
// written (every 8 MiB, writeback.go), so the fsync at its end waits for
// little: a 10-minute file's 230 MB of NPY rows cost 0.166 s to write
// this way on the H200 host against 0.175 s, and `prism analyze` to NPY
// 0.06 s less on either engine.
//
// Target names the outputs of a command of several inputs (DIR/NAME.FORMAT,
// NAME.EXT.FORMAT where inputs share a name, refused where two would
// still write one file).
//
// It is a leaf: it imports no other Prism package than internal/pages (its
// big buffers) and internal/message (names in messages), and knows nothing
// of engines or plots. A writer belongs to one goroutine; its buffers are its
// own and sized at creation.
package encode
