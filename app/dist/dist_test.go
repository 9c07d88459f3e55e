package dist

import (
	"strings"
	"testing"

	"github.com/prismaudio/prism/app/cli"
)

// A usage line that starts with a dot would be a roff request; a
// backslash an escape; both are escaped, and flags become options.
func TestManEscapes(t *testing.T) {
	c := cli.CommandHelp{Name: "x", Summary: "does x", Usage: "  .hidden line\n  a \\ back-slash\n",
		Flags: []cli.FlagHelp{{Name: "o", Arg: "OUT", Usage: "output"}, {Name: "json", Usage: "as JSON"}, {Name: "fft", Arg: "N", Usage: "size", Default: "4096"}}}
	var b strings.Builder
	if err := (Page{Version: "1.2.3", Date: "2026-11-27"}).WriteCommand(&b, c); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`.TH PRISM\-X 1 "2026-11-27" "prism 1.2.3"`, "\n\\&.hidden line\n", `a \e back\-slash`, `.BI \-o " OUT"`, `.B \-\-json`, `size (default: 4096)`} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
}

// The completions name every command and, per command, its flags.
func TestCompletions(t *testing.T) {
	cmds := []cli.CommandHelp{{Name: "room", Summary: "rooms: [T30]", Flags: []cli.FlagHelp{{Name: "fraction", Arg: "int"}, {Name: "o", Arg: "OUT"}}}}
	var bash, zsh, fish strings.Builder
	WriteBash(&bash, cli.CommandHelp{Flags: []cli.FlagHelp{{Name: "fft"}}}, cmds)
	WriteZsh(&zsh, cmds)
	WriteFish(&fish, cmds)
	for _, c := range []struct{ got, want string }{
		{bash.String(), "room) words='--fraction -o'"},
		{bash.String(), "compgen -W '--fft --version --help'"},
		{zsh.String(), "'room:rooms - (T30)'"},
		{zsh.String(), "'--fraction[]:int:_files'"},
		{fish.String(), "-n '__fish_seen_subcommand_from room' -l fraction -r"},
		{fish.String(), "-n '__fish_seen_subcommand_from room' -s o -r"},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("no %q in\n%s", c.want, c.got)
		}
	}
}
