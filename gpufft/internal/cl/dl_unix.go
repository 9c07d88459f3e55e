//go:build darwin || freebsd || linux || netbsd

package cl

import "github.com/ebitengine/purego"

func defaultLibraryNames() []string {
	if isDarwin {
		return []string{"/System/Library/Frameworks/OpenCL.framework/OpenCL"}
	}
	return []string{"libOpenCL.so.1", "libOpenCL.so"}
}

func openLibrary(name string) (uintptr, error) {
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func lookup(handle uintptr, name string) (uintptr, error) {
	return purego.Dlsym(handle, name)
}

func closeLibrary(handle uintptr) { _ = purego.Dlclose(handle) }
