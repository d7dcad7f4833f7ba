package telegram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// sweepEvery is how often saved files past UploadKeep are looked for.
const sweepEvery = time.Hour

// sweepUploads removes old uploads at start and then every sweepEvery, so
// a bot left running does not fill the disk with photos.
func (b *Bot) sweepUploads(ctx context.Context) {
	defer b.wg.Done()
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	for {
		removed, err := removeOldUploads(b.cfg.UploadDir, time.Now().Add(-b.cfg.UploadKeep))
		if err != nil {
			b.log.Warn("could not clean the upload folder", "dir", b.cfg.UploadDir, "err", err)
		}
		if removed > 0 {
			b.log.Info("removed old uploads", "dir", b.cfg.UploadDir, "files", removed, "older_than", b.cfg.UploadKeep)
		}
		select {
		case <-ctx.Done():
			return
		case <-b.stopping:
			return
		case <-tick.C:
		}
	}
}

// removeOldUploads deletes files under dir last modified before cutoff
// (an interrupted download's leftovers included), then the folders this
// leaves empty, keeping dir itself. A missing dir is not an error.
func removeOldUploads(dir string, cutoff time.Time) (removed int, err error) {
	var errs []error
	var dirs []string
	walkErr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			errs = append(errs, err)
			return nil
		case d.IsDir():
			if path != dir {
				dirs = append(dirs, path)
			}
			return nil
		case !d.Type().IsRegular():
			return nil // never follow or remove links and devices
		}
		info, err := d.Info()
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if info.ModTime().Before(cutoff) {
			if err := os.Remove(path); err != nil {
				errs = append(errs, err)
			} else {
				removed++
			}
		}
		return nil
	})
	if walkErr != nil {
		errs = append(errs, walkErr)
	}
	// Deepest first; a folder that is not empty stays (os.Remove refuses).
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i])
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("cleaning %s: %w", dir, err)
	}
	return removed, nil
}
