// Package ui will hold Prism's Fyne widgets and window (desktop-UI issue):
// spectrum, spectrogram and controls, drawing into images it owns and pulling
// data from an Engine interface. It never sees PortAudio or OpenCL.
package ui
