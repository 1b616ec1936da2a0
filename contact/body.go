package contact

import (
	"errors"
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Kind says what a Body is.
type Kind uint8

// Body kinds.
const (
	Compliant Kind = iota // tet mesh with a pressure field
	Rigid                 // closed triangle surface
	HalfSpace             // z ≤ 0 of the body frame
)

func (k Kind) String() string {
	switch k {
	case Compliant:
		return "compliant"
	case Rigid:
		return "rigid"
	case HalfSpace:
		return "half-space"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Material holds a body's contact parameters. Modulus is used by
// compliant bodies only; rigid ones are infinitely stiff.
type Material struct {
	Modulus     float64 // E in p0 = E·g(ε), Pa
	Dissipation float64 // Hunt–Crossley d, s/m
	Friction    float64 // Coulomb μ
}

func (m Material) check(k Kind) error {
	if k == Compliant && !(m.Modulus > 0 && !math.IsInf(m.Modulus, 0)) {
		return fmt.Errorf("modulus %g Pa: want finite and > 0", m.Modulus)
	}
	if !(m.Dissipation >= 0 && !math.IsInf(m.Dissipation, 0)) {
		return fmt.Errorf("dissipation %g s/m: want finite and ≥ 0", m.Dissipation)
	}
	if !(m.Friction >= 0 && !math.IsInf(m.Friction, 0)) {
		return fmt.Errorf("friction %g: want finite and ≥ 0", m.Friction)
	}
	return nil
}

// Body is a contact participant in its own frame. It is immutable after
// construction except for Material, which may be changed between
// evaluations; one Body may be used by many Evaluators at once.
type Body struct {
	Material Material

	kind Kind
	pos  []float64 // x, y, z per vertex, body frame
	// elems holds four vertex indices per tet (compliant) or three per
	// triangle (rigid). Elements, and every per-element array, are stored in
	// the order of the tree's leaves, so a leaf's elements are contiguous
	// and the tree's Items are 0, 1, 2, …; id maps them back to the caller's
	// indices.
	elems []int32
	id    []int32
	// field holds, per tet, the linear g(ε) as (∇g, c) with g(x) = ∇g·x + c;
	// the static pressure is Modulus·g.
	field []float64
	boxes []float64 // per element: min xyz, max xyz
	// gRange holds per tet, then gNode per tree node, the least and greatest
	// field value g (compliant bodies): two tets can only hold a point of
	// equal pressure if their pressure ranges meet.
	gRange, gNode []float64
	tree          *bvh.Tree
}

// Kind returns what b is.
func (b *Body) Kind() Kind { return b.kind }

// NumElements returns the number of tets (compliant) or triangles (rigid).
func (b *Body) NumElements() int {
	switch b.kind {
	case Compliant:
		return len(b.elems) / 4
	case Rigid:
		return len(b.elems) / 3
	}
	return 0
}

// leafSize is the leaf size of trees the package builds. Larger leaves
// mean fewer node-pair box tests (each a rotated-box test) and more
// element-pair tests (a plain box test in P's frame, see qCache); 4 was the
// fastest of 1, 2, 4 and 8 on the benchmark spheres.
const leafSize = 4

// NewCompliant returns a compliant body over the tets (four vertex indices
// each, positively oriented) with penetration extent eps at each vertex
// and the linear mapping p0 = E·ε. The positions are kept, not copied,
// and must not change while the body is in use.
func NewCompliant(positions []float64, tets []int32, eps []float64, m Material) (*Body, error) {
	b, err := newCompliant(positions, tets, eps, m, nil)
	if err != nil {
		return nil, fmt.Errorf("contact: compliant body: %w", err)
	}
	return b, nil
}

// newCompliant checks the mesh and builds the per-tet fields from the
// vertex values g of the mapping; tree, if non-nil, is used instead of
// building one (it has already been checked).
func newCompliant(positions []float64, tets []int32, g []float64, m Material, tree *bvh.Tree) (*Body, error) {
	if err := m.check(Compliant); err != nil {
		return nil, err
	}
	nv, err := checkVertices(positions)
	if err != nil {
		return nil, err
	}
	if len(tets)%4 != 0 || len(tets) == 0 {
		return nil, fmt.Errorf("%d tet indices: want a positive multiple of 4", len(tets))
	}
	if len(g) != nv {
		return nil, fmt.Errorf("%d field values for %d vertices", len(g), nv)
	}
	for i, v := range g {
		if !(v >= 0 && !math.IsInf(v, 0)) {
			return nil, fmt.Errorf("vertex %d: field value %g: want finite and ≥ 0", i, v)
		}
	}
	if err := checkIndices(tets, nv, "tet", 4); err != nil {
		return nil, err
	}
	nt := len(tets) / 4
	b := &Body{Material: m, kind: Compliant, pos: positions, elems: tets,
		field: make([]float64, 4*nt), boxes: make([]float64, 6*nt), gRange: make([]float64, 2*nt)}
	for t := range nt {
		var v [4]geom.Vec
		for k := range 4 {
			v[k] = geom.At(positions, tets[4*t+k])
		}
		if geom.Orient3D(v[0], v[1], v[2], v[3]) <= 0 {
			return nil, fmt.Errorf("tet %d: not positively oriented (volume ≤ 0)", t)
		}
		gv := [4]float64{g[tets[4*t]], g[tets[4*t+1]], g[tets[4*t+2]], g[tets[4*t+3]]}
		f := tetField(v, gv)
		copy(b.field[4*t:4*t+4], f[:])
		b.gRange[2*t], b.gRange[2*t+1] = min(gv[0], gv[1], gv[2], gv[3]), max(gv[0], gv[1], gv[2], gv[3])
		elemBox(b.boxes[6*t:6*t+6], v[:])
	}
	b.setTree(tree)
	return b, nil
}

// tetField returns (∇f, c) of the linear f on tet v with vertex values f:
// f(x) = ∇f·x + c.
func tetField(v [4]geom.Vec, f [4]float64) [4]float64 {
	e1, e2, e3 := geom.Sub(v[1], v[0]), geom.Sub(v[2], v[0]), geom.Sub(v[3], v[0])
	c23, c31, c12 := geom.Cross(e2, e3), geom.Cross(e3, e1), geom.Cross(e1, e2)
	det := geom.Dot(e1, c23)
	var grad geom.Vec
	for k := range 3 {
		grad[k] = ((f[1]-f[0])*c23[k] + (f[2]-f[0])*c31[k] + (f[3]-f[0])*c12[k]) / det
	}
	return [4]float64{grad[0], grad[1], grad[2], f[0] - geom.Dot(grad, v[0])}
}

// NewRigid returns a rigid body bounded by a closed triangle surface: every
// edge is shared by exactly two triangles that traverse it in opposite
// directions, triangles are counterclockwise seen from outside and the
// enclosed volume is positive. The positions are kept, not copied, and
// must not change while the body is in use.
func NewRigid(positions []float64, triangles []int32, m Material) (*Body, error) {
	b, err := newRigid(positions, triangles, m)
	if err != nil {
		return nil, fmt.Errorf("contact: rigid body: %w", err)
	}
	return b, nil
}

func newRigid(positions []float64, tris []int32, m Material) (*Body, error) {
	if err := m.check(Rigid); err != nil {
		return nil, err
	}
	nv, err := checkVertices(positions)
	if err != nil {
		return nil, err
	}
	if len(tris)%3 != 0 || len(tris) == 0 {
		return nil, fmt.Errorf("%d triangle indices: want a positive multiple of 3", len(tris))
	}
	if err := checkIndices(tris, nv, "triangle", 3); err != nil {
		return nil, err
	}
	if err := checkClosed(positions, tris); err != nil {
		return nil, err
	}
	n := len(tris) / 3
	b := &Body{Material: m, kind: Rigid, pos: positions, elems: tris, boxes: make([]float64, 6*n)}
	for t := range n {
		elemBox(b.boxes[6*t:6*t+6], []geom.Vec{
			geom.At(positions, tris[3*t]), geom.At(positions, tris[3*t+1]), geom.At(positions, tris[3*t+2])})
	}
	b.setTree(nil)
	return b, nil
}

// checkClosed checks that every directed edge occurs once and its reverse
// once, and that the enclosed volume is positive.
func checkClosed(positions []float64, tris []int32) error {
	edges := make(map[[2]int32]int32, len(tris))
	var vol float64
	for t := 0; t < len(tris); t += 3 {
		for k := range 3 {
			e := [2]int32{tris[t+k], tris[t+(k+1)%3]}
			if e[0] == e[1] {
				return fmt.Errorf("triangle %d: repeated vertex %d", t/3, e[0])
			}
			if prev, dup := edges[e]; dup {
				return fmt.Errorf("triangles %d and %d both run edge %d→%d: surface not consistently oriented or not manifold", prev, t/3, e[0], e[1])
			}
			edges[e] = int32(t / 3)
		}
		vol += geom.TetVolume(geom.Vec{}, geom.At(positions, tris[t]), geom.At(positions, tris[t+1]), geom.At(positions, tris[t+2]))
	}
	for e, t := range edges {
		if _, ok := edges[[2]int32{e[1], e[0]}]; !ok {
			return fmt.Errorf("edge %d→%d of triangle %d has no opposite: surface not closed", e[0], e[1], t)
		}
	}
	if !(vol > 0) {
		return fmt.Errorf("enclosed volume %g: want > 0 (triangles must be counterclockwise seen from outside)", vol)
	}
	return nil
}

// NewHalfSpace returns the rigid half-space z ≤ 0 of its body frame; its
// outward normal is +z.
func NewHalfSpace(m Material) (*Body, error) {
	if err := m.check(HalfSpace); err != nil {
		return nil, fmt.Errorf("contact: half-space: %w", err)
	}
	return &Body{Material: m, kind: HalfSpace}, nil
}

func checkVertices(positions []float64) (int, error) {
	if len(positions)%3 != 0 || len(positions) == 0 {
		return 0, fmt.Errorf("%d coordinates: want a positive multiple of 3", len(positions))
	}
	for i, x := range positions {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("vertex %d: coordinate %g is not finite", i/3, x)
		}
	}
	if len(positions)/3 > math.MaxInt32 {
		return 0, errors.New("too many vertices for int32 indices")
	}
	return len(positions) / 3, nil
}

func checkIndices(idx []int32, nv int, what string, per int) error {
	for i, v := range idx {
		if v < 0 || int(v) >= nv {
			return fmt.Errorf("%s %d: vertex index %d out of range [0, %d)", what, i/per, v, nv)
		}
	}
	return nil
}

// elemBox writes the bounding box of pts to box.
func elemBox(box []float64, pts []geom.Vec) {
	for k := range 3 {
		box[k], box[3+k] = pts[0][k], pts[0][k]
		for _, p := range pts[1:] {
			box[k], box[3+k] = min(box[k], p[k]), max(box[3+k], p[k])
		}
	}
}

// setTree adopts tree, or builds one over the element boxes if it is nil:
// BuildMorton, which builds several times faster than bvh.Build and whose
// spatial splits made the benchmark queries about 5% faster. It then
// renumbers the elements in leaf order (see Body.elems).
func (b *Body) setTree(tree *bvh.Tree) {
	if tree == nil {
		tree = bvh.BuildMorton(b.boxes, leafSize)
	}
	n := len(tree.Items)
	per := len(b.elems) / n
	b.id = tree.Items
	elems, boxes := make([]int32, len(b.elems)), make([]float64, len(b.boxes))
	identity := make([]int32, n)
	for i, t := range b.id {
		identity[i] = int32(i)
		copy(elems[per*i:per*i+per], b.elems[per*int(t):])
		copy(boxes[6*i:6*i+6], b.boxes[6*t:])
	}
	b.elems, b.boxes = elems, boxes
	b.tree = &bvh.Tree{Bounds: tree.Bounds, Nodes: tree.Nodes, Items: identity}
	if b.gRange == nil {
		return
	}
	field, gRange := make([]float64, len(b.field)), make([]float64, len(b.gRange))
	for i, t := range b.id {
		copy(field[4*i:4*i+4], b.field[4*t:])
		copy(gRange[2*i:2*i+2], b.gRange[2*t:])
	}
	b.field, b.gRange = field, gRange
	// Children follow their parent in the depth-first layout, so a reverse
	// sweep sees both children before the parent.
	nn := tree.NumNodes()
	b.gNode = make([]float64, 2*nn)
	for i := nn - 1; i >= 0; i-- {
		first, count := tree.Nodes[2*i], tree.Nodes[2*i+1]
		lo, hi := math.Inf(1), math.Inf(-1)
		if count > 0 {
			for it := first; it < first+count; it++ {
				lo, hi = min(lo, b.gRange[2*it]), max(hi, b.gRange[2*it+1])
			}
		} else {
			l, r := 2*(i+1), 2*int(first)
			lo, hi = min(b.gNode[l], b.gNode[r]), max(b.gNode[l+1], b.gNode[r+1])
		}
		b.gNode[2*i], b.gNode[2*i+1] = lo, hi
	}
}
