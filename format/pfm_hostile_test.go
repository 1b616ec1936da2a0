package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

func encode(t testing.TB, p *PFM, opt WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePFMTo(&buf, p, opt); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sectionOf returns the bytes of section id of a well-formed file, aliasing data.
func sectionOf(t testing.TB, data []byte, id SectionID) []byte {
	t.Helper()
	l, err := parsePFMLayout(data)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := l.section(data, id)
	if !ok {
		t.Fatalf("no section %v", id)
	}
	return b
}

// entryOf returns the section table entry of section id.
func entryOf(t testing.TB, data []byte, id SectionID) []byte {
	t.Helper()
	le := binary.LittleEndian
	hs, n := int(le.Uint32(data[16:])), int(le.Uint32(data[20:]))
	for i := range n {
		if e := data[hs+24*i : hs+24*i+24]; SectionID(le.Uint32(e)) == id {
			return e
		}
	}
	t.Fatalf("no section %v", id)
	return nil
}

// refix recomputes every CRC of data whose table lies inside it, so
// a corruption reaches the checks behind the CRCs.
func refix(data []byte) []byte {
	le := binary.LittleEndian
	hs, n := int(le.Uint32(data[16:])), int(le.Uint32(data[20:]))
	if hs > len(data) || n > (len(data)-hs)/24 {
		return data // nothing the reader can check past the table
	}
	for i := range n {
		e := data[hs+24*i:]
		off, length := le.Uint64(e[8:]), le.Uint64(e[16:])
		if off+length <= uint64(len(data)) {
			le.PutUint32(e[4:], pfmCRC(data[off:off+length]))
		}
	}
	le.PutUint32(data[12:], pfmHeaderCRC(data[:hs+24*n]))
	return data
}

// assemble lays out a file from a fixed header (its first 176 bytes or
// more; the size field is set here) and sections, as a writer of a later
// minor version might.
func assemble(head []byte, secs []pfmSection, payload [][]byte) []byte {
	le := binary.LittleEndian
	head = bytes.Clone(head)
	le.PutUint32(head[16:], uint32(len(head)))
	le.PutUint32(head[20:], uint32(len(secs)))
	out := append(head, make([]byte, 24*len(secs))...)
	for i, s := range secs {
		e := out[len(head)+24*i:]
		le.PutUint32(e, uint32(s.id))
		le.PutUint64(e[8:], uint64(len(out)))
		le.PutUint64(e[16:], uint64(len(payload[i])))
		out = append(out, payload[i]...)
		out = append(out, make([]byte, -len(out)&7)...)
	}
	return refix(out)
}

// TestPFMMinorVersion checks that a reader of 1.0 reads a file of a later
// minor version with a longer header and sections it does not know, and
// refuses another major version.
func TestPFMMinorVersion(t *testing.T) {
	p := gridPFM(2, 0.5)
	data := encode(t, p, WriteOptions{})
	l, err := parsePFMLayout(data)
	if err != nil {
		t.Fatal(err)
	}
	head := append(bytes.Clone(data[:pfmHeaderSize]), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	binary.LittleEndian.PutUint16(head[pfmOffMinor:], 7)
	secs := []pfmSection{{id: 99}}
	payload := [][]byte{[]byte("a section from the future")}
	for _, s := range l.sections {
		secs = append(secs, s)
		payload = append(payload, data[s.offset:s.offset+s.length])
	}
	secs = append(secs, pfmSection{id: 1000})
	payload = append(payload, bytes.Repeat([]byte{0xee}, 13))
	got, err := pfmDecode(assemble(head, secs, payload), pfmDecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := *p
	want.Major, want.Minor, want.BBox = 1, 7, [6]float64{0, 0, 0, 1, 1, 1}
	comparePFM(t, got, &want)

	for _, major := range []uint16{0, 2, 0xffff} {
		d := bytes.Clone(data)
		binary.LittleEndian.PutUint16(d[pfmOffMajor:], major)
		if _, err := pfmDecode(refix(d), pfmDecodeOptions{}); !errors.Is(err, ErrPFMVersion) {
			t.Errorf("major version %d: err = %v, want ErrPFMVersion", major, err)
		}
	}
}

// TestReadPFMTruncated cuts a valid file at every length.
func TestReadPFMTruncated(t *testing.T) {
	for _, opt := range []WriteOptions{{}, {Float32: true}} {
		data := encode(t, gridPFM(1, 1), opt)
		for n := range len(data) {
			_, err := pfmDecode(data[:n], pfmDecodeOptions{})
			if !errors.Is(err, ErrPFMCorrupt) {
				t.Fatalf("%+v cut to %d of %d bytes: err = %v, want ErrPFMCorrupt", opt, n, len(data), err)
			}
		}
	}
}

// TestReadPFMHostile damages a valid file in one way at a time, fixing the
// CRCs unless the damage is to them, and checks for the right error, with
// allocation bounded by the file's size.
func TestReadPFMHostile(t *testing.T) {
	le := binary.LittleEndian
	base := encode(t, gridPFM(2, 0.5), WriteOptions{})
	put64 := func(off int, v uint64) func([]byte) { return func(d []byte) { le.PutUint64(d[off:], v) } }
	put32 := func(off int, v uint32) func([]byte) { return func(d []byte) { le.PutUint32(d[off:], v) } }
	inSection := func(id SectionID, off int, v []byte) func([]byte) {
		return func(d []byte) { copy(sectionOf(t, d, id)[off:], v) }
	}
	f64 := func(v float64) []byte { return le.AppendUint64(nil, math.Float64bits(v)) }
	u32 := func(v uint32) []byte { return le.AppendUint32(nil, v) }
	entry := func(id SectionID, field int, v uint64) func([]byte) {
		return func(d []byte) {
			e := entryOf(t, d, id)
			if field == 0 {
				le.PutUint32(e, uint32(v))
			} else {
				le.PutUint64(e[field:], v)
			}
		}
	}
	swapTetVertices := func(d []byte) {
		tets := sectionOf(t, d, SectionTets)
		a, b := le.Uint32(tets[4:]), le.Uint32(tets[8:])
		le.PutUint32(tets[4:], b)
		le.PutUint32(tets[8:], a)
	}
	cases := []struct {
		name   string
		damage func([]byte)
		crc    bool // leave the CRCs stale
		want   error
	}{
		{"magic", func(d []byte) { d[1] = 'X' }, false, ErrNotPFM},
		{"png", func(d []byte) { copy(d, "\x89PNG\r\n\x1a\n") }, false, ErrNotPFM},
		{"header crc", func(d []byte) { d[pfmOffFriction] ^= 1 }, true, ErrPFMChecksum},
		{"minor version crc", func(d []byte) { d[pfmOffMinor] ^= 1 }, true, ErrPFMChecksum},
		{"section crc", func(d []byte) { sectionOf(t, d, SectionEpsilon)[3] ^= 0x10 }, true, ErrPFMChecksum},
		{"bvh crc", func(d []byte) { sectionOf(t, d, SectionBVHItems)[0] ^= 1 }, true, ErrPFMChecksum},
		{"vertex count", put64(pfmOffVertices, 1<<40), false, ErrPFMCorrupt},
		{"vertex count small", put64(pfmOffVertices, 26), false, ErrPFMCorrupt},
		{"tet count", put64(pfmOffTets, 1<<27), false, ErrPFMCorrupt},
		{"tet count zero", put64(pfmOffTets, 0), false, ErrPFMCorrupt},
		{"tet count huge", put64(pfmOffTets, math.MaxUint64), false, ErrPFMCorrupt},
		{"boundary count", put64(pfmOffBoundary, 1<<62), false, ErrPFMCorrupt},
		{"section count", put32(pfmOffSectionCount, math.MaxUint32), false, ErrPFMCorrupt},
		{"header size small", put32(pfmOffHeaderSize, 168), false, ErrPFMCorrupt},
		{"header size odd", put32(pfmOffHeaderSize, 180), false, ErrPFMCorrupt},
		{"header size huge", put32(pfmOffHeaderSize, math.MaxUint32-7), false, ErrPFMCorrupt},
		{"encoding", put32(pfmOffEncoding, 2), false, ErrPFMCorrupt},
		{"section past end", entry(SectionTets, 16, 1<<50), false, ErrPFMCorrupt},
		{"section offset past end", entry(SectionTags, 8, 1<<63), false, ErrPFMCorrupt},
		{"section unaligned", entry(SectionTets, 8, 4), false, ErrPFMCorrupt},
		{"section in header", entry(SectionTets, 8, 8), false, ErrPFMCorrupt},
		{"sections overlap", func(d []byte) {
			le.PutUint64(entryOf(t, d, SectionEpsilon)[8:], le.Uint64(entryOf(t, d, SectionPositions)[8:])+8)
		}, false, ErrPFMCorrupt},
		{"section twice", entry(SectionGradient, 0, uint64(SectionTets)), false, ErrPFMCorrupt},
		{"section missing", entry(SectionTags, 0, 77), false, ErrPFMCorrupt},
		{"section short", entry(SectionEpsilon, 16, 8), false, ErrPFMCorrupt},
		{"bvh partial", entry(SectionBVHNodes, 0, 78), false, ErrPFMCorrupt},
		{"bvh ragged", entry(SectionBVHBounds, 16, 40), false, ErrPFMCorrupt},
		{"mapping", put32(pfmOffMapping, 9), false, ErrPFMInvalid},
		{"modulus", put64(pfmOffModulus, math.Float64bits(-1)), false, ErrPFMInvalid},
		{"modulus nan", put64(pfmOffModulus, math.Float64bits(math.NaN())), false, ErrPFMInvalid},
		{"friction inf", put64(pfmOffFriction, math.Float64bits(math.Inf(1))), false, ErrPFMInvalid},
		{"bbox", put64(pfmOffBBox+8, math.Float64bits(-1)), false, ErrPFMInvalid},
		{"tet index", inSection(SectionTets, 4, u32(27)), false, ErrPFMInvalid},
		{"tet index negative", inSection(SectionTets, 4, u32(0xffffffff)), false, ErrPFMInvalid},
		{"tet inverted", swapTetVertices, false, ErrPFMInvalid},
		{"tet flat", inSection(SectionTets, 4, u32(0)), false, ErrPFMInvalid},
		{"position nan", inSection(SectionPositions, 16, f64(math.NaN())), false, ErrPFMInvalid},
		{"position inf", inSection(SectionPositions, 0, f64(math.Inf(-1))), false, ErrPFMInvalid},
		{"epsilon range", inSection(SectionEpsilon, 8, f64(1.5)), false, ErrPFMInvalid},
		{"epsilon nan", inSection(SectionEpsilon, 8, f64(math.NaN())), false, ErrPFMInvalid},
		{"gradient inf", inSection(SectionGradient, 40, f64(math.Inf(1))), false, ErrPFMInvalid},
		{"tag", inSection(SectionTags, 3, []byte{3}), false, ErrPFMInvalid},
		{"boundary tet", inSection(SectionBoundary, 4, u32(16*48)), false, ErrPFMCorrupt},
		{"boundary rotation", inSection(SectionBoundary, 4, u32(16*5+4*3+1)), false, ErrPFMCorrupt},
		{"json", inSection(SectionBuildParams, 0, []byte("[")), false, ErrPFMInvalid},
		{"bvh count", inSection(SectionBVHNodes, 4, u32(0xffffffff)), false, ErrPFMInvalid},
		{"bvh self child", inSection(SectionBVHNodes, 0, u32(0)), false, ErrPFMInvalid},
		{"bvh child range", inSection(SectionBVHNodes, 0, u32(1<<30)), false, ErrPFMInvalid},
		{"bvh leaf range", func(d []byte) {
			nodes := sectionOf(t, d, SectionBVHNodes)
			for i := 0; i < len(nodes); i += 8 {
				if le.Uint32(nodes[i+4:]) > 0 {
					le.PutUint32(nodes[i:], 1<<31-2)
					return
				}
			}
		}, false, ErrPFMInvalid},
		{"bvh item twice", inSection(SectionBVHItems, 4, sectionOf(t, base, SectionBVHItems)[:4]), false, ErrPFMInvalid},
		{"bvh item range", inSection(SectionBVHItems, 4, u32(48)), false, ErrPFMInvalid},
		{"bvh box", inSection(SectionBVHBounds, 48*3, f64(0.9)), false, ErrPFMInvalid},
		{"bvh box nan", inSection(SectionBVHBounds, 8, f64(math.NaN())), false, ErrPFMInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := bytes.Clone(base)
			c.damage(d)
			if !c.crc {
				refix(d)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := pfmDecode(d, pfmDecodeOptions{})
			runtime.ReadMemStats(&after)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(8*len(d)+64<<10) {
				t.Errorf("allocated %d bytes for a %d-byte file", alloc, len(d))
			}
		})
	}

	// ReadPFM names the file.
	path := filepath.Join(t.TempDir(), "bad.pfm")
	d := bytes.Clone(base)
	sectionOf(t, d, SectionEpsilon)[0] ^= 1 // ε[0] = 0 becomes 5e-324: damaged but valid
	if err := os.WriteFile(path, d, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range readers[:2] {
		if _, _, err := r.read(path); err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, ErrPFMChecksum) {
			t.Errorf("%s: err = %v, want a CRC error naming %s", r.name, err, path)
		}
	}
	if _, _, err := readers[2].read(path); err != nil {
		t.Errorf("SkipCRC: %v", err)
	}
}

// randomCoplanar returns four random points exactly on the plane
// z = x + y: x and y are 30-bit fractions, so their sum is exact.
func randomCoplanar(rng *rand.Rand) []float64 {
	q := make([]float64, 12)
	for v := range 4 {
		x, y := float64(rng.Uint32()>>2)/(1<<30), float64(rng.Uint32()>>2)/(1<<30)
		q[3*v], q[3*v+1], q[3*v+2] = x, y, x+y
	}
	return q
}

// coplanarQuad returns four points on the plane z = x + y (exactly: the
// coordinates are 30-bit fractions, so the sums are exact) whose
// floating-point orientation determinant rounds to a positive value.
func coplanarQuad(t testing.TB) []float64 {
	naive := func(q []float64) float64 {
		a, b, c, d := geom.At(q, 0), geom.At(q, 1), geom.At(q, 2), geom.At(q, 3)
		return geom.Dot(geom.Cross(geom.Sub(b, a), geom.Sub(c, a)), geom.Sub(d, a))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		if q := randomCoplanar(rng); naive(q) > 0 {
			return q
		}
	}
	t.Fatal("no coplanar quadruple with a positive rounded determinant found")
	return nil
}

// TestReadPFMExactOrientation checks that orientation is decided exactly:
// an exactly flat tet must be refused though its rounded determinant is
// positive.
func TestReadPFMExactOrientation(t *testing.T) {
	p := oneTet()
	p.Positions = coplanarQuad(t)
	if err := p.validate(); !errors.Is(err, ErrPFMInvalid) {
		t.Errorf("coplanar tet with a positive float determinant: err = %v, want ErrPFMInvalid", err)
	}
}

// caterpillarBVH returns a tree over nt tets, all inside box, in which
// each of the first inner nodes has a one-tet leaf as its left child: its
// deepest leaf is at depth inner.
func caterpillarBVH(nt, inner int, box []float64) *BVH {
	b := &BVH{}
	for i := range inner {
		b.Nodes = append(b.Nodes, int32(2*i+2), 0, int32(i), 1)
	}
	b.Nodes = append(b.Nodes, int32(inner), int32(nt-inner))
	for range len(b.Nodes) / 2 {
		b.Bounds = append(b.Bounds, box...)
	}
	for i := range nt {
		b.Items = append(b.Items, int32(i))
	}
	return b
}

// TestBVHDepth checks the depth limit with caterpillar trees over 162
// tets, valid in every other respect: refused at depth 64, accepted at 63.
func TestBVHDepth(t *testing.T) {
	p := gridPFM(3, 1)
	box := []float64{0, 0, 0, 3, 3, 3}
	p.BVH = caterpillarBVH(p.NumTets(), 63, box)
	if err := p.Validate(); err != nil {
		t.Errorf("depth 63: %v", err)
	}
	p.BVH = caterpillarBVH(p.NumTets(), 64, box)
	if err := p.Validate(); !errors.Is(err, ErrPFMInvalid) {
		t.Errorf("depth 64: err = %v, want ErrPFMInvalid", err)
	}
}
