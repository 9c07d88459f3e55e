package session

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/prismaudio/prism/app/archive"
	"github.com/prismaudio/prism/app/archive/cache"
)

// OpenArchive catalogues an archive for the window's Archive tab: a
// manifest (a .csv file) or recordings and folders (archive.Scan).
func (m *Session) OpenArchive(paths []string) (*archive.Catalog, error) {
	if len(paths) == 1 && strings.EqualFold(filepath.Ext(paths[0]), ".csv") {
		return archive.ReadManifest(paths[0])
	}
	return archive.Scan(paths)
}

// ArchiveLTSA is an archive's LTSA for the window (cache.Compute on the
// session's preferred engine, kept under cache.Dir; the CPU engine when
// the preferred one fails). It blocks: the window calls it from a
// goroutine of its own.
func (m *Session) ArchiveLTSA(ctx context.Context, r cache.Request, progress func(float64)) (*cache.LTSA, error) {
	dir, err := cache.Dir()
	if err != nil {
		dir = "" // no cache directory: compute every time
	}
	l, err := cache.Compute(ctx, m.engines.Preferred, dir, r, progress)
	if err != nil && m.engines.HasGPU() && !errors.Is(err, context.Canceled) && !m.engines.Strict {
		l, err = cache.Compute(ctx, m.engines.CPU, dir, r, progress)
	}
	return l, err
}
