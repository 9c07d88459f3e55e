package dist

import (
	"fmt"
	"io"
	"strings"

	"github.com/prismaudio/prism/app/cli"
)

// flagWord is a flag as typed: --name, or -o for one letter.
func flagWord(f cli.FlagHelp) string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

// flagWords are a command's flags as typed.
func flagWords(c cli.CommandHelp) []string {
	var w []string
	for _, f := range c.Flags {
		w = append(w, flagWord(f))
	}
	return w
}

// WriteBash writes a bash completion: command names first, then the
// command's flags, file names otherwise.
func WriteBash(w io.Writer, window cli.CommandHelp, cmds []cli.CommandHelp) error {
	b := &strings.Builder{}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	fmt.Fprintf(b, "# bash completion for prism (generated from the commands' help by app/dist)\n")
	fmt.Fprintf(b, "_prism() {\n\tlocal cur=${COMP_WORDS[COMP_CWORD]} words\n")
	fmt.Fprintf(b, "\tif ((COMP_CWORD == 1)); then\n\t\tif [[ $cur == -* ]]; then\n\t\t\tCOMPREPLY=($(compgen -W '%s --version --help' -- \"$cur\"))\n", strings.Join(flagWords(window), " "))
	fmt.Fprintf(b, "\t\telse\n\t\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\") $(compgen -f -- \"$cur\"))\n\t\tfi\n\t\treturn\n\tfi\n", strings.Join(names, " "))
	fmt.Fprintf(b, "\tcase ${COMP_WORDS[1]} in\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "\t%s) words='%s' ;;\n", c.Name, strings.Join(flagWords(c), " "))
	}
	fmt.Fprintf(b, "\t*) words='%s' ;;\n\tesac\n", strings.Join(flagWords(window), " "))
	fmt.Fprintf(b, "\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n\telse\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\ncomplete -o filenames -F _prism prism\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteZsh writes a zsh completion (#compdef prism).
func WriteZsh(w io.Writer, cmds []cli.CommandHelp) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "#compdef prism\n# zsh completion for prism (generated from the commands' help by app/dist)\n\n_prism() {\n\tlocal -a commands\n\tcommands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "\t\t'%s:%s'\n", c.Name, zshQuote(c.Summary))
	}
	fmt.Fprintf(b, "\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe 'command' commands\n\t\t_files\n\t\treturn\n\tfi\n\tcase $words[2] in\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "\t%s)\n\t\t_arguments \\\n", c.Name)
		for _, f := range c.Flags {
			arg := ""
			if f.Arg != "" {
				arg = ":" + zshQuote(f.Arg) + ":_files"
			}
			fmt.Fprintf(b, "\t\t\t'%s[%s]%s' \\\n", flagWord(f), zshQuote(f.Usage), arg)
		}
		fmt.Fprintf(b, "\t\t\t'*:file:_files' ;;\n")
	}
	fmt.Fprintf(b, "\tesac\n}\n\n_prism \"$@\"\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// zshQuote makes s safe inside a single-quoted _arguments spec.
func zshQuote(s string) string {
	r := strings.NewReplacer("'", "'\\''", "[", "(", "]", ")", ":", " -")
	return r.Replace(s)
}

// WriteFish writes a fish completion.
func WriteFish(w io.Writer, cmds []cli.CommandHelp) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# fish completion for prism (generated from the commands' help by app/dist)\n")
	for _, c := range cmds {
		fmt.Fprintf(b, "complete -c prism -n '__fish_use_subcommand' -a %s -d %s\n", c.Name, fishQuote(c.Summary))
	}
	for _, c := range cmds {
		for _, f := range c.Flags {
			opt := "-l "
			if len(f.Name) == 1 {
				opt = "-s "
			}
			req := ""
			if f.Arg != "" {
				req = " -r"
			}
			fmt.Fprintf(b, "complete -c prism -n '__fish_seen_subcommand_from %s' %s%s%s -d %s\n", c.Name, opt, f.Name, req, fishQuote(f.Usage))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
