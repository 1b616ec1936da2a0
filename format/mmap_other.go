//go:build !linux

package format

import (
	"io"
	"os"
)

// pfmMapFile reads size bytes of f: this system gets no mapping.
func pfmMapFile(f *os.File, size int64) ([]byte, bool, error) {
	data, err := io.ReadAll(io.LimitReader(f, size))
	return data, false, err
}

func pfmUnmap([]byte) error { return nil }
