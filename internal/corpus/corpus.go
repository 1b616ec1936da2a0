// Package corpus gives tests and benchmarks the third-party meshes in
// ../shared/corpus (beside the repository) and their MANIFEST.tsv.
package corpus

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dir returns the corpus directory: $PFMESH_CORPUS, or shared/corpus found
// beside an ancestor of the working directory. Tests that need the corpus
// skip when it is absent (a developer machine without ../shared); CI always
// has it.
func Dir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("PFMESH_CORPUS"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		c := filepath.Join(d, "..", "shared", "corpus")
		if _, err := os.Stat(filepath.Join(c, "MANIFEST.tsv")); err == nil {
			return c
		}
		if filepath.Dir(d) == d {
			tb.Skip("shared/corpus not found beside the repository; set PFMESH_CORPUS")
			return ""
		}
	}
}

// Entry is one row of MANIFEST.tsv, keyed by column name.
type Entry map[string]string

// Path returns the absolute path of the entry's file.
func (e Entry) Path(dir string) string { return filepath.Join(dir, e["file"]) }

// Manifest returns the rows of MANIFEST.tsv in dir.
func Manifest(tb testing.TB, dir string) []Entry {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cols []string
	var rows []Entry
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = fields
			continue
		}
		e := Entry{}
		for i, c := range cols {
			if i < len(fields) {
				e[c] = fields[i]
			}
		}
		rows = append(rows, e)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rows
}
