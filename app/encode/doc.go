// Package encode writes Prism's output files: NPY and CSV spectrogram rows
// streamed in bounded memory, spectrum traces, WAV (PCM or float, RF64 past
// 4 GiB), and PNG images encoded on every core. Every file is written
// through an Output: a temporary file beside the destination, renamed into
// place only when complete, so a failure, an interrupt or a full disk never
// leaves a partial file.
//
// It is a leaf: it imports no other Prism package and knows nothing of
// engines or plots. A writer belongs to one goroutine; its buffers are its
// own and sized at creation.
package encode
