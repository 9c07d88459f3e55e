//go:build cgo

// Command gendist writes the generated files of Prism's packages into a
// directory laid out as under /usr: share/man/man1/prism*.1,
// share/bash-completion/completions/prism,
// share/zsh/vendor-completions/_prism and
// share/fish/vendor_completions.d/prism.fish (scripts/dist.sh runs it).
//
//	go run ./app/dist/gendist DIR
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/prismaudio/prism/app/cli"
	"github.com/prismaudio/prism/app/dist"
	"github.com/prismaudio/prism/internal/version"
	"github.com/prismaudio/prism/ui/desktop"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendist DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "gendist: %v\n", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	cmds := cli.Describe()
	window := desktop.Describe()
	in := version.Get()
	date := time.Now().UTC().Format("2006-01-02")
	if t, err := time.Parse(time.RFC3339, in.Date); err == nil {
		date = t.UTC().Format("2006-01-02") // reproducible: the commit's day
	}
	page := dist.Page{Version: in.Version, Date: date}
	files := map[string]func(io.Writer) error{
		"share/man/man1/prism.1":                     func(w io.Writer) error { return page.WriteMain(w, window, cmds) },
		"share/bash-completion/completions/prism":    func(w io.Writer) error { return dist.WriteBash(w, window, cmds) },
		"share/zsh/vendor-completions/_prism":        func(w io.Writer) error { return dist.WriteZsh(w, cmds) },
		"share/fish/vendor_completions.d/prism.fish": func(w io.Writer) error { return dist.WriteFish(w, cmds) },
	}
	for _, c := range cmds {
		files["share/man/man1/prism-"+c.Name+".1"] = func(w io.Writer) error { return page.WriteCommand(w, c) }
	}
	for name, fn := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
