// Package atomicfile writes files so that readers never see a partial one:
// content goes to a temporary file beside the target, is synced, and is
// renamed into place only when complete. Temporary files still open are
// tracked, so an interrupt handler can remove them (RemoveTemps) before
// the process exits.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

var (
	mu     sync.Mutex
	temps  = map[string]bool{}
	closed bool // set by RemoveTemps: the process is exiting
)

// ErrClosed is returned by Write after RemoveTemps.
var ErrClosed = errors.New("interrupted")

// Write creates path with the bytes fill writes to w, atomically: on any
// error (from fill or from the file system) the target is left as it was
// and the temporary file is removed.
func Write(path string, fill func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp := f.Name()
	if !track(tmp, true) {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, ErrClosed)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
		track(tmp, false)
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// CreateTemp makes the file 0600; give it the usual permissions.
	if err = os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// track records or forgets a live temporary file; it refuses new ones
// once RemoveTemps has run.
func track(name string, live bool) bool {
	mu.Lock()
	defer mu.Unlock()
	if !live {
		delete(temps, name)
		return true
	}
	if closed {
		return false
	}
	temps[name] = true
	return true
}

// RemoveTemps deletes every temporary file a Write in progress has
// created, and makes later Writes fail. Interrupt handlers call it just
// before exiting.
func RemoveTemps() {
	mu.Lock()
	defer mu.Unlock()
	closed = true
	for name := range temps {
		os.Remove(name)
	}
}
