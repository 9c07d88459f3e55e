package ui

func init() { // the scope's and the file pitch track's keys (panel.Scope; typedRune)
	keyRows = append(keyRows, keyRow{"O", "scope: arm a single shot (again) / back to auto", keysLive}, keyRow{"P", "pitch track over the spectrogram on / off", keysFile}, keyRow{"O", "scope at the cursor on / off", keysFile})
}
