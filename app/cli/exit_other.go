//go:build !linux

package cli

// holdDevices is Linux-only (it reads /proc/self/fd): elsewhere it hands
// nothing over.
func holdDevices() int { return 0 }

// handOff is Linux-only too.
func handOff(func(string) bool) (pid, n int) { return 0, 0 }
