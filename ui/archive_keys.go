package ui

import "github.com/prismaudio/prism/ui/panel"

func init() { // the Archive tab's keys (panel.ArchiveKeys)
	for _, k := range panel.ArchiveKeyRows() {
		keyRows = append(keyRows, keyRow{k.Key, k.Action, k.Workspace})
	}
}
