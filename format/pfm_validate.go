package format

import (
	"encoding/json"
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// pfmChunk is the number of tets or nodes one goroutine checks at a time.
const pfmChunk = 1 << 15

// Validate returns nil if p can be stored in a .pfm file, or an error
// wrapping ErrPFMInvalid that names the first problem:
//   - the header: E positive; a known mapping, with PressureCap 0 for
//     Linear and above E for Log; dissipation, friction and length unit
//     not negative; all finite;
//   - the arrays: lengths agreeing with each other, at least one tet,
//     every real finite, ε in [0, 1], tags 0, 1 or 2, indices in range,
//     at most 2³¹−1 vertices and 2²⁸ tets;
//   - every tet positively oriented, decided exactly (geom.Orient3D);
//   - every boundary triangle an outward face of exactly one tet;
//   - the build JSON well formed;
//   - the BVH, if any, a tree of depth below bvh.MaxDepth over every tet
//     once, each box containing its children's or its tets' vertices.
//
// BBox, Major and Minor are not checked: WritePFM sets them.
func (p *PFM) Validate() error {
	if err := p.validate(); err != nil {
		return err
	}
	_, err := pfmBoundaryRefs(p)
	return err
}

// validate is Validate without the boundary triangles' faces, which the
// readers get by construction.
func (p *PFM) validate() error {
	if err := p.Header.validate(); err != nil {
		return err
	}
	nv, nt := len(p.Positions)/3, len(p.Tets)/4
	switch {
	case len(p.Positions)%3 != 0:
		return pfmInvalid("%d position values: not a multiple of 3", len(p.Positions))
	case len(p.Tets)%4 != 0:
		return pfmInvalid("%d tet indices: not a multiple of 4", len(p.Tets))
	case len(p.Boundary)%3 != 0:
		return pfmInvalid("%d boundary indices: not a multiple of 3", len(p.Boundary))
	case nt == 0:
		return pfmInvalid("no tets")
	case nv > pfmMaxVertices:
		return pfmInvalid("%d vertices: more than the format's %d", nv, pfmMaxVertices)
	case nt > pfmMaxTets:
		return pfmInvalid("%d tets: more than the format's %d", nt, pfmMaxTets)
	case len(p.Epsilon) != nv:
		return pfmInvalid("%d ε values for %d vertices", len(p.Epsilon), nv)
	case len(p.Gradient) != 3*nv:
		return pfmInvalid("%d gradient values for %d vertices", len(p.Gradient), nv)
	case len(p.Tags) != nv:
		return pfmInvalid("%d tags for %d vertices", len(p.Tags), nv)
	}
	if i := pfmFirstNonFinite(p.Positions); i >= 0 {
		return pfmInvalid("vertex %d: position %v is not finite", i/3, p.Positions[i])
	}
	for i, e := range p.Epsilon {
		if !(e >= 0 && e <= 1) {
			return pfmInvalid("vertex %d: ε = %v is outside [0, 1]", i, e)
		}
	}
	if i := pfmFirstNonFinite(p.Gradient); i >= 0 {
		return pfmInvalid("vertex %d: gradient %v is not finite", i/3, p.Gradient[i])
	}
	for i, t := range p.Tags {
		if t > 2 {
			return pfmInvalid("vertex %d: tag %d is not 0 (interior), 1 (boundary) or 2 (core)", i, t)
		}
	}
	var leafOf []int32
	if p.BVH != nil {
		var err error
		if leafOf, err = p.BVH.structure(nt); err != nil {
			return err
		}
	}
	if err := pfmFirstError(nt, pfmChunk, func(lo, hi int) error { return p.checkTets(lo, hi, leafOf) }); err != nil {
		return err
	}
	for i, v := range p.Boundary {
		if v < 0 || int(v) >= nv {
			return pfmInvalid("boundary triangle %d: vertex index %d out of range [0, %d)", i/3, v, nv)
		}
	}
	for _, js := range []struct {
		name string
		b    json.RawMessage
	}{{"build parameters", p.BuildParams}, {"build report", p.BuildReport}} {
		if len(js.b) > 0 && !json.Valid(js.b) {
			return pfmInvalid("%s: not valid JSON", js.name)
		}
	}
	return nil
}

func (h *Header) validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !finite(h.Modulus) || h.Modulus <= 0:
		return pfmInvalid("modulus E = %v Pa: must be positive and finite", h.Modulus)
	case h.Mapping == Linear && h.PressureCap != 0:
		return pfmInvalid("pressure cap %v Pa with the linear mapping: must be 0", h.PressureCap)
	case h.Mapping == Log && !(finite(h.PressureCap) && h.PressureCap > h.Modulus):
		return pfmInvalid("pressure cap %v Pa with the log mapping: must be finite and above E = %v Pa", h.PressureCap, h.Modulus)
	case h.Mapping != Linear && h.Mapping != Log:
		return pfmInvalid("unknown pressure mapping %d", h.Mapping)
	case !finite(h.Dissipation) || h.Dissipation < 0:
		return pfmInvalid("dissipation %v s/m: must be finite and not negative", h.Dissipation)
	case !finite(h.Friction) || h.Friction < 0:
		return pfmInvalid("friction %v: must be finite and not negative", h.Friction)
	case !finite(h.LengthUnit) || h.LengthUnit < 0:
		return pfmInvalid("length unit %v m: must be finite and not negative", h.LengthUnit)
	}
	return nil
}

// checkTets checks the indices and orientation of tets [lo, hi) and, if
// leafOf is not nil, that each lies in its BVH leaf's box.
func (p *PFM) checkTets(lo, hi int, leafOf []int32) error {
	nv := int32(len(p.Positions) / 3)
	for t := lo; t < hi; t++ {
		tet := p.Tets[4*t : 4*t+4]
		for _, v := range tet {
			if v < 0 || v >= nv {
				return pfmInvalid("tet %d: vertex index %d out of range [0, %d)", t, v, nv)
			}
		}
		if geom.Orient3DAt(p.Positions, tet[0], tet[1], tet[2], tet[3]) <= 0 {
			return pfmInvalid("tet %d (vertices %d %d %d %d): volume is not positive", t, tet[0], tet[1], tet[2], tet[3])
		}
		if leafOf == nil {
			continue
		}
		leaf := leafOf[t]
		box := p.BVH.Bounds[6*leaf : 6*leaf+6]
		for _, v := range tet {
			q := p.Positions[3*v : 3*v+3]
			if q[0] < box[0] || q[1] < box[1] || q[2] < box[2] || q[0] > box[3] || q[1] > box[4] || q[2] > box[5] {
				return pfmInvalid("BVH leaf %d: box does not contain tet %d's vertex %d", leaf, t, v)
			}
		}
	}
	return nil
}

// pfmFirstNonFinite returns the index of the first NaN or ±Inf in s, or −1.
func pfmFirstNonFinite(s []float64) int {
	for i, v := range s {
		if v-v != 0 { // NaN − NaN and Inf − Inf are NaN
			return i
		}
	}
	return -1
}
