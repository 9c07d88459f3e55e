// Package archive is the archive commands: `prism ltsa` (long-term
// spectral averages of whole archives), `prism ltsa merge` (joins shards'
// parts) and `prism hmd` (hybrid millidecade spectra, one NetCDF file per
// UTC day): their flags, the catalogue report, the shards a cluster's
// array job splits the work into, --resume, and the provenance of each
// run. The analyses are app/archive's; the files are app/archive/out's.
//
// Shards are fixed by the catalogue alone, so every task of an array job
// computes the same assignment: LTSA work is split into units (runs of
// files no time bin straddles, see units), HMD work into UTC days; a
// single process runs the same units and days one after another, which
// is why a merge of shards is the single process's file byte for byte.
package archive
