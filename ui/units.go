package ui

import (
	"github.com/prismaudio/prism/app/dsp"
)

// unit is the settings' unit (DBFS if unknown).
func (s Settings) unit() dsp.Unit {
	u, _ := dsp.ParseUnit(s.Unit)
	return u
}
