package tetgen

import (
	"path/filepath"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
)

// loadCorpus returns the named corpus file as format.Clean leaves it.
func loadCorpus(tb testing.TB, name string) *format.Surface {
	tb.Helper()
	dir := corpus.Dir(tb)
	s, err := format.ReadSurface(filepath.Join(dir, name), format.ReadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	clean, _ := format.Clean(s, format.CleanOptions{})
	return clean
}
