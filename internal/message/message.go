// Package message is how Prism's commands write to a terminal: one message
// per write, names quoted where they hold control characters, further
// lines of a message indented under its "prism:" line, so that no input
// can forge a line or drive the terminal. It knows nothing of commands.
package message

import (
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SafeWriter is stderr as the commands write it: each Write is one
// message, so a name the user gave can neither forge a line nor drive the
// terminal. In each Write it
//   - quotes the arguments that need it (Quote), wherever they appear,
//     also inside the messages of other packages' errors;
//   - indents every line after the first (a compiler's build log, a
//     child's output) under the first, the message's "prism:" line;
//   - escapes the control characters left (tabs included) and bytes
//     that are not UTF-8 as Go escapes.
//
// Text already laid out in lines of its own (a command's -h usage) and
// the progress bar's drawing go to RawWriter instead.
type SafeWriter struct {
	w     io.Writer
	names *strings.Replacer // the arguments that need quoting; nil: none
}

// NewSafeWriter is w as a SafeWriter for the arguments args.
func NewSafeWriter(w io.Writer, args []string) SafeWriter {
	var pairs []string
	add := func(s string) {
		if q := Quote(s); q != s {
			pairs = append(pairs, s, q)
		}
	}
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		add(a)
		if b := filepath.Base(a); b != a {
			add(b)
		}
	}
	s := SafeWriter{w: w}
	if len(pairs) > 0 {
		s.names = strings.NewReplacer(pairs...)
	}
	return s
}

// continuation starts each line of a message after its first.
const continuation = "    "

func (s SafeWriter) Write(p []byte) (int, error) {
	msg := string(p)
	if s.names != nil {
		msg = s.names.Replace(msg)
	}
	body, end := strings.CutSuffix(msg, "\n")
	out := make([]byte, 0, len(p)+16)
	for i, line := range strings.Split(body, "\n") {
		if i > 0 {
			out = append(out, '\n')
			if line != "" {
				out = append(out, continuation...)
			}
		}
		out = append(out, Escape([]byte(line))...)
	}
	if end {
		out = append(out, '\n')
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func isControl(r rune) bool {
	return unicode.IsControl(r) || r == utf8.RuneError
}

// needsQuote says whether a name holds a control character (a newline or
// a tab too) or bytes that are not UTF-8.
func needsQuote(s string) bool {
	for _, r := range s {
		if isControl(r) {
			return true
		}
	}
	return false
}

// Quote is a path or name as messages print it: as it is, or where it
// holds control characters or bytes that are not UTF-8, quoted as Go
// quotes strings ("a\nb.wav").
func Quote(s string) string {
	if needsQuote(s) {
		return strconv.Quote(s)
	}
	return s
}

// Escape returns p with control characters (and bytes that are
// not UTF-8) written as Go escapes; p itself when it has none.
func Escape(p []byte) []byte {
	i := 0
	for i < len(p) {
		r, n := utf8.DecodeRune(p[i:])
		if isControl(r) {
			break
		}
		i += n
	}
	if i == len(p) {
		return p
	}
	out := append(make([]byte, 0, len(p)+16), p[:i]...)
	for i < len(p) {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, `\x`+strconv.FormatUint(uint64(p[i])|0x100, 16)[1:]...)
		case isControl(r):
			q := strconv.QuoteRune(r)
			out = append(out, q[1:len(q)-1]...)
		default:
			out = append(out, p[i:i+n]...)
		}
		i += n
	}
	return out
}

// RawWriter is the writer under a SafeWriter (for a progress bar, which
// draws with control characters of its own, and for usage text).
func RawWriter(w io.Writer) io.Writer {
	if s, ok := w.(SafeWriter); ok {
		return s.w
	}
	return w
}
