package format

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// readers are the ways to load a .pfm file; each must return the same PFM.
var readers = []struct {
	name string
	read func(path string) (*PFM, func(), error)
}{
	{"ReadPFM", func(path string) (*PFM, func(), error) {
		p, err := ReadPFM(path)
		return p, func() {}, err
	}},
	{"OpenPFM", func(path string) (*PFM, func(), error) {
		m, err := OpenPFM(path, OpenOptions{})
		if err != nil {
			return nil, nil, err
		}
		return &m.PFM, func() { m.Close() }, nil
	}},
	{"OpenPFM/SkipCRC", func(path string) (*PFM, func(), error) {
		m, err := OpenPFM(path, OpenOptions{SkipCRC: true})
		if err != nil {
			return nil, nil, err
		}
		return &m.PFM, func() { m.Close() }, nil
	}},
}

func writeTemp(t testing.TB, p *PFM, opt WriteOptions) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.pfm")
	if err := WritePFM(path, p, opt); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPFMRoundTrip(t *testing.T) {
	const n, h = 4, 0.25
	noExtras := gridPFM(n, h)
	noExtras.BVH, noExtras.BuildParams, noExtras.BuildReport = nil, nil, nil
	logMap := gridPFM(n, h)
	logMap.Mapping, logMap.PressureCap = Log, 1e7
	cases := []struct {
		name string
		p    *PFM
		opt  WriteOptions
	}{
		{"float64", gridPFM(n, h), WriteOptions{}},
		{"float64/no-bvh-no-json", noExtras, WriteOptions{}},
		{"float64/log", logMap, WriteOptions{}},
		{"float32", gridPFM(n, h), WriteOptions{Float32: true}},
	}
	for _, c := range cases {
		path := writeTemp(t, c.p, c.opt)
		for _, r := range readers {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				got, done, err := r.read(path)
				if err != nil {
					t.Fatal(err)
				}
				defer done()
				want := *c.p
				want.Major, want.Minor = VersionMajor, VersionMinor
				// The grid spans [0, n·h]³ exactly.
				want.BBox = [6]float64{0, 0, 0, n * h, n * h, n * h}
				if c.opt.Float32 {
					// Grid coordinates are exact in float32; ε = k/2 is too.
					want.Gradient = got.Gradient
				}
				comparePFM(t, got, &want)
			})
		}
	}
}

// oneTet returns the smallest valid PFM: the tet (0,0,0) (1,0,0) (0,1,0)
// (0,0,1) in millimetres, all four vertices on the boundary.
func oneTet() *PFM {
	return &PFM{
		Header: Header{
			Modulus: 1e6, Mapping: Log, PressureCap: 1e8, Dissipation: 1, Friction: 0.5, LengthUnit: 1e-3,
			BuildParams: []byte(`{"h":1}`),
		},
		Positions: []float64{0, 0, 0, 1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3},
		Tets:      []int32{0, 1, 2, 3},
		Epsilon:   []float64{0, 0, 0, 0},
		Gradient:  make([]float64, 12),
		Tags:      []uint8{1, 1, 1, 1},
		Boundary:  []int32{2, 3, 1, 0, 3, 2, 0, 1, 3, 0, 2, 1}, // the first rotated: 1 2 3 is face 0
	}
}

// comparePFM reports every difference between got and want.
func comparePFM(t *testing.T, got, want *PFM) {
	t.Helper()
	type scalars struct {
		Major, Minor                                            uint16
		Modulus, PressureCap, Dissipation, Friction, LengthUnit float64
		Mapping                                                 PressureMapping
		BBox                                                    [6]float64
		SHA                                                     [32]byte
	}
	sc := func(h *Header) scalars {
		return scalars{h.Major, h.Minor, h.Modulus, h.PressureCap, h.Dissipation, h.Friction, h.LengthUnit, h.Mapping, h.BBox, h.SourceSHA256}
	}
	if gh, wh := sc(&got.Header), sc(&want.Header); gh != wh {
		t.Errorf("header\n got %+v\nwant %+v", gh, wh)
	}
	eq := func(name string, ok bool) {
		if !ok {
			t.Errorf("%s differs", name)
		}
	}
	eq("build params", bytes.Equal(got.BuildParams, want.BuildParams))
	eq("build report", bytes.Equal(got.BuildReport, want.BuildReport))
	eq("positions", slices.Equal(got.Positions, want.Positions))
	eq("tets", slices.Equal(got.Tets, want.Tets))
	eq("epsilon", slices.Equal(got.Epsilon, want.Epsilon))
	eq("gradient", slices.Equal(got.Gradient, want.Gradient))
	eq("tags", slices.Equal(got.Tags, want.Tags))
	eq("boundary", slices.Equal(got.Boundary, want.Boundary))
	if (got.BVH == nil) != (want.BVH == nil) {
		t.Fatalf("BVH present %v, want %v", got.BVH != nil, want.BVH != nil)
	}
	if got.BVH != nil {
		eq("bvh bounds", slices.Equal(got.BVH.Bounds, want.BVH.Bounds))
		eq("bvh nodes", slices.Equal(got.BVH.Nodes, want.BVH.Nodes))
		eq("bvh items", slices.Equal(got.BVH.Items, want.BVH.Items))
	}
}

// TestPFMFloat32 checks the float32 encoding against rounding done here:
// positions and ε are the float32 values nearest the originals, BVH boxes
// are rounded outward and still contain their tets.
func TestPFMFloat32(t *testing.T) {
	p := gridPFM(3, 0.1) // 0.1 is not a float32
	p.Epsilon[5] = 1.0 / 3
	path := writeTemp(t, p, WriteOptions{Float32: true})
	got, err := ReadPFM(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range p.Positions {
		if got.Positions[i] != float64(float32(v)) {
			t.Fatalf("position %d = %v, want float32(%v)", i, got.Positions[i], v)
		}
	}
	for i, v := range p.Epsilon {
		if got.Epsilon[i] != float64(float32(v)) {
			t.Fatalf("ε %d = %v, want float32(%v)", i, got.Epsilon[i], v)
		}
	}
	for i, v := range p.BVH.Bounds {
		g := got.BVH.Bounds[i]
		if float64(float32(g)) != g || (i%6 < 3 && g > v) || (i%6 >= 3 && g < v) {
			t.Fatalf("BVH bound %d = %v: not float32 or not outside %v", i, g, v)
		}
	}
	if !slices.Equal(got.Tets, p.Tets) || !slices.Equal(got.Boundary, p.Boundary) || !slices.Equal(got.Tags, p.Tags) {
		t.Error("tets, boundary or tags differ")
	}
	// A tet that rounding to float32 flattens is refused.
	flat := oneTet()
	flat.Positions[11] = 1e-50 // apex height: positive, but 0 as a float32
	if err := WritePFMTo(&bytes.Buffer{}, flat, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WritePFMTo(&bytes.Buffer{}, flat, WriteOptions{Float32: true}); !errors.Is(err, ErrPFMInvalid) {
		t.Errorf("flattened by float32: err = %v, want ErrPFMInvalid", err)
	}
	flat.Positions[11] = 1e300
	if err := WritePFMTo(&bytes.Buffer{}, flat, WriteOptions{Float32: true}); !errors.Is(err, ErrPFMInvalid) {
		t.Errorf("too big for float32: err = %v, want ErrPFMInvalid", err)
	}
}

// TestWritePFMDeterministic checks that a PFM always gives the same bytes,
// whatever GOMAXPROCS, through WritePFM and WritePFMTo alike.
func TestWritePFMDeterministic(t *testing.T) {
	p := gridPFM(12, 0.01) // > pfmChunk/6 cubes: the checks run in parallel
	var files [][]byte
	for _, procs := range []int{1, 2, 7} {
		old := runtime.GOMAXPROCS(procs)
		for _, opt := range []WriteOptions{{}, {Float32: true}} {
			data, err := os.ReadFile(writeTemp(t, p, opt))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WritePFMTo(&buf, p, opt); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("GOMAXPROCS=%d %+v: WritePFMTo and WritePFM differ", procs, opt)
			}
			files = append(files, data)
		}
		runtime.GOMAXPROCS(old)
	}
	for i := 2; i < len(files); i++ {
		if !bytes.Equal(files[i], files[i%2]) {
			t.Errorf("write %d differs from write %d", i, i%2)
		}
	}
}

// TestWritePFMAtomic checks that a failed write leaves nothing behind and
// a successful one replaces the old file whole.
func TestWritePFMAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.pfm")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := gridPFM(2, 1)
	bad.Epsilon[0] = 2
	if err := WritePFM(path, bad, WriteOptions{}); !errors.Is(err, ErrPFMInvalid) {
		t.Fatalf("invalid mesh: err = %v, want ErrPFMInvalid", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Error("failed write changed the file")
	}
	if err := WritePFM(path, gridPFM(2, 1), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPFM(path); err != nil {
		t.Fatal(err)
	}
	if err := WritePFM(filepath.Join(dir, "missing", "m.pfm"), gridPFM(2, 1), WriteOptions{}); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only m.pfm", len(entries))
	}
}
