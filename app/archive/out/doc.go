// Package out writes what `prism ltsa` and `prism hmd` produce from an
// archive's rows of levels: NetCDF (CF conventions), NPY with a JSON
// sidecar, a labelled PNG in absolute time, and the provenance JSON of a
// run; and it reads its own NetCDF files back, for `prism ltsa merge`.
//
// Every file goes through encode.Output (a temporary file renamed into
// place on Commit), so an output that exists is complete: a rerun with
// --resume may skip it.
//
// NetCDF is written by this package in the classic format's 64-bit offset
// variant (CDF-2), the one every netCDF reader (ncdump, netCDF4-python,
// xarray) reads. The pure-Go library considered,
// github.com/batchatco/go-native-netcdf, is not served by the Go module
// proxy here (it answers "not available"), and its CDF writer takes each
// variable whole from memory, where an archive's levels must stream to
// disk row by row (memory bounded by one row, not the output). The format
// needed is small: a header, fixed-size variables, then records of the
// unlimited time dimension, big-endian.
//
// It knows nothing of engines, WAV files or the archive's catalog: it is
// handed Meta and Rows. Buffers it is handed are copied before a call
// returns; a Writer is used by one goroutine.
package out
