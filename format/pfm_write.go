package format

import (
	"fmt"
	"io"
	"math"

	"github.com/pfmesh/pfmesh/internal/atomicfile"
)

// WriteOptions controls how WritePFM encodes a PFM.
type WriteOptions struct {
	// Float32 stores positions and ε as float32 (BVH boxes rounded
	// outward, so they still contain their tets) and omits the gradient
	// section: readers recompute ∇ε from the stored values with
	// VertexGradients, so they return that rather than p.Gradient. About
	// 19.5 bytes per tet instead of 27 (docs/pfm.md, "Size"). WritePFM
	// refuses a mesh with a tet that rounding flattens or inverts.
	Float32 bool
}

// WritePFM writes p to path as a .pfm file (docs/pfm.md), through a
// temporary file in the same directory renamed into place, so path never
// holds a partial file. It refuses a p that fails Validate. The bytes
// depend only on p and opt: identical input gives an identical file.
func WritePFM(path string, p *PFM, opt WriteOptions) error {
	enc, err := pfmEncode(p, opt)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return WriteAtomic(path, enc.writeTo)
}

// WriteAtomic creates or replaces path with the bytes write produces,
// through a buffered temporary file in the same directory that is synced
// and renamed into place: path holds either its old contents or all the
// new ones, never part of them. Errors name path. An interrupted process
// removes the temporary file (see internal/atomicfile).
func WriteAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, write)
}

// WritePFMTo writes p as a .pfm file to w; see WritePFM.
func WritePFMTo(w io.Writer, p *PFM, opt WriteOptions) error {
	enc, err := pfmEncode(p, opt)
	if err != nil {
		return err
	}
	return enc.writeTo(w)
}

// pfmEncoded is a file ready to write: the header and section table,
// then the sections' bytes, each but the last followed by zero padding to
// 8 bytes, so the file ends with its last section and losing any byte
// shows.
type pfmEncoded struct {
	head     []byte
	sections [][]byte
}

func (e *pfmEncoded) writeTo(w io.Writer) error {
	var pad [8]byte
	if _, err := w.Write(e.head); err != nil {
		return err
	}
	for i, s := range e.sections {
		if _, err := w.Write(s); err != nil {
			return err
		}
		if n := -len(s) & 7; n > 0 && i < len(e.sections)-1 {
			if _, err := w.Write(pad[:n]); err != nil {
				return err
			}
		}
	}
	return nil
}

// pfmEncode validates p and lays out its file. At full precision on a
// little-endian machine the sections alias p's arrays.
func pfmEncode(p *PFM, opt WriteOptions) (*pfmEncoded, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	refs, err := pfmBoundaryRefs(p)
	if err != nil {
		return nil, err
	}
	type sec struct {
		id   SectionID
		data []byte
	}
	var secs []sec
	add := func(id SectionID, b []byte) { secs = append(secs, sec{id, b}) }
	positions, bvhBounds := p.Positions, []float64(nil)
	if p.BVH != nil {
		bvhBounds = p.BVH.Bounds
	}
	encoding := uint32(pfmFloat64)
	if opt.Float32 {
		encoding = pfmFloat32
		if positions, bvhBounds, err = p.rounded32(); err != nil {
			return nil, err
		}
		add(SectionPositions, pfmLEBytes(pfmNarrow(positions)))
		add(SectionTets, pfmLEBytes(p.Tets))
		add(SectionEpsilon, pfmLEBytes(pfmNarrow(p.Epsilon)))
	} else {
		add(SectionPositions, pfmLEBytes(p.Positions))
		add(SectionTets, pfmLEBytes(p.Tets))
		add(SectionEpsilon, pfmLEBytes(p.Epsilon))
		add(SectionGradient, pfmLEBytes(p.Gradient))
	}
	add(SectionTags, p.Tags)
	add(SectionBoundary, pfmLEBytes(refs))
	if len(p.BuildParams) > 0 {
		add(SectionBuildParams, p.BuildParams)
	}
	if len(p.BuildReport) > 0 {
		add(SectionBuildReport, p.BuildReport)
	}
	if p.BVH != nil {
		add(SectionBVHBounds, pfmLEBytes(bvhBounds))
		add(SectionBVHNodes, pfmLEBytes(p.BVH.Nodes))
		add(SectionBVHItems, pfmLEBytes(p.BVH.Items))
	}

	le := pfmLittleEndian
	tableEnd := pfmHeaderSize + pfmEntrySize*len(secs)
	head := make([]byte, tableEnd)
	copy(head, pfmMagic[:])
	le.PutUint16(head[pfmOffMajor:], VersionMajor)
	le.PutUint16(head[pfmOffMinor:], VersionMinor)
	le.PutUint32(head[pfmOffHeaderSize:], pfmHeaderSize)
	le.PutUint32(head[pfmOffSectionCount:], uint32(len(secs)))
	le.PutUint64(head[pfmOffVertices:], uint64(p.NumVertices()))
	le.PutUint64(head[pfmOffTets:], uint64(p.NumTets()))
	le.PutUint64(head[pfmOffBoundary:], uint64(p.NumBoundary()))
	le.PutUint32(head[pfmOffEncoding:], encoding)
	le.PutUint32(head[pfmOffMapping:], uint32(p.Mapping))
	putF := func(off int, v float64) { le.PutUint64(head[off:], math.Float64bits(v)) }
	putF(pfmOffModulus, p.Modulus)
	putF(pfmOffPressureCap, p.PressureCap)
	putF(pfmOffDissipation, p.Dissipation)
	putF(pfmOffFriction, p.Friction)
	putF(pfmOffLengthUnit, p.LengthUnit)
	for k, v := range pfmBBox(positions) {
		putF(pfmOffBBox+8*k, v)
	}
	copy(head[pfmOffSHA256:], p.SourceSHA256[:])
	off := uint64(tableEnd)
	enc := &pfmEncoded{head: head}
	for i, s := range secs {
		e := head[pfmHeaderSize+pfmEntrySize*i:]
		le.PutUint32(e, uint32(s.id))
		le.PutUint32(e[4:], pfmCRC(s.data))
		le.PutUint64(e[8:], off)
		le.PutUint64(e[16:], uint64(len(s.data)))
		off += uint64(len(s.data)+7) &^ 7
		enc.sections = append(enc.sections, s.data)
	}
	le.PutUint32(head[pfmOffHeaderCRC:], pfmHeaderCRC(head))
	return enc, nil
}

// rounded32 returns p's positions rounded to float32 and its BVH boxes
// (if any) rounded outward to float32, checking that every position fits
// in a float32 and every tet stays positively oriented.
func (p *PFM) rounded32() (positions, bvhBounds []float64, err error) {
	for i, v := range p.Positions {
		if math.Abs(v) > math.MaxFloat32 {
			return nil, nil, pfmInvalid("vertex %d: position %v does not fit in a float32", i/3, v)
		}
	}
	positions = pfmWiden(pfmNarrow(p.Positions))
	q := &PFM{Positions: positions, Tets: p.Tets}
	if err := pfmFirstError(p.NumTets(), pfmChunk, func(lo, hi int) error { return q.checkTets(lo, hi, nil) }); err != nil {
		return nil, nil, fmt.Errorf("rounding positions to float32: %w (write at full precision)", err)
	}
	if p.BVH != nil {
		bvhBounds = make([]float64, len(p.BVH.Bounds))
		for i, v := range p.BVH.Bounds {
			if bvhBounds[i] = pfmRoundOut(v, i%6 >= 3); math.IsInf(bvhBounds[i], 0) {
				return nil, nil, pfmInvalid("BVH node %d: box %v does not fit in float32", i/6, p.BVH.Bounds[i/6*6:i/6*6+6])
			}
		}
	}
	return positions, bvhBounds, nil
}

// pfmBBox returns the bounding box of xyz triples: min x, y, z, max x, y, z.
func pfmBBox(xyz []float64) [6]float64 {
	var b [6]float64
	for i := 0; i+2 < len(xyz); i += 3 {
		for a := range 3 {
			if x := xyz[i+a]; i == 0 || x < b[a] {
				b[a] = x
			}
			if x := xyz[i+a]; i == 0 || x > b[3+a] {
				b[3+a] = x
			}
		}
	}
	return b
}
