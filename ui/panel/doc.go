// Package panel holds the panels of Prism's window (package ui) that have
// a package boundary of their own: the File tab, the references, the
// recording, the Transfer tab, the status bar, the unit and calibration,
// the plot section, the scope and pitch trace and the file dialogs. Each is one struct that owns its
// widgets and state and talks to the window through the interface it
// declares (the window implements them on an adapter, so ui exports none
// of their methods):
//
//   - Files (files.go, compare.go, files_modes.go): the File tab, its
//     analyses (in the STFT or an analysis mode), the spectrogram's
//     export and the A/B comparison; FileHost, FileEngine and
//     FileModeEngine. It makes its views and hands them to the window once
//     (Views), which sets them up, converts, measures and exports them.
//   - References (references.go, refstore.go): the stored reference
//     traces, their rows in the side panel, the difference picker, the
//     harmonics switch and the copies kept in a directory; RefHost. The
//     window draws the set it is handed (Set) and never changes it.
//   - Record (record.go): the history's export and the Record toggle;
//     RecordHost and RecordEngine.
//   - Transfer (transfer.go, its state in transfer_state.go, its keys
//     and goroutine in transfer_run.go): the Transfer tab's side panel
//     and view, the live transfer analyzer's settings; TransferHost and
//     TransferEngine.
//   - StatusBar (status.go): the strip, the line under it and the
//     details, written from the StatusFacts the window gathers.
//   - Calibration (calibration.go): the unit shown, the level
//     calibration and the microphone response, their section and
//     dialogs, and the conversions of the engine's dBFS spectra it hands
//     the views (Source, ShowFile); CalHost (its settings as CalSettings)
//     and CalEngine.
//   - Plot (plot.go): the side panel's plot section, smoothing and the
//     frequency range typed in (view.PlotView); PlotHost.
//   - Scope (scope.go): the scope and pitch trace under the live
//     spectrum, their side-panel section and the file view's pitch
//     track (P); ScopeEngine.
//   - Dialogs (dialogs.go): the file dialogs every panel and the window
//     ask through: a typed path or the recent folders for a file to read,
//     a proposed name and a second Save to replace for a file to write,
//     Fyne's own dialogs closed by Escape, and the recent folders, kept in
//     the preferences under the key the window gives.
//
// A panel's exported methods are what the window calls and what the
// panel's own buttons and dialogs do (OpenFile, Store, Start, …), so the
// window's tests drive a panel as a person would; a few read back what a
// widget shows (Info, Progress, Strip, Busy) for those tests.
//
// Package panel imports package view and never ui: settings reach a panel
// as the values its host interface returns. Every type here belongs to
// the Fyne goroutine; work on other goroutines (an analysis, an export)
// reports back through the do function each panel is given.
package panel
