package stuffing

import (
	"errors"
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// defaultFeatureAngle is the crease angle when Options.FeatureAngle is 0.
const defaultFeatureAngle = 40

// Build fills the solid bounded by s — the points where the generalized
// winding number of s exceeds 1/2 — with tetrahedra. s may be open,
// overlapping, self-intersecting or inconsistently oriented. The result
// passes tetmesh.Validate and its boundary keeps within opt.Tolerance of
// the parts of s that bound the solid, as the Report certifies.
func Build(s *format.Surface, opt Options) (*tetmesh.Mesh, *Report, error) {
	if err := checkSurface(s); err != nil {
		return nil, nil, err
	}
	// Exact weld, drop collapsed, zero-area and duplicate triangles, and
	// orient each patch outward: w counts orientation, so an inside-out
	// shell would otherwise bound nothing.
	clean, crep := format.Clean(s, format.CleanOptions{})
	pos, tris := clean.Positions, clean.Triangles
	if len(tris) == 0 {
		return nil, nil, errors.New("stuffing: surface has no triangle with three distinct vertices")
	}
	feature := opt.FeatureAngle
	if feature == 0 {
		feature = defaultFeatureAngle
	}
	in := newInput(pos, tris, feature)
	if !(in.diag > 0) {
		return nil, nil, errors.New("stuffing: surface has zero extent")
	}
	b := &builder{in: in, opt: opt, rep: &Report{Tolerance: opt.Tolerance}}
	if crep.Changed() {
		b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("input cleaned: %d vertices welded, %d triangles dropped (collapsed, zero-area or duplicate), %d flipped and %d patches reversed to face outward",
			crep.MergedExact, crep.DroppedCollapsed+crep.DroppedZeroArea+crep.DroppedDuplicate, crep.FlippedTriangles, crep.ReversedPatches))
	}
	if b.rep.Tolerance <= 0 {
		b.rep.Tolerance = 1e-3 * in.diag
	}
	return b.run()
}

// checkSurface rejects input no solid can come from.
func checkSurface(s *format.Surface) error {
	switch {
	case s == nil:
		return errors.New("stuffing: nil surface")
	case len(s.Positions)%3 != 0:
		return fmt.Errorf("stuffing: %d coordinates is not a whole number of vertices", len(s.Positions))
	case len(s.Triangles)%3 != 0:
		return fmt.Errorf("stuffing: %d triangle indices is not a whole number of triangles", len(s.Triangles))
	case len(s.Triangles) == 0:
		return errors.New("stuffing: surface has no triangles")
	}
	for i, x := range s.Positions {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("stuffing: vertex %d has a non-finite coordinate %v", i/3, x)
		}
	}
	nv := int32(len(s.Positions) / 3)
	for i, v := range s.Triangles {
		if v < 0 || v >= nv {
			return fmt.Errorf("stuffing: triangle %d uses vertex %d, outside [0, %d)", i/3, v, nv)
		}
	}
	return nil
}

// builder runs the rounds of one Build.
type builder struct {
	in  *input
	opt Options
	rep *Report
}

func (b *builder) progress(stage string, done float64) {
	if b.opt.Progress != nil {
		b.opt.Progress(stage, done)
	}
}

// rootCube returns the octree root: the bounding box's largest extent
// over 0.7, so a margin of 15% lies between the input and the root faces
// (wider than a level-3 cell, the coarsest allowed), shifted by odd
// fractions so that lattice planes rarely meet axis-aligned input faces.
func (b *builder) rootCube() (geom.Vec, float64) {
	ext := max(b.in.hi[0]-b.in.lo[0], b.in.hi[1]-b.in.lo[1], b.in.hi[2]-b.in.lo[2])
	size := ext / 0.7
	var origin geom.Vec
	shift := geom.Vec{0.01234567, 0.01789012, 0.00934567}
	for k := range 3 {
		origin[k] = (b.in.lo[k]+b.in.hi[k])/2 - size/2 - shift[k]*size
	}
	return origin, size
}

func (b *builder) run() (*tetmesh.Mesh, *Report, error) {
	in := b.in
	origin, size := b.rootCube()
	z := &sizing{in: in, opt: &b.opt, tol: b.rep.Tolerance, surfCap: in.diag / 20, floor: b.rep.Tolerance,
		forced: newKeyMap(0), minLevel: 3}
	b.progress("octree", 0)
	o := buildOctree(origin, size, in, z.split)
	o.balance(func(level int, i, j, k uint32) bool {
		c, h := o.cell(level, i, j, k)
		return in.meetsBox(c, h)
	})
	b.progress("lattice", 0.1)
	L := newLattice(o)
	b.progress(fmt.Sprintf("winding (%d leaves, %d lattice tets)", len(o.leaves), len(L.tets)/4), 0.2)
	w, side := classify(L, in)
	b.progress("cuts", 0.4)
	cuts := findCuts(L, in, w, side)
	b.progress("stuffing", 0.6)
	d := b.stuffValid(L, side, cuts)
	m, _ := d.compact()
	b.tagBoundary(m)
	b.progress("voids", 0.7)
	b.rep.Steiner += breakVoids(m)
	b.progress("quality", 0.8)
	improve(m, newIncidence(m), 15, 4)
	b.tagCore(m)
	b.rep.Rounds, b.rep.Leaves = 1, len(o.leaves)
	b.summarise(m)
	b.progress("done", 1)
	return m, b.rep, nil
}

// meetsBox reports whether any input triangle meets the cube (centre,
// half), padded as in trianglesIn.
func (in *input) meetsBox(c geom.Vec, half float64) bool {
	h := half * 1.02
	box := [6]float64{c[0] - h, c[1] - h, c[2] - h, c[0] + h, c[1] + h, c[2] + h}
	hit := false
	in.search.Tree.Query(box, func(t int32) bool {
		p, q, r := in.corners(t)
		hit = triBoxOverlap(p, q, r, c, h)
		return !hit
	})
	return hit
}

// stuffValid stuffs the lattice, then refuses the warps that invert a tet
// or pinch the boundary and stuffs again, until neither happens. Without
// warps every piece lies inside its lattice tet with cuts strictly inside
// edges, and the boundary is a level set of a piecewise linear function,
// so the loop ends.
func (b *builder) stuffValid(L *lattice, side []int8, cuts *cutSet) *draft {
	keep := make([]bool, len(L.keys))
	for {
		warp := warpVertices(L, cuts, keep)
		d := stuff(L, b.in, side, cuts, warp)
		changed := false
		refuse := func(v int32) {
			if int(v) < d.nL && warp[v] >= 0 && !keep[v] {
				keep[v], changed = true, true
				b.rep.Unwarped++
			}
		}
		d.badTets = d.inverted()
		for _, t := range d.badTets {
			for _, v := range d.tets[4*t : 4*t+4] {
				refuse(v)
			}
		}
		tris, _ := boundaryOf(d.tets, len(d.pos)/3)
		for _, v := range pinchedVertices(tris, len(d.pos)/3) {
			refuse(v)
		}
		if !changed {
			return d
		}
	}
}

// inverted returns the tets the exact predicate finds not positive.
func (d *draft) inverted() []int32 {
	nt := len(d.tets) / 4
	flag := make([]bool, nt)
	parallelFor(nt, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			q := d.tets[4*t : 4*t+4]
			flag[t] = geom.Orient3D(geom.At(d.pos, q[0]), geom.At(d.pos, q[1]), geom.At(d.pos, q[2]), geom.At(d.pos, q[3])) <= 0
		}
	})
	var bad []int32
	for t, f := range flag {
		if f {
			bad = append(bad, int32(t))
		}
	}
	return bad
}

// meshInfo is what the later stages know about each vertex of the mesh.
type meshInfo struct {
	onTri []int32 // input triangle of a surface vertex, onLevelSet, or notOnSurface
}

// compact drops unused draft vertices, keeping the order of the rest.
func (d *draft) compact() (*tetmesh.Mesh, *meshInfo) {
	nv := len(d.pos) / 3
	id := make([]int32, nv)
	for i := range id {
		id[i] = -1
	}
	for _, v := range d.tets {
		id[v] = 0
	}
	m := &tetmesh.Mesh{}
	info := &meshInfo{}
	n := int32(0)
	for v := range id {
		if id[v] < 0 {
			continue
		}
		id[v] = n
		n++
		m.Positions = append(m.Positions, d.pos[3*v], d.pos[3*v+1], d.pos[3*v+2])
		info.onTri = append(info.onTri, d.onTri[v])
	}
	m.Tets = make([]int32, len(d.tets))
	for i, v := range d.tets {
		m.Tets[i] = id[v]
	}
	return m, info
}

// tagBoundary tags the vertices of boundary faces Boundary, the others
// Interior.
func (b *builder) tagBoundary(m *tetmesh.Mesh) {
	tris, _ := boundaryOf(m.Tets, m.NumVertices())
	m.Tags = make([]tetmesh.Tag, m.NumVertices())
	for _, v := range tris {
		m.Tags[v] = tetmesh.Boundary
	}
	b.rep.BoundaryFaces = len(tris) / 3
}

// tagCore tags Core the non-boundary vertices where Options.Core holds.
func (b *builder) tagCore(m *tetmesh.Mesh) {
	if b.opt.Core == nil {
		return
	}
	for v := range m.Tags {
		if m.Tags[v] != tetmesh.Boundary && b.opt.Core(m.Vertex(int32(v))) {
			m.Tags[v] = tetmesh.Core
		}
	}
}

func (b *builder) summarise(m *tetmesh.Mesh) {
	q := tetmesh.MeasureQuality(m)
	b.rep.MinDihedral, b.rep.MaxDihedral = q.MinDihedral, q.MaxDihedral
	b.rep.Vertices, b.rep.Tets = m.NumVertices(), m.NumTets()
	b.rep.Volume = m.Volume()
	b.rep.FeatureEdges, b.rep.Corners = len(b.in.feat.edges)/2, len(b.in.feat.corners)
}
