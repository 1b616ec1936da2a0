package format

import (
	"fmt"
	"io"
	"os"
)

// PFMInfo describes a .pfm file's layout, as `pfmesh inspect` prints it.
type PFMInfo struct {
	Major, Minor uint16
	Float32      bool // positions and ε stored as float32, gradient recomputed
	Size         int64
	Vertices     int
	Tets         int
	Boundary     int // boundary triangles
	Header       Header
	HeaderCRCOK  bool // the CRC over the header and section table matches
	Sections     []PFMSection
	// BytesPerTet is the file's size without the optional BVH sections,
	// divided by the number of tets.
	BytesPerTet float64
}

// PFMSection describes one section of a .pfm file.
type PFMSection struct {
	ID     SectionID // its String method gives the name
	Offset uint64
	Length uint64
	CRC    uint32 // as stored
	CRCOK  bool   // the stored CRC matches the bytes
}

// InspectPFM reads the header and section table of the .pfm file at path
// and checks every CRC, reporting mismatches in the result rather than as
// errors. It does not check the arrays' contents; ReadPFM does.
func InspectPFM(path string) (*PFMInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := parsePFMLayout(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	info := &PFMInfo{
		Major: l.major, Minor: l.minor, Float32: l.encoding == pfmFloat32, Size: int64(len(data)),
		Vertices: int(l.nv), Tets: int(l.nt), Boundary: int(l.nb),
		Header: l.header, HeaderCRCOK: l.headerCRCOK,
	}
	if b, ok := l.section(data, SectionBuildParams); ok {
		info.Header.BuildParams = b
	}
	if b, ok := l.section(data, SectionBuildReport); ok {
		info.Header.BuildReport = b
	}
	bvhBytes := uint64(0)
	for _, s := range l.sections {
		info.Sections = append(info.Sections, PFMSection{
			ID: s.id, Offset: s.offset, Length: s.length, CRC: s.crc,
			CRCOK: pfmCRC(data[s.offset:s.offset+s.length]) == s.crc,
		})
		if s.id.isBVH() {
			bvhBytes += (s.length + 7) &^ 7
		}
	}
	if l.nt > 0 {
		info.BytesPerTet = float64(uint64(len(data))-min(bvhBytes, uint64(len(data)))) / float64(l.nt)
	}
	return info, nil
}

// Print writes the description for people to read.
func (info *PFMInfo) Print(w io.Writer) error {
	enc := "float64"
	if info.Float32 {
		enc = "float32 (gradient recomputed)"
	}
	h := &info.Header
	crc := func(ok bool) string {
		if ok {
			return "ok"
		}
		return "MISMATCH"
	}
	mapping := "linear"
	if h.Mapping == Log {
		mapping = fmt.Sprintf("log, cap %g Pa", h.PressureCap)
	} else if h.Mapping != Linear {
		mapping = fmt.Sprintf("unknown (%d)", h.Mapping)
	}
	_, err := fmt.Fprintf(w, "pfm version %d.%d, %s, %d bytes, %.2f bytes/tet without BVH\n"+
		"%d vertices, %d tets, %d boundary triangles\n"+
		"E = %g Pa, mapping %s, dissipation %g s/m, friction %g, source unit %g m\n"+
		"bbox min (%g, %g, %g) max (%g, %g, %g) m\n"+
		"source sha256 %x\nheader crc %s\n"+
		"%4s  %-13s %12s %12s %10s\n",
		info.Major, info.Minor, enc, info.Size, info.BytesPerTet,
		info.Vertices, info.Tets, info.Boundary,
		h.Modulus, mapping, h.Dissipation, h.Friction, h.LengthUnit,
		h.BBox[0], h.BBox[1], h.BBox[2], h.BBox[3], h.BBox[4], h.BBox[5],
		h.SourceSHA256, crc(info.HeaderCRCOK),
		"id", "section", "offset", "length", "crc")
	if err != nil {
		return err
	}
	for _, s := range info.Sections {
		if _, err := fmt.Fprintf(w, "%4d  %-13s %12d %12d 0x%08x  %s\n", s.ID, s.ID, s.Offset, s.Length, s.CRC, crc(s.CRCOK)); err != nil {
			return err
		}
	}
	return nil
}
