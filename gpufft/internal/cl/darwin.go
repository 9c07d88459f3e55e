package cl

import "runtime"

const isDarwin = runtime.GOOS == "darwin"
