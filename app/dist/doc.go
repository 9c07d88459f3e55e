// Package dist writes the files the packages ship beside the binary that
// are made from the commands' own help (cli.Describe): a man page for
// prism and one per command (prism-NAME(1)), and shell completions for
// bash, zsh and fish. Nothing here is written by hand twice: a new
// command or flag appears in all of them at the next `make dist`.
// scripts/dist.sh runs it (gendist) and builds the Debian package and
// the tarball around it.
package dist
