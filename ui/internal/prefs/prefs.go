// Package prefs binds a settings value's fields to preference keys: one
// table of rows per value, the same rows read and written, so a field is
// loaded and saved under one key by construction.
package prefs

import "fyne.io/fyne/v2"

// Row binds one field to its key (without the table's prefix).
type Row struct {
	Key  string
	load func(p fyne.Preferences, key string)
	save func(p fyne.Preferences, key string)
}

// String binds a string field; a missing key leaves the field as it is.
func String(key string, v *string) Row {
	return Row{key,
		func(p fyne.Preferences, k string) { *v = p.StringWithFallback(k, *v) },
		func(p fyne.Preferences, k string) { p.SetString(k, *v) }}
}

// Int binds an int field; a missing key leaves the field as it is.
func Int(key string, v *int) Row {
	return Row{key,
		func(p fyne.Preferences, k string) { *v = p.IntWithFallback(k, *v) },
		func(p fyne.Preferences, k string) { p.SetInt(k, *v) }}
}

// Float binds a float64 field; a missing key leaves the field as it is.
func Float(key string, v *float64) Row {
	return Row{key,
		func(p fyne.Preferences, k string) { *v = p.FloatWithFallback(k, *v) },
		func(p fyne.Preferences, k string) { p.SetFloat(k, *v) }}
}

// Bool binds a bool field; a missing key leaves the field as it is.
func Bool(key string, v *bool) Row {
	return Row{key,
		func(p fyne.Preferences, k string) { *v = p.BoolWithFallback(k, *v) },
		func(p fyne.Preferences, k string) { p.SetBool(k, *v) }}
}

// Load reads every row's key (prefix + Key) into its field.
func Load(p fyne.Preferences, prefix string, rows []Row) {
	for _, r := range rows {
		r.load(p, prefix+r.Key)
	}
}

// Save writes every row's field under its key (prefix + Key).
func Save(p fyne.Preferences, prefix string, rows []Row) {
	for _, r := range rows {
		r.save(p, prefix+r.Key)
	}
}
