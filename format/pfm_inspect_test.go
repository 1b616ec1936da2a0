package format

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInspectPFM(t *testing.T) {
	p := gridPFM(3, 0.1)
	path := writeTemp(t, p, WriteOptions{})
	info, err := InspectPFM(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Vertices != p.NumVertices() || info.Tets != p.NumTets() || info.Boundary != p.NumBoundary() || info.Float32 {
		t.Errorf("counts %d %d %d, float32 %v", info.Vertices, info.Tets, info.Boundary, info.Float32)
	}
	for i, s := range info.Sections {
		if s.ID != SectionID(i+1) || !s.CRCOK {
			t.Errorf("section %d: id %v, crc ok %v", i, s.ID, s.CRCOK)
		}
	}
	if len(info.Sections) != 11 || !info.HeaderCRCOK {
		t.Fatalf("%d sections, header CRC ok %v", len(info.Sections), info.HeaderCRCOK)
	}
	st, _ := os.Stat(path)
	nn, nt := p.BVH.NumNodes(), p.NumTets()
	pad := func(n int) int { return (n + 7) &^ 7 }
	bvh := pad(48*nn) + pad(8*nn) + 4*nt // the items come last: no padding
	if want := float64(int(st.Size())-bvh) / float64(nt); info.BytesPerTet != want {
		t.Errorf("%.4f bytes/tet, want %.4f", info.BytesPerTet, want)
	}

	// A damaged section is reported, not refused.
	data, _ := os.ReadFile(path)
	sectionOf(t, data, SectionTets)[7] ^= 1
	bad := filepath.Join(t.TempDir(), "bad.pfm")
	os.WriteFile(bad, data, 0o644)
	info, err = InspectPFM(bad)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range info.Sections {
		if s.CRCOK != (s.ID != SectionTets) {
			t.Errorf("section %v: crc ok %v", s.ID, s.CRCOK)
		}
	}
	var sb strings.Builder
	info.Print(&sb)
	if !strings.Contains(sb.String(), "tets") || strings.Count(sb.String(), "MISMATCH") != 1 {
		t.Errorf("Print:\n%s", sb.String())
	}
	os.WriteFile(bad, []byte("solid x\nendsolid x\n"), 0o644)
	if _, err := InspectPFM(bad); !errors.Is(err, ErrNotPFM) || !strings.Contains(err.Error(), bad) {
		t.Errorf("STL: err = %v, want ErrNotPFM naming the file", err)
	}
}

func TestMappedClose(t *testing.T) {
	m, err := OpenPFM(writeTemp(t, gridPFM(2, 1), WriteOptions{}), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.NumTets() != 48 {
		t.Fatalf("%d tets", m.NumTets())
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if m.Tets != nil || m.Close() != nil {
		t.Error("Close twice, or arrays left after Close")
	}
	if _, err := OpenPFM(t.TempDir(), OpenOptions{}); err == nil {
		t.Error("opened a directory")
	}
	empty := filepath.Join(t.TempDir(), "empty.pfm")
	os.WriteFile(empty, nil, 0o644)
	if _, err := OpenPFM(empty, OpenOptions{}); !errors.Is(err, ErrPFMCorrupt) {
		t.Errorf("empty file: err = %v, want ErrPFMCorrupt", err)
	}
}
