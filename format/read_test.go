package format_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/fixtures"
	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/fptest"
)

// corners returns the coordinates of every triangle corner, in order:
// what a surface file says, whatever its vertex numbering.
func corners(s *format.Surface) []float64 {
	out := make([]float64, 0, 3*len(s.Triangles))
	for _, v := range s.Triangles {
		out = append(out, s.Positions[3*v:3*v+3]...)
	}
	return out
}

// Every good fixture reads back as the surface it was written from: the
// same triangles with the same corners, exactly (binary STL rounds to
// float32), and STL corners welded into the source's vertices.
func TestReadFixturesRoundTrip(t *testing.T) {
	for _, name := range []string{"cube.stl", "cube_binary.stl", "icosphere.obj", "torus.off", "lbracket.ply", "plate.ply", "wedge_be.ply"} {
		t.Run(name, func(t *testing.T) {
			src := fixtures.Source(name)
			s, err := format.ReadSurface(fixtures.Path(name), format.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.NumTriangles() != src.NumTriangles() || s.NumVertices() != src.NumVertices() {
				t.Fatalf("%d triangles, %d vertices; want %d, %d", s.NumTriangles(), s.NumVertices(), src.NumTriangles(), src.NumVertices())
			}
			got, want := corners(s), corners(src)
			for i := range want {
				w := want[i]
				if strings.HasSuffix(name, "binary.stl") {
					w = float64(float32(w))
				}
				// Where the build fuses multiply-adds the source's
				// trigonometry rounds otherwise than the build that wrote
				// the files did.
				if !fptest.Same(got[i], w, 1+math.Abs(w)) {
					t.Fatalf("corner coordinate %d = %v, want %v", i, got[i], w)
				}
			}
		})
	}
}

func TestDetectFormat(t *testing.T) {
	cubeBinary, err := os.ReadFile(fixtures.Path("cube_binary.stl"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		data string
		want format.SurfaceFormat
	}{
		{"a.ply", "ply\nformat ascii 1.0\n", format.PLY},
		{"a.dat", "OFF\n3 1 0\n", format.OFF},
		{"a.dat", "COFF 3 1 0\n", format.OFF},
		{"a.dat", "# made by hand\n\nNOFF\n", format.OFF},
		{"a.obj", "solid x\n", format.ASCIISTL},
		{"a.dat", "  SOLID\tpart\n", format.ASCIISTL},
		{"a.dat", "\xef\xbb\xbfsolid\n", format.ASCIISTL},
		{"a.dat", "# exported\nv 0 0 0\nf 1 2 3\n", format.OBJ},
		{"a.stl", string(cubeBinary), format.BinarySTL}, // header starts with "solid"
		{"a.stl", "solid x" + string(make([]byte, 200)), format.BinarySTL},
		{"a.stl", "just some words\n", format.ASCIISTL}, // text, decided by the extension
		{"a.txt", "just some words\n", format.UnknownFormat},
	}
	for _, c := range cases {
		head := []byte(c.data)[:min(len(c.data), 512)]
		if got := format.DetectFormat(head, int64(len(c.data)), c.name); got != c.want {
			t.Errorf("%q (%s): %v, want %v", c.data[:min(len(c.data), 20)], c.name, got, c.want)
		}
	}
}

// The ASCII STL spellings github.com/hschendel/stl rejects all read as
// the same two triangles.
func TestASCIISTLVariants(t *testing.T) {
	facets := "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n" +
		"facet normal 0 0 1\nouter loop\nvertex 1 0 0\nvertex 1 1 0\nvertex 0 1 0\nendloop\nendfacet\n"
	half := strings.SplitAfter(facets, "endfacet\n")
	variants := map[string]string{
		"named":          "solid part\n" + facets + "endsolid part\n",
		"nameless":       "solid\n" + facets + "endsolid\n",
		"uppercase":      strings.ToUpper("solid part\n" + facets + "endsolid part\n"),
		"byte order":     "\xef\xbb\xbfsolid part\n" + facets + "endsolid part\n",
		"tab after":      "solid\tpart\n" + facets + "endsolid\tpart\n",
		"two solids":     "solid a\n" + half[0] + "endsolid a\nsolid b\n" + half[1] + "endsolid b\n",
		"CRLF":           strings.ReplaceAll("solid part\n"+facets+"endsolid part\n", "\n", "\r\n"),
		"one facet line": "solid part\n" + strings.ReplaceAll(facets, "\n", " ") + "endsolid",
		"no final break": "solid part\n" + facets + "endsolid part",
		"indented":       "solid part\n  " + strings.ReplaceAll(facets, "\n", "\n\t  ") + "endsolid part\n",
	}
	for name, text := range variants {
		s, err := format.DecodeSurface([]byte(text), name+".stl", format.ReadOptions{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}
		if got := corners(s); !slices.Equal(got, want) || s.NumVertices() != 4 {
			t.Errorf("%s: corners %v, %d vertices", name, got, s.NumVertices())
		}
	}
}

// binarySTL returns a binary STL header claiming count triangles followed
// by the given triangles (12 float32 each: normal and three corners).
func binarySTL(count uint32, tris ...[12]float32) []byte {
	b := make([]byte, 84, 84+50*len(tris))
	binary.LittleEndian.PutUint32(b[80:], count)
	for _, t := range tris {
		for _, x := range t {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		b = append(b, 0, 0)
	}
	return b
}

var unitTri = [12]float32{0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0}

func TestBadInput(t *testing.T) {
	stl := func(vertex string) string {
		return "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex " + vertex + "\nvertex 0 1 0\nendloop\nendfacet\nendsolid x\n"
	}
	nanTri := unitTri
	nanTri[4] = float32(math.NaN())
	cases := []struct {
		what string
		name string
		data []byte
		kind error
		msg  string // the message must contain this
	}{
		{"empty file", "empty.stl", nil, format.ErrEmpty, "empty file"},
		{"binary STL count beyond the file", "short.stl", binarySTL(10, unitTri, unitTri), format.ErrTruncated,
			"binary STL truncated: header says 10 triangles, file holds 2"},
		{"binary STL claiming 2^32-1 triangles", "huge.stl", binarySTL(math.MaxUint32, unitTri), format.ErrTruncated,
			"header says 4294967295 triangles, file holds 1"},
		{"binary STL shorter than its header", "tiny.stl", []byte("\x00\x01\x02"), format.ErrTruncated, "shorter than the 84-byte header"},
		{"binary STL with NaN", "nan.stl", binarySTL(1, nanTri), format.ErrNonFinite, "triangle 0"},
		{"ASCII STL with NaN", "nan.stl", []byte(stl("nan 0 0")), format.ErrNonFinite, "line 5"},
		{"ASCII STL with Inf", "inf.stl", []byte(stl("1 -Inf 0")), format.ErrNonFinite, "line 5"},
		{"ASCII STL overflowing float64", "big.stl", []byte(stl("1e999 0 0")), format.ErrNonFinite, "line 5"},
		{"ASCII STL missing endloop", "noloop.stl", []byte(strings.Replace(stl("1 0 0"), "endloop\n", "", 1)), format.ErrSyntax,
			`line 7: expected "endloop", found "endfacet"`},
		{"ASCII STL cut inside a facet", "cut.stl", []byte(stl("1 0 0")[:60]), format.ErrTruncated, "file ends"},
		{"ASCII STL without endsolid", "open.stl", []byte(strings.TrimSuffix(stl("1 0 0"), "endsolid x\n")), format.ErrTruncated, "no endsolid"},
		{"ASCII STL bad number", "word.stl", []byte(stl("1 zero 0")), format.ErrSyntax, `"zero" is not a number`},
		{"ASCII STL with no triangles", "none.stl", []byte("solid x\nendsolid x\n"), format.ErrNoTriangles, "no triangles"},
		{"OBJ index out of range", "range.obj", []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"), format.ErrBadIndex,
			"line 4: face refers to vertex 9, but the file has 3 vertices"},
		{"OBJ zero index", "zero.obj", []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"), format.ErrBadIndex, "line 4: vertex index 0"},
		{"OBJ relative index too far back", "rel.obj", []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n"), format.ErrBadIndex, "line 4"},
		{"OBJ with no triangles", "points.obj", []byte("v 0 0 0\nv 1 0 0\n"), format.ErrNoTriangles, "no triangles"},
		{"OBJ NaN vertex", "nan.obj", []byte("v 0 NaN 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), format.ErrNonFinite, "line 1"},
		{"OBJ face with two corners", "two.obj", []byte("v 0 0 0\nv 1 0 0\nf 1 2\n"), format.ErrSyntax, "line 3: face with 2 corners"},
		{"OFF counts beyond the file", "huge.off", []byte("OFF\n4294967295 1 0\n0 0 0\n"), format.ErrSyntax, "out of range"},
		{"OFF counts a file cannot hold", "many.off", []byte("OFF\n1000000 1 0\n0 0 0\n"), format.ErrTruncated, "line 2"},
		{"OFF index out of range", "range.off", []byte("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"), format.ErrBadIndex, "line 6"},
		{"OFF missing faces", "cut.off", []byte("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n"), format.ErrTruncated, "file ends"},
		{"PLY element count beyond the file", "huge.ply", []byte("ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\nend_header\n"),
			format.ErrTruncated, "more than"},
		{"PLY binary data cut short", "cut.ply", []byte("ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n" + strings.Repeat("\x00", 30)),
			format.ErrTruncated, "at byte"},
		{"PLY face index out of range", "range.ply", []byte("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n"),
			format.ErrBadIndex, "vertex 7"},
		{"PLY NaN coordinate", "nan.ply", []byte("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 nan 0\n"),
			format.ErrNonFinite, "nan"},
		{"PLY without end_header", "head.ply", []byte("ply\nformat ascii 1.0\nelement vertex 1\n"), format.ErrTruncated, "end_header"},
		{"unknown format", "notes.txt", []byte("hello\n"), format.ErrUnknownFormat, "not a surface format"},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			var err error
			allocated := allocatedBytes(func() { _, err = format.DecodeSurface(c.data, c.name, format.ReadOptions{}) })
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %q is not %v", err, c.kind)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, c.name+":") || !strings.Contains(msg, c.msg) {
				t.Errorf("error %q: want the file name first and %q", msg, c.msg)
			}
			// Allocation is bounded by the input's real size, whatever its
			// header claims: the readers' fixed buffers plus a multiple of it.
			if limit := uint64(256<<10 + 64*len(c.data)); allocated > limit {
				t.Errorf("allocated %d bytes for a %d-byte input", allocated, len(c.data))
			}
		})
	}
}

func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestReadSurfaceFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := format.ReadSurface(filepath.Join(dir, "missing.stl"), format.ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := format.ReadSurface(dir, format.ReadOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	empty := filepath.Join(dir, "empty.stl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := format.ReadSurface(empty, format.ReadOptions{}); !errors.Is(err, format.ErrEmpty) || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v", err)
	}
}

func TestUnits(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path("cube.stl"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		opt  format.ReadOptions
		side float64 // the unit cube's side in metres
	}{
		{format.ReadOptions{}, 1},
		{format.ReadOptions{Units: "m"}, 1},
		{format.ReadOptions{Units: "mm"}, 0.001},
		{format.ReadOptions{Units: "cm"}, 0.01},
		{format.ReadOptions{Units: "IN"}, 0.0254},
		{format.ReadOptions{Units: "mm", Scale: 2}, 0.002},
		{format.ReadOptions{Scale: 0.5}, 0.5},
	}
	for _, c := range cases {
		s, err := format.DecodeSurface(data, "cube.stl", c.opt)
		if err != nil {
			t.Fatal(err)
		}
		maxc := 0.0
		for _, x := range s.Positions {
			maxc = max(maxc, x)
		}
		if maxc != c.side {
			t.Errorf("%+v: side %v, want %v", c.opt, maxc, c.side)
		}
	}
	for _, bad := range []format.ReadOptions{{Units: "furlong"}, {Scale: -1}, {Scale: math.NaN()}, {Scale: math.Inf(1)}} {
		if _, err := format.DecodeSurface(data, "cube.stl", bad); err == nil || !strings.HasPrefix(err.Error(), "cube.stl: ") {
			t.Errorf("%+v: error %v", bad, err)
		}
	}
	big := []byte("v 10 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n")
	if _, err := format.DecodeSurface(big, "big.obj", format.ReadOptions{Scale: 1e308}); err == nil {
		t.Error("scaling past float64 range gave no error")
	}
}

// A binary STL larger than its header says is read up to its last
// declared triangle; trailing bytes are ignored.
func TestBinarySTLTrailingBytes(t *testing.T) {
	data := append(binarySTL(1, unitTri), "trailing junk"...)
	s, err := format.DecodeSurface(data, "junk.stl", format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.NumTriangles() != 1 {
		t.Errorf("%d triangles", s.NumTriangles())
	}
}

// The statement forms of OBJ, OFF and PLY that real files use, each
// reading as the unit square split into two triangles.
func TestTextFormatVariants(t *testing.T) {
	square := []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0}
	cases := []struct{ name, text string }{
		{"quad.obj", "# a quad\nmtllib m.mtl\no sq\nv 0 0 0\nv 1 0 0 1.0\nv 1 1 0 0.5 0.5 0.5\nv 0 1 0\nvt 0 0\nvn 0 0 1\ng a b\nusemtl red\ns 1\nl 1 2\nf 1/1/1 2/1/1 3/1/1 4/1/1\n"},
		{"continued.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 \\\n 3 \\\n   4\n"},
		{"relative.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf -4 -3 -2 -1\n"},
		{"crlf.obj", "v 0 0 0\r\nv 1 0 0\r\nv 1 1 0\r\nv 0 1 0\r\nf 1 2 3\r\nf 1 3 4\r\n"},
		{"inline.off", "OFF 4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n"},
		{"colour.off", "COFF\n# colours after every vertex and face\n4 2 0\n0 0 0 255 0 0 255\n1 0 0 0 255 0 255\n\n1 1 0 0 0 255 255\n0 1 0 9 9 9 255\n3 0 1 2 1 0 0\n3 0 2 3 0 1 0\n"},
		{"faces-first.ply", "ply\nformat ascii 1.0\nelement face 2\nproperty list uchar uint vertex_index\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nend_header\n3 0 1 2\n3 0 2 3\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n"},
	}
	for _, c := range cases {
		s, err := format.DecodeSurface([]byte(c.text), c.name, format.ReadOptions{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := corners(s); !slices.Equal(got, square) {
			t.Errorf("%s: corners %v", c.name, got)
		}
	}
}
