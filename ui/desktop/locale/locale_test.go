package locale

import "testing"

func TestLanguageFor(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
		set  bool
	}{
		{map[string]string{"LANG": "C.UTF-8"}, "en", true},
		{map[string]string{"LANG": "C.utf8"}, "en", true},
		{map[string]string{"LC_ALL": "POSIX.UTF-8", "LANG": "de_DE.UTF-8"}, "en", true},
		{map[string]string{"LC_MESSAGES": "C.UTF-8@euro"}, "en", true},
		{map[string]string{"LANG": "C"}, "", false},           // Fyne takes plain C as English
		{map[string]string{"LANG": "de_DE.UTF-8"}, "", false}, // a language: keep it
		{map[string]string{"LC_ALL": "fr_FR.UTF-8", "LANG": "C.UTF-8"}, "", false},
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, "", false},
		{map[string]string{}, "", false},
	} {
		got, set := languageFor(func(k string) string { return c.env[k] })
		if got != c.want || set != c.set {
			t.Errorf("%v: %q %v, want %q %v", c.env, got, set, c.want, c.set)
		}
	}
}
