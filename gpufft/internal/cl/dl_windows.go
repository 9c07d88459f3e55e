//go:build windows

package cl

import "syscall"

func defaultLibraryNames() []string { return []string{"OpenCL.dll"} }

func openLibrary(name string) (uintptr, error) {
	h, err := syscall.LoadLibrary(name)
	return uintptr(h), err
}

func lookup(handle uintptr, name string) (uintptr, error) {
	return syscall.GetProcAddress(syscall.Handle(handle), name)
}

func closeLibrary(handle uintptr) { _ = syscall.FreeLibrary(syscall.Handle(handle)) }
