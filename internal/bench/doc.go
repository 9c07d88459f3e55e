// Package bench is Prism's measuring harness, kept out of the product
// packages: the engines' rows of `prism bench` and the gonum dsp/fourier
// baseline measured beside them (gonum.go), `prism bench --e2e` (whole
// `prism analyze` processes of a generated file timed against the floors
// of reading it and writing its NPY, and against sox), and the
// `--timings` lines that `prism analyze` prints and the harness reads back
// (timings.go: one type per line, the one place their JSON is defined).
//
// It runs commands as processes of the prism executable and never calls
// the command line's code; the command line calls it. Nothing here is on
// a product path but the writing of --timings lines.
package bench
