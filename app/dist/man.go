package dist

import (
	"fmt"
	"io"
	"strings"

	"github.com/prismaudio/prism/app/cli"
)

// Page is a man page's header: the program's version and the date
// written in it.
type Page struct {
	Version, Date string
}

// roff escapes text for a man page line: backslashes, and a leading dot
// or quote that would read as a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// WriteMain writes prism(1): the window's flags (window), then the list
// of commands, each pointing to its own page.
func (p Page) WriteMain(w io.Writer, window cli.CommandHelp, cmds []cli.CommandHelp) error {
	b := &strings.Builder{}
	p.header(b, "PRISM")
	fmt.Fprintf(b, ".SH NAME\nprism \\- real\\-time audio spectrum analyzer with OpenCL FFTs on the GPU\n")
	fmt.Fprintf(b, ".SH SYNOPSIS\n.B prism\n[\\fIFILE\\fR] [\\fIflags\\fR]\n.br\n.B prism\n\\fICOMMAND\\fR [\\fIflags\\fR]\n")
	fmt.Fprintf(b, ".SH DESCRIPTION\nWithout a command, prism opens its desktop window: the live spectrum and spectrogram of the default input (or the built\\-in signal generator when there is none), or of FILE. With a command it runs that command; every command prints its own help with \\fB\\-h\\fR.\n")
	fmt.Fprintf(b, ".SH OPTIONS\n")
	flags(b, window.Flags)
	fmt.Fprintf(b, ".SH COMMANDS\n")
	for _, c := range cmds {
		fmt.Fprintf(b, ".TP\n.B %s\n%s (see \\fBprism\\-%s\\fR(1))\n", c.Name, roff(c.Summary), c.Name)
	}
	fmt.Fprintf(b, ".SH SEE ALSO\n")
	for i, c := range cmds {
		sep := ","
		if i == len(cmds)-1 {
			sep = ""
		}
		fmt.Fprintf(b, ".BR prism\\-%s (1)%s\n", c.Name, sep)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCommand writes prism-NAME(1) from the command's usage text and
// flags.
func (p Page) WriteCommand(w io.Writer, c cli.CommandHelp) error {
	b := &strings.Builder{}
	p.header(b, "PRISM-"+strings.ToUpper(c.Name))
	fmt.Fprintf(b, ".SH NAME\nprism\\-%s \\- %s\n", c.Name, roff(c.Summary))
	fmt.Fprintf(b, ".SH SYNOPSIS\n.B prism %s\n[\\fIflags\\fR]\n", c.Name)
	if c.Usage != "" {
		fmt.Fprintf(b, ".SH DESCRIPTION\n.nf\n")
		for _, l := range strings.Split(strings.TrimRight(c.Usage, "\n"), "\n") {
			fmt.Fprintln(b, roff(strings.TrimPrefix(l, "  ")))
		}
		fmt.Fprintf(b, ".fi\n")
	}
	if len(c.Flags) > 0 {
		fmt.Fprintf(b, ".SH OPTIONS\n")
		flags(b, c.Flags)
	}
	fmt.Fprintf(b, ".SH SEE ALSO\n.BR prism (1)\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func (p Page) header(b *strings.Builder, title string) {
	fmt.Fprintf(b, ".TH %s 1 \"%s\" \"prism %s\" \"User Commands\"\n", roff(title), p.Date, p.Version)
}

// flags writes an option list: --name ARG, its usage, its default.
func flags(b *strings.Builder, fl []cli.FlagHelp) {
	for _, f := range fl {
		dash := "\\-\\-"
		if len(f.Name) == 1 {
			dash = "\\-"
		}
		fmt.Fprintf(b, ".TP\n")
		if f.Arg != "" {
			fmt.Fprintf(b, ".BI %s%s \" %s\"\n", dash, roff(f.Name), roff(f.Arg))
		} else {
			fmt.Fprintf(b, ".B %s%s\n", dash, roff(f.Name))
		}
		u := roff(f.Usage)
		if f.Default != "" {
			u += " (default: " + roff(f.Default) + ")"
		}
		fmt.Fprintln(b, u)
	}
}
