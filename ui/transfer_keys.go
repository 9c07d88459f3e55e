package ui

// installTransferKeys puts the Transfer tab's keys (panel.TransferKeys)
// before the window's letter keys while that tab is shown.
func (w *Window) installTransferKeys() {
	w.win.Canvas().SetOnTypedRune(func(r rune) {
		if !w.transferKey(r) {
			w.typedRune(r)
		}
	})
}

// transferKey handles r if the Transfer tab is shown and r is its key.
func (w *Window) transferKey(r rune) bool {
	return w.tabs.Selected() == w.xferTab && w.tp.Key(r)
}
