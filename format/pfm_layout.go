package format

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
)

// The byte layout of a .pfm file; docs/pfm.md is the normative description.

// pfmMagic opens every .pfm file. Like PNG's signature, the high byte
// catches 7-bit transfers, and CR LF, SUB, LF catch newline translation.
var pfmMagic = [8]byte{0x89, 'P', 'F', 'M', '\r', '\n', 0x1a, '\n'}

// Offsets of the fixed header fields of version 1.0.
const (
	pfmOffMajor        = 8
	pfmOffMinor        = 10
	pfmOffHeaderCRC    = 12
	pfmOffHeaderSize   = 16
	pfmOffSectionCount = 20
	pfmOffVertices     = 24
	pfmOffTets         = 32
	pfmOffBoundary     = 40
	pfmOffEncoding     = 48
	pfmOffMapping      = 52
	pfmOffModulus      = 56
	pfmOffPressureCap  = 64
	pfmOffDissipation  = 72
	pfmOffFriction     = 80
	pfmOffLengthUnit   = 88
	pfmOffBBox         = 96
	pfmOffSHA256       = 144
	pfmHeaderSize      = 176 // of version 1.0; later minor versions may append fields
	pfmEntrySize       = 24  // id u32, crc u32, offset u64, length u64
)

// Format limits: vertex indices fit in int32, and a boundary reference
// packs a tet index with four more bits.
const (
	pfmMaxVertices = math.MaxInt32
	pfmMaxTets     = 1 << 28
)

// Value encodings of positions, ε and ∇ε (header field "encoding").
const (
	pfmFloat64 = 0
	pfmFloat32 = 1
)

// SectionID identifies a section of a .pfm file.
type SectionID uint32

// Sections of a version 1 file. Readers skip sections with other ids.
const (
	SectionPositions   SectionID = 1  // real ×3 per vertex
	SectionTets        SectionID = 2  // uint32 ×4 per tet
	SectionEpsilon     SectionID = 3  // real per vertex
	SectionGradient    SectionID = 4  // real ×3 per vertex; optional, recomputed when absent
	SectionTags        SectionID = 5  // uint8 per vertex
	SectionBoundary    SectionID = 6  // uint32 face reference per boundary triangle
	SectionBuildParams SectionID = 7  // JSON; optional
	SectionBuildReport SectionID = 8  // JSON; optional
	SectionBVHBounds   SectionID = 9  // float64 ×6 per node; optional, with 10 and 11
	SectionBVHNodes    SectionID = 10 // int32 ×2 per node
	SectionBVHItems    SectionID = 11 // uint32 per tet
)

var pfmSectionNames = map[SectionID]string{
	SectionPositions: "positions", SectionTets: "tets", SectionEpsilon: "epsilon",
	SectionGradient: "gradient", SectionTags: "tags", SectionBoundary: "boundary",
	SectionBuildParams: "build-params", SectionBuildReport: "build-report",
	SectionBVHBounds: "bvh-bounds", SectionBVHNodes: "bvh-nodes", SectionBVHItems: "bvh-items",
}

// String returns the section's name, or "unknown" for ids this version
// does not define.
func (id SectionID) String() string {
	if s, ok := pfmSectionNames[id]; ok {
		return s
	}
	return "unknown"
}

func (id SectionID) isBVH() bool { return id >= SectionBVHBounds && id <= SectionBVHItems }

// Errors the .pfm readers and WritePFM wrap; test for them with errors.Is.
var (
	ErrNotPFM       = errors.New("not a .pfm file (bad magic)")
	ErrPFMVersion   = errors.New("unsupported .pfm major version")
	ErrPFMCorrupt   = errors.New("corrupt .pfm file")
	ErrPFMChecksum  = errors.New(".pfm CRC-32C mismatch")
	ErrPFMInvalid   = errors.New("invalid pressure-field mesh")
	pfmCastagnoli   = crc32.MakeTable(crc32.Castagnoli)
	pfmLittleEndian = binary.LittleEndian
)

func pfmCRC(b []byte) uint32 { return crc32.Checksum(b, pfmCastagnoli) }

// pfmHeaderCRC returns the CRC of a header and section table (head, from
// the file's start to the table's end) without the CRC field itself.
func pfmHeaderCRC(head []byte) uint32 {
	return crc32.Update(pfmCRC(head[:pfmOffHeaderCRC]), pfmCastagnoli, head[pfmOffHeaderSize:])
}

// pfmSection is one entry of the section table.
type pfmSection struct {
	id             SectionID
	crc            uint32
	offset, length uint64
}

// pfmLayout is what a file's fixed header and section table say, checked
// against the file's size but not against its contents.
type pfmLayout struct {
	major, minor uint16
	headerCRC    uint32
	headerSize   uint64
	nv, nt, nb   uint64
	encoding     uint32
	header       Header
	sections     []pfmSection
	tableEnd     uint64
	headerCRCOK  bool
	size         uint64
	realSize     uint64 // bytes per stored real: 8 or 4
	byID         map[SectionID]int
}

func pfmCorrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrPFMCorrupt, fmt.Sprintf(format, args...))
}

func pfmInvalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrPFMInvalid, fmt.Sprintf(format, args...))
}

// parsePFMLayout reads and checks the header and section table of data:
// every section lies inside the file, after the table, 8-byte aligned,
// without overlapping another, and appears once. It does not verify CRCs
// beyond noting whether the header's matches.
func parsePFMLayout(data []byte) (*pfmLayout, error) {
	le := pfmLittleEndian
	size := uint64(len(data))
	if !bytes.HasPrefix(data, pfmMagic[:min(size, 8)]) {
		return nil, ErrNotPFM
	}
	if size >= pfmOffHeaderCRC {
		// The version comes first: another major version may lay out
		// everything after it differently.
		if major, minor := le.Uint16(data[pfmOffMajor:]), le.Uint16(data[pfmOffMinor:]); major != VersionMajor {
			return nil, fmt.Errorf("%w: file is version %d.%d, this reader reads %d.x", ErrPFMVersion, major, minor, VersionMajor)
		}
	}
	if size < pfmHeaderSize {
		return nil, pfmCorrupt("truncated: %d bytes, shorter than the %d-byte fixed header", size, pfmHeaderSize)
	}
	l := &pfmLayout{
		major:      le.Uint16(data[pfmOffMajor:]),
		minor:      le.Uint16(data[pfmOffMinor:]),
		headerCRC:  le.Uint32(data[pfmOffHeaderCRC:]),
		headerSize: uint64(le.Uint32(data[pfmOffHeaderSize:])),
		size:       size,
	}
	count := uint64(le.Uint32(data[pfmOffSectionCount:]))
	switch {
	case l.headerSize < pfmHeaderSize || l.headerSize%8 != 0:
		return nil, pfmCorrupt("header size %d: must be a multiple of 8 and at least %d", l.headerSize, pfmHeaderSize)
	case l.headerSize > size:
		return nil, pfmCorrupt("truncated: header size %d exceeds the file's %d bytes", l.headerSize, size)
	case count > (size-l.headerSize)/pfmEntrySize:
		return nil, pfmCorrupt("truncated: %d section table entries do not fit in the file's %d bytes", count, size)
	}
	l.tableEnd = l.headerSize + count*pfmEntrySize
	l.headerCRCOK = pfmHeaderCRC(data[:l.tableEnd]) == l.headerCRC

	h := &l.header
	h.Major, h.Minor = l.major, l.minor
	l.nv, l.nt, l.nb = le.Uint64(data[pfmOffVertices:]), le.Uint64(data[pfmOffTets:]), le.Uint64(data[pfmOffBoundary:])
	l.encoding = le.Uint32(data[pfmOffEncoding:])
	h.Mapping = PressureMapping(le.Uint32(data[pfmOffMapping:]))
	f := func(off int) float64 { return math.Float64frombits(le.Uint64(data[off:])) }
	h.Modulus, h.PressureCap = f(pfmOffModulus), f(pfmOffPressureCap)
	h.Dissipation, h.Friction, h.LengthUnit = f(pfmOffDissipation), f(pfmOffFriction), f(pfmOffLengthUnit)
	for k := range h.BBox {
		h.BBox[k] = f(pfmOffBBox + 8*k)
	}
	copy(h.SourceSHA256[:], data[pfmOffSHA256:])
	switch l.encoding {
	case pfmFloat64:
		l.realSize = 8
	case pfmFloat32:
		l.realSize = 4
	default:
		return nil, pfmCorrupt("unknown value encoding %d", l.encoding)
	}

	l.byID = make(map[SectionID]int, count)
	l.sections = make([]pfmSection, count)
	for i := range l.sections {
		e := data[l.headerSize+uint64(i)*pfmEntrySize:]
		s := pfmSection{
			id: SectionID(le.Uint32(e)), crc: le.Uint32(e[4:]),
			offset: le.Uint64(e[8:]), length: le.Uint64(e[16:]),
		}
		switch {
		case s.offset%8 != 0:
			return nil, pfmCorrupt("section %d (%v): offset %d is not a multiple of 8", s.id, s.id, s.offset)
		case s.offset < l.tableEnd:
			return nil, pfmCorrupt("section %d (%v): offset %d lies inside the header or section table (which end at %d)", s.id, s.id, s.offset, l.tableEnd)
		case s.offset > size || s.length > size-s.offset:
			return nil, pfmCorrupt("truncated: section %d (%v) at offset %d, %d bytes long, extends past the file's end at %d", s.id, s.id, s.offset, s.length, size)
		}
		if _, dup := l.byID[s.id]; dup {
			return nil, pfmCorrupt("section %d (%v) appears twice", s.id, s.id)
		}
		l.byID[s.id] = i
		l.sections[i] = s
	}
	ord := slices.Clone(l.sections)
	// Empty sections sort first among equal offsets, so they never overlap.
	slices.SortFunc(ord, func(a, b pfmSection) int {
		return cmp.Or(cmp.Compare(a.offset, b.offset), cmp.Compare(a.length, b.length))
	})
	for i := 1; i < len(ord); i++ {
		if a, b := ord[i-1], ord[i]; a.offset+a.length > b.offset {
			return nil, pfmCorrupt("sections %d (%v) and %d (%v) overlap", a.id, a.id, b.id, b.id)
		}
	}
	return l, nil
}

// section returns the bytes of section id, or ok = false if absent.
func (l *pfmLayout) section(data []byte, id SectionID) (b []byte, ok bool) {
	i, ok := l.byID[id]
	if !ok {
		return nil, false
	}
	s := l.sections[i]
	return data[s.offset : s.offset+s.length], true
}
