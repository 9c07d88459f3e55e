// Package locale keeps Fyne from logging "Error parsing user locale C"
// (three lines on every start, even for `prism --help`) under LANG=C.UTF-8
// or C/POSIX settings: Fyne's lang package parses the locale in its init,
// and the language of a "C.UTF-8" locale, "C", is no language tag.
//
// This package's init sets LANGUAGE=en when no language is configured,
// before Fyne reads it: it imports nothing of Fyne's, and Go initializes,
// of the packages whose imports are done, the first by import path, so
// github.com/prismaudio/… runs before golang.org/x/text/language, which
// fyne.io/fyne/v2/lang waits for. Package desktop imports it for that.
package locale

import (
	"os"
	"strings"
)

func init() {
	if v, ok := languageFor(os.Getenv); ok {
		os.Setenv("LANGUAGE", v)
	}
}

// languageFor says what LANGUAGE should be set to (and whether to set it)
// given the environment: "en" when LANGUAGE is empty and the locale
// variable that decides (LC_ALL, LC_MESSAGES, LANG: the first set) names
// no language: C.UTF-8, C.utf8, or a C/POSIX that carries an encoding.
// Plain C and POSIX, and unset ones, Fyne already takes as English.
func languageFor(getenv func(string) string) (string, bool) {
	if getenv("LANGUAGE") != "" {
		return "", false
	}
	loc := ""
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc = getenv(k); loc != "" {
			break
		}
	}
	lang, _, _ := strings.Cut(loc, ".")
	lang, _, _ = strings.Cut(lang, "@")
	if loc != lang && (lang == "C" || lang == "POSIX") {
		return "en", true
	}
	return "", false
}
