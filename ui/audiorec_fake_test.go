package ui

import (
	"errors"
	"path/filepath"
	"sync"

	"github.com/prismaudio/prism/app/live"
)

// The fake engine's audio recording (fake_test.go's fakeEngine has no
// fields for it): a status per engine, Frames 48000 (1 s at 48 kHz) and
// 480 frames of gap once started.
var fakeAudio = struct {
	sync.Mutex
	st  map[*fakeEngine]live.AudioRecordStatus
	err map[*fakeEngine]error // what StartAudioRecording's done gets
}{st: map[*fakeEngine]live.AudioRecordStatus{}, err: map[*fakeEngine]error{}}

func (e *fakeEngine) StartAudioRecording(path string, done func(error)) error {
	if filepath.Ext(path) != ".wav" {
		return errors.New("live: record audio: " + filepath.Base(path) + ": record audio as .wav")
	}
	go func() {
		fakeAudio.Lock()
		err := fakeAudio.err[e]
		if err == nil {
			fakeAudio.st[e] = live.AudioRecordStatus{Active: true, Path: path, Rate: 48000, Channels: 2, Frames: 48000, GapFrames: 480}
		}
		fakeAudio.Unlock()
		done(err)
	}()
	return nil
}

func (e *fakeEngine) StopAudioRecording(done func(live.AudioRecordStatus, error)) {
	go func() {
		fakeAudio.Lock()
		st := fakeAudio.st[e]
		st.Active, st.Saved = false, true
		fakeAudio.st[e] = st
		fakeAudio.Unlock()
		done(st, nil)
	}()
}

func (e *fakeEngine) AudioRecordStatus() live.AudioRecordStatus {
	fakeAudio.Lock()
	defer fakeAudio.Unlock()
	return fakeAudio.st[e]
}
