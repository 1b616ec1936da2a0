package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesOnlyOnSuccess(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	if err := Write(p, func(w io.Writer) error { _, err := w.Write([]byte("first")); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(p, func(w io.Writer) error { w.Write([]byte("partial")); return boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Fatalf("target changed to %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

func TestRemoveTempsDuringWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	err := Write(p, func(w io.Writer) error {
		RemoveTemps() // as an interrupt handler would
		ents, _ := os.ReadDir(dir)
		if len(ents) != 0 {
			t.Errorf("temporary file survived RemoveTemps: %v", ents)
		}
		return nil
	})
	if err == nil {
		t.Fatal("write whose temporary file vanished should fail")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("target should not exist")
	}
	// After RemoveTemps the process is exiting: no new writes start.
	if err := Write(p, func(io.Writer) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after RemoveTemps: %v", err)
	}
	mu.Lock()
	closed = false // restore for other tests
	mu.Unlock()
}
