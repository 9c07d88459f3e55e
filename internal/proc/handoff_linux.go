package proc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// held keeps what HoldDevices hands over alive until the exit (an
// os.File's finalizer would close its descriptor).
var held []*os.File

// HoldDevices hands the process's open GPU device files (/dev/nvidia*,
// /dev/dri/*, /dev/kfd) to a child that keeps them until this process has
// exited (HandOff). It returns how many it handed over.
func HoldDevices() int {
	_, n := HandOff(isGPUDevice)
	return n
}

// HandOff hands the open files whose paths match to a child (this
// executable, HoldArg) in a session of its own, which keeps them until
// this process has exited (its standard input, a pipe whose one writer
// is this process, then ends) and exits itself. What the driver does when
// the last descriptor of its device files closes — tearing down the
// contexts, queues, programs and memory of the process, 120–150 ms on the
// H200 machine — then happens in the child, after whoever waits for this
// process has seen it exit. It returns the child's process ID and the
// files handed over (0, 0: none matched, or the child did not start).
func HandOff(match func(path string) bool) (pid, n int) {
	exe, err := os.Executable()
	if err != nil {
		return 0, 0
	}
	files := openFiles(match)
	if len(files) == 0 {
		return 0, 0
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, 0
	}
	cmd := exec.Command(exe, HoldArg)
	cmd.Stdin, cmd.ExtraFiles = r, files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	r.Close()
	held = append(append(held, files...), w) // w closes at the exit: the child's signal
	if err != nil {
		return 0, 0
	}
	return cmd.Process.Pid, len(files)
}

// openFiles returns the process's open files whose paths match.
func openFiles(match func(path string) bool) []*os.File {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var files []*os.File
	for _, d := range ents {
		fd, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		target, err := os.Readlink("/proc/self/fd/" + d.Name())
		if err == nil && match(target) {
			files = append(files, os.NewFile(uintptr(fd), target))
		}
	}
	return files
}

func isGPUDevice(path string) bool {
	return strings.HasPrefix(path, "/dev/nvidia") || strings.HasPrefix(path, "/dev/dri/") || path == "/dev/kfd"
}
