package format

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"slices"
)

// readPLY parses a Stanford PLY surface of size bytes, in ASCII or binary
// of either byte order: the x, y, z properties of the "vertex" element
// (any numeric type) and the "vertex_indices" (or "vertex_index") list of
// the "face" element, faces with more than three corners split into a
// fan. Other elements and properties are read past and ignored. Counts in
// the header are checked against the size of the file before anything is
// allocated for them.
func readPLY(r io.Reader, size int64) (*Surface, error) {
	p := plyParser{s: newTextScanner(r), size: size}
	err := p.parseHeader()
	if err == nil {
		err = p.parseBody()
	}
	if nv := len(p.pos) / 3; err == nil && len(p.tris) > 0 && int(p.maxIndex) >= nv {
		return nil, &ParseError{Format: "PLY", Offset: -1, Err: errorf(ErrBadIndex,
			"a face refers to vertex %d, but the file has %d vertices", p.maxIndex, nv)}
	}
	if err != nil {
		if p.order != nil && p.inBody {
			return nil, &ParseError{Format: "PLY", Offset: p.offset, Err: err}
		}
		return nil, p.s.lineError("PLY", err)
	}
	return &Surface{Positions: p.pos, Triangles: p.tris}, nil
}

type plyType uint8

const (
	plyNone plyType = iota
	plyInt8
	plyUint8
	plyInt16
	plyUint16
	plyInt32
	plyUint32
	plyFloat32
	plyFloat64
)

var plyTypes = map[string]plyType{
	"char": plyInt8, "int8": plyInt8, "uchar": plyUint8, "uint8": plyUint8,
	"short": plyInt16, "int16": plyInt16, "ushort": plyUint16, "uint16": plyUint16,
	"int": plyInt32, "int32": plyInt32, "uint": plyUint32, "uint32": plyUint32,
	"float": plyFloat32, "float32": plyFloat32, "double": plyFloat64, "float64": plyFloat64,
}

// size returns the number of bytes of a binary value of type t.
func (t plyType) size() int {
	return [...]int{0, 1, 1, 2, 2, 4, 4, 4, 8}[t]
}

func (t plyType) isInt() bool { return t >= plyInt8 && t <= plyUint32 }

// decode returns the binary value of type t at the start of b; every
// PLY type is exact in float64.
func (t plyType) decode(b []byte, order binary.ByteOrder) float64 {
	switch t {
	case plyInt8:
		return float64(int8(b[0]))
	case plyUint8:
		return float64(b[0])
	case plyInt16:
		return float64(int16(order.Uint16(b)))
	case plyUint16:
		return float64(order.Uint16(b))
	case plyInt32:
		return float64(int32(order.Uint32(b)))
	case plyUint32:
		return float64(order.Uint32(b))
	case plyFloat32:
		return float64(math.Float32frombits(order.Uint32(b)))
	default:
		return math.Float64frombits(order.Uint64(b))
	}
}

type plyProperty struct {
	name  string
	typ   plyType // the value type, or the item type of a list
	count plyType // the list's count type; plyNone for a scalar
}

type plyElement struct {
	name  string
	count int64
	props []plyProperty
}

// minBytes returns the fewest bytes one record can take: binary sizes, or
// two characters per value in ASCII.
func (e *plyElement) minBytes(ascii bool) int64 {
	var n int64
	for _, p := range e.props {
		switch {
		case ascii:
			n += 2
		case p.count != plyNone:
			n += int64(p.count.size())
		default:
			n += int64(p.typ.size())
		}
	}
	return n
}

type plyParser struct {
	s        *textScanner
	size     int64
	order    binary.ByteOrder // nil for ASCII
	elements []plyElement
	inBody   bool
	offset   int64 // bytes consumed, for binary error offsets
	buf      [8]byte
	corners  []int32
	maxIndex int32 // largest face index, checked at the end: faces may precede vertices
	pos      []float64
	tris     []int32
}

func (p *plyParser) parseHeader() error {
	if ok, err := p.s.nextLine(); err != nil || !ok || string(bytes.TrimSpace(p.s.rest)) != "ply" {
		return errorf(ErrSyntax, "missing the \"ply\" magic line")
	}
	var records int64 // the fewest bytes the body can take
	for {
		ok, err := p.s.nextLine()
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrTruncated, "file ends inside the header (no end_header)")
		}
		switch key := string(p.s.field()); key {
		case "format":
			switch string(p.s.field()) {
			case "ascii":
				p.order = nil
			case "binary_little_endian":
				p.order = binary.LittleEndian
			case "binary_big_endian":
				p.order = binary.BigEndian
			default:
				return errorf(ErrSyntax, "unknown PLY format")
			}
		case "element":
			name := string(p.s.field())
			n, err := parseInt(p.s.field())
			if err != nil {
				return err
			}
			if n < 0 || n > p.size {
				return errorf(ErrTruncated, "element %q count %d: more than a %d-byte file can hold", name, n, p.size)
			}
			p.elements = append(p.elements, plyElement{name: name, count: n})
		case "property":
			if len(p.elements) == 0 {
				return errorf(ErrSyntax, "property before any element")
			}
			prop, err := p.property()
			if err != nil {
				return err
			}
			e := &p.elements[len(p.elements)-1]
			e.props = append(e.props, prop)
		case "end_header":
			for i := range p.elements {
				e := &p.elements[i]
				records += e.count * e.minBytes(p.order == nil)
				if records > p.size {
					return errorf(ErrTruncated, "header declares more %s records than a %d-byte file can hold", e.name, p.size)
				}
			}
			return nil
		case "comment", "obj_info", "":
		default:
			return errorf(ErrSyntax, "unknown header keyword %q", clip([]byte(key)))
		}
	}
}

func (p *plyParser) property() (plyProperty, error) {
	f := p.s.field()
	var prop plyProperty
	if string(f) == "list" {
		prop.count = plyTypes[string(p.s.field())]
		if !prop.count.isInt() {
			return prop, errorf(ErrSyntax, "list count type must be an integer type")
		}
		f = p.s.field()
	}
	prop.typ = plyTypes[string(f)]
	if prop.typ == plyNone {
		return prop, errorf(ErrSyntax, "unknown property type %q", clip(f))
	}
	prop.name = string(p.s.field())
	return prop, nil
}

// value reads one value of type t.
func (p *plyParser) value(t plyType) (float64, error) {
	if p.order == nil {
		tok, err := p.s.token()
		if err != nil {
			return 0, err
		}
		if tok == nil {
			return 0, errorf(ErrTruncated, "file ends inside the data")
		}
		if t.isInt() {
			n, err := parseInt(tok)
			return float64(n), err
		}
		return parseFloat(tok)
	}
	b := p.buf[:t.size()]
	if _, err := io.ReadFull(p.s.r, b); err != nil {
		return 0, errorf(ErrTruncated, "file ends inside the data")
	}
	p.offset += int64(len(b))
	return t.decode(b, p.order), nil
}

// valueIf reads one value of type t if wanted, else skips past it.
func (p *plyParser) valueIf(t plyType, wanted bool) (float64, error) {
	if wanted {
		return p.value(t)
	}
	return 0, p.skip(t)
}

// skip reads past one value of type t without interpreting it, so an
// ignored property may hold anything, NaN included.
func (p *plyParser) skip(t plyType) error {
	if p.order != nil {
		_, err := p.value(t)
		return err
	}
	tok, err := p.s.token()
	if err == nil && tok == nil {
		err = errorf(ErrTruncated, "file ends inside the data")
	}
	return err
}

func (p *plyParser) parseBody() error {
	p.inBody = true
	p.offset = p.s.consumed
	for ei := range p.elements {
		e := &p.elements[ei]
		vertex, face := e.name == "vertex", e.name == "face"
		xyz := [3]int{-1, -1, -1}
		faceProp := -1
		for i, pr := range e.props {
			switch {
			case vertex && pr.count == plyNone && (pr.name == "x" || pr.name == "y" || pr.name == "z"):
				xyz[pr.name[0]-'x'] = i
			case face && pr.count != plyNone && (pr.name == "vertex_indices" || pr.name == "vertex_index"):
				faceProp = i
			}
		}
		if vertex {
			if xyz[0] < 0 || xyz[1] < 0 || xyz[2] < 0 {
				return errorf(ErrSyntax, "vertex element lacks x, y or z")
			}
			p.pos = make([]float64, 0, 3*e.count)
		}
		if face && faceProp < 0 {
			return errorf(ErrSyntax, "face element lacks a vertex_indices list")
		}
		for range e.count {
			var c [3]float64
			for i, pr := range e.props {
				if pr.count != plyNone {
					if err := p.list(pr, face && i == faceProp); err != nil {
						return err
					}
					continue
				}
				k := slices.Index(xyz[:], i)
				coord := vertex && k >= 0
				x, err := p.valueIf(pr.typ, coord)
				if err != nil {
					return err
				}
				if !coord {
					continue
				}
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return errorf(ErrNonFinite, "vertex %d: coordinate is NaN or infinite", len(p.pos)/3)
				}
				c[k] = x
			}
			if vertex {
				p.pos = append(p.pos, c[0], c[1], c[2])
			}
		}
	}
	return nil
}

// list reads a list property; a face's vertex list becomes triangles.
func (p *plyParser) list(pr plyProperty, isFace bool) error {
	n, err := p.value(pr.count)
	if err != nil {
		return err
	}
	if n < 0 || n > float64(p.size) {
		return errorf(ErrSyntax, "list length %g out of range", n)
	}
	if isFace && n < 3 {
		return errorf(ErrSyntax, "face with %g corners", n)
	}
	p.corners = p.corners[:0]
	for range int(n) {
		x, err := p.valueIf(pr.typ, isFace)
		if err != nil {
			return err
		}
		if !isFace {
			continue
		}
		if x != math.Trunc(x) || x < 0 || x > math.MaxInt32 {
			return errorf(ErrBadIndex, "vertex index %g out of range", x)
		}
		p.corners = append(p.corners, int32(x))
		p.maxIndex = max(p.maxIndex, int32(x))
	}
	for i := 1; i+1 < len(p.corners); i++ {
		p.tris = append(p.tris, p.corners[0], p.corners[i], p.corners[i+1])
	}
	return nil
}
