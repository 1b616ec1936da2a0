package format

import (
	"io"
	"os"
	"syscall"
)

// pfmMapFile maps size bytes of f read-only, or reads them where mapping
// is impossible (an empty file) or pointless (a big-endian machine
// decodes every array anyway).
func pfmMapFile(f *os.File, size int64) (data []byte, mapped bool, err error) {
	if size == 0 || !pfmNativeLE || int64(int(size)) != size {
		data, err = io.ReadAll(io.LimitReader(f, size))
		return data, false, err
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

func pfmUnmap(data []byte) error { return syscall.Munmap(data) }
