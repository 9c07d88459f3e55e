// Package measure holds the measurement commands: `prism sweep` (Farina's
// sweep and its inverse filter), `prism ir` (a sweep recording
// deconvolved into impulse responses, distortion and CSD) and `prism
// room` (room-acoustic parameters of an impulse response). Each is a Run
// function package cli lists; flags, errors and exit codes follow kit.
package measure
