package chat

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// The upload folder's housekeeping: files users sent are kept for
// [state] uploads_keep, then removed.

// sweepEvery is how often saved files past UploadKeep are looked for.
const sweepEvery = time.Hour

// SweepUploads removes the files under dir older than keep at once and
// then every sweepEvery, until ctx ends or stop closes, so a bot left
// running does not fill the disk with photos.
func SweepUploads(ctx context.Context, dir string, keep time.Duration, stop <-chan struct{}, log *slog.Logger) {
	tick := time.NewTicker(sweepEvery)
	defer tick.Stop()
	for {
		removed, err := removeOldUploads(dir, time.Now().Add(-keep))
		if err != nil {
			log.Warn("could not clean the upload folder", "dir", dir, "err", err)
		}
		if removed > 0 {
			log.Info("removed old uploads", "dir", dir, "files", removed, "older_than", keep)
		}
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// removeOldUploads deletes files under dir last modified before cutoff
// (an interrupted download's leftovers included), then the folders this
// leaves empty, keeping dir itself. A folder that was empty already is
// kept: a download may have just made it for the file it is saving. A
// missing dir is not an error.
func removeOldUploads(dir string, cutoff time.Time) (removed int, err error) {
	var errs []error
	var dirs []string
	emptied := map[string]bool{} // folders this sweep removed a file from
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
				emptied[filepath.Dir(path)] = true
			}
		}
		return nil
	})
	if walkErr != nil {
		errs = append(errs, walkErr)
	}
	// Deepest first; a folder that is not empty stays (os.Remove refuses).
	for i := len(dirs) - 1; i >= 0; i-- {
		if !emptied[dirs[i]] {
			continue
		}
		_ = os.Remove(dirs[i])
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("cleaning %s: %w", dir, err)
	}
	return removed, nil
}
