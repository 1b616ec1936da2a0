package format

import (
	"fmt"
	"os"
	"slices"
)

// ReadPFM reads the .pfm file at path. It verifies every CRC and checks
// the contents as Validate does, so a PFM it returns is valid; an error
// names the file and wraps ErrNotPFM, ErrPFMVersion, ErrPFMCorrupt,
// ErrPFMChecksum or ErrPFMInvalid. It allocates at most a few times the
// file's size. The arrays share one buffer holding the file.
//
// A file without a gradient section (written with Float32) gets
// VertexGradients of its stored positions and ε.
func ReadPFM(path string) (*PFM, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := pfmDecode(data, pfmDecodeOptions{inPlace: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

type pfmDecodeOptions struct {
	inPlace bool // arrays may alias data
	skipCRC bool
}

// pfmDecode decodes and checks a whole .pfm file held in data.
func pfmDecode(data []byte, opt pfmDecodeOptions) (*PFM, error) {
	l, err := parsePFMLayout(data)
	if err != nil {
		return nil, err
	}
	if !opt.skipCRC {
		if err := l.verifyCRCs(data); err != nil {
			return nil, err
		}
	}
	if err := l.checkSizes(); err != nil {
		return nil, err
	}
	p := &PFM{Header: l.header}
	sec := func(id SectionID) []byte { b, _ := l.section(data, id); return b }
	reals := func(id SectionID) []float64 {
		if l.encoding == pfmFloat32 {
			return pfmWiden(pfmArray[float32](sec(id), true))
		}
		return pfmArray[float64](sec(id), opt.inPlace)
	}
	p.Positions = reals(SectionPositions)
	p.Tets = pfmArray[int32](sec(SectionTets), opt.inPlace)
	p.Epsilon = reals(SectionEpsilon)
	_, hasGradient := l.byID[SectionGradient]
	if hasGradient {
		p.Gradient = reals(SectionGradient)
	} else {
		p.Gradient = make([]float64, len(p.Positions)) // checked below, once the tets are
	}
	p.Tags = pfmArray[uint8](sec(SectionTags), opt.inPlace)
	if b, ok := l.section(data, SectionBuildParams); ok {
		p.BuildParams = slices.Clone(b)
	}
	if b, ok := l.section(data, SectionBuildReport); ok {
		p.BuildReport = slices.Clone(b)
	}
	if _, ok := l.byID[SectionBVHBounds]; ok {
		p.BVH = &BVH{
			Bounds: pfmArray[float64](sec(SectionBVHBounds), opt.inPlace),
			Nodes:  pfmArray[int32](sec(SectionBVHNodes), opt.inPlace),
			Items:  pfmArray[int32](sec(SectionBVHItems), opt.inPlace),
		}
	}
	// Indices are checked before the boundary references and the gradient
	// use them.
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.Boundary, err = pfmExpandBoundary(pfmArray[uint32](sec(SectionBoundary), true), p.Tets); err != nil {
		return nil, err
	}
	if !hasGradient {
		p.Gradient = VertexGradients(p.Positions, p.Tets, p.Epsilon)
		if i := pfmFirstNonFinite(p.Gradient); i >= 0 {
			return nil, pfmInvalid("vertex %d: recomputed gradient %v is not finite", i/3, p.Gradient[i])
		}
	}
	if b := pfmBBox(p.Positions); b != p.BBox {
		return nil, pfmInvalid("header bounding box %v differs from the positions' %v", p.BBox, b)
	}
	return p, nil
}

// verifyCRCs checks the header's CRC and every section's, known or not.
func (l *pfmLayout) verifyCRCs(data []byte) error {
	if !l.headerCRCOK {
		return fmt.Errorf("%w: header and section table: stored 0x%08x, computed 0x%08x", ErrPFMChecksum,
			l.headerCRC, pfmHeaderCRC(data[:l.tableEnd]))
	}
	for _, s := range l.sections {
		if c := pfmCRC(data[s.offset : s.offset+s.length]); c != s.crc {
			return fmt.Errorf("%w: section %d (%v) at offset %d: stored 0x%08x, computed 0x%08x", ErrPFMChecksum,
				s.id, s.id, s.offset, s.crc, c)
		}
	}
	return nil
}

// checkSizes checks the counts against the format's limits and the
// required sections' lengths against the counts.
func (l *pfmLayout) checkSizes() error {
	switch {
	case l.nv > pfmMaxVertices:
		return pfmCorrupt("%d vertices: more than the format's %d", l.nv, pfmMaxVertices)
	case l.nt == 0 || l.nt > pfmMaxTets:
		return pfmCorrupt("%d tets: not in [1, %d]", l.nt, pfmMaxTets)
	case l.nb > 4*l.nt:
		return pfmCorrupt("%d boundary triangles: more than 4 per tet", l.nb)
	}
	rs := l.realSize
	want := []struct {
		id       SectionID
		length   uint64
		optional bool
	}{
		{SectionPositions, 3 * rs * l.nv, false},
		{SectionTets, 16 * l.nt, false},
		{SectionEpsilon, rs * l.nv, false},
		{SectionGradient, 3 * rs * l.nv, true},
		{SectionTags, l.nv, false},
		{SectionBoundary, 4 * l.nb, false},
		{SectionBVHItems, 4 * l.nt, true},
	}
	for _, w := range want {
		b, ok := l.byID[w.id]
		switch {
		case !ok && !w.optional:
			return pfmCorrupt("required section %d (%v) is missing", w.id, w.id)
		case ok && l.sections[b].length != w.length:
			return pfmCorrupt("section %d (%v) is %d bytes, want %d for the header's counts", w.id, w.id, l.sections[b].length, w.length)
		}
	}
	// The BVH's three sections come together, with whole nodes.
	n := 0
	for id := SectionBVHBounds; id <= SectionBVHItems; id++ {
		if _, ok := l.byID[id]; ok {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	bounds, okB := l.byID[SectionBVHBounds]
	nodes, okN := l.byID[SectionBVHNodes]
	if n != 3 || !okB || !okN {
		return pfmCorrupt("BVH: sections 9, 10 and 11 must all be present or all absent")
	}
	if lb, ln := l.sections[bounds].length, l.sections[nodes].length; lb%48 != 0 || ln%8 != 0 || lb/48 != ln/8 {
		return pfmCorrupt("BVH: %d bytes of boxes and %d bytes of nodes do not describe the same whole nodes", lb, ln)
	}
	return nil
}
