package cli

import (
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// safeWriter escapes terminal control characters (all but newline and
// tab) in what it writes, so a file name holding escape sequences is shown,
// not obeyed.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(escapeControls(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func isControl(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || r == utf8.RuneError)
}

// escapeControls returns p with control characters (and bytes that are
// not UTF-8) written as Go escapes; p itself when it has none.
func escapeControls(p []byte) []byte {
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

// rawWriter is the writer under a safeWriter (for a progress bar, which
// draws with control characters of its own).
func rawWriter(w io.Writer) io.Writer {
	if s, ok := w.(safeWriter); ok {
		return s.w
	}
	return w
}
