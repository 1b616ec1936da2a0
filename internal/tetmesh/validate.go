package tetmesh

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// A Problem is one kind of defect Validate found, with how often it occurs
// and the first example.
type Problem struct {
	Kind    string
	Count   int
	Example string
}

// ValidationError lists every kind of defect found in a mesh.
type ValidationError struct{ Problems []Problem }

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid tet mesh:")
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %d× %s (first: %s)", p.Count, p.Kind, p.Example)
	}
	return b.String()
}

type problems struct {
	list  []Problem
	index map[string]int
}

func (p *problems) add(kind string, format string, args ...any) {
	if p.index == nil {
		p.index = map[string]int{}
	}
	if i, ok := p.index[kind]; ok {
		p.list[i].Count++
		return
	}
	p.index[kind] = len(p.list)
	p.list = append(p.list, Problem{Kind: kind, Count: 1, Example: fmt.Sprintf(format, args...)})
}

// Validate checks the invariants every mesh pfmesh writes must satisfy:
//   - arrays have consistent lengths, indices are in range, coordinates
//     are finite and every vertex is used by some tet;
//   - every tet is positively oriented by the exact predicate;
//   - every face is shared by at most two tets, and no two vertices sit at
//     the same point (which would hide an internal crack);
//   - the boundary (faces of exactly one tet) is a closed, consistently
//     oriented 2-manifold: each boundary edge is used once in each
//     direction and the boundary faces around each vertex form one cycle;
//   - tags agree with the boundary: a vertex is tagged Boundary exactly
//     when it lies on a boundary face;
//   - there are no zero-pressure voids: no tet whose four vertices are all
//     Boundary, no interior face whose three vertices are, and no interior
//     edge joining two Boundary vertices (ε is 0 at boundary vertices, so
//     any of these is a region of zero pressure inside the body).
//
// It returns nil or a *ValidationError naming each kind of defect.
func Validate(m *Mesh) error {
	var p problems
	nv, nt := m.NumVertices(), m.NumTets()
	if len(m.Positions)%3 != 0 || len(m.Tets)%4 != 0 || len(m.Tags) != nv {
		p.add("array lengths", "%d coordinates, %d tet indices, %d tags for %d vertices", len(m.Positions), len(m.Tets), len(m.Tags), nv)
		return &ValidationError{p.list}
	}
	if nt == 0 {
		p.add("empty mesh", "no tets")
		return &ValidationError{p.list}
	}
	for i, x := range m.Positions {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			p.add("non-finite coordinate", "vertex %d", i/3)
		}
	}
	used := make([]bool, nv)
	for i, v := range m.Tets {
		if v < 0 || int(v) >= nv {
			p.add("index out of range", "tet %d vertex %d", i/4, v)
			continue
		}
		used[v] = true
	}
	if len(p.list) > 0 {
		return &ValidationError{p.list}
	}
	for v, u := range used {
		if !u {
			p.add("unused vertex", "vertex %d", v)
		}
	}
	for t := 0; t < nt; t++ {
		q := m.Tets[4*t : 4*t+4]
		if geom.Orient3D(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])) <= 0 {
			p.add("tet not positively oriented", "tet %d %v", t, q)
		}
	}
	checkDuplicates(m, &p)

	nbr, ok := Neighbors(m.Tets, nv)
	if !ok {
		p.add("face shared by more than two tets", "see Neighbors")
	}
	tris := BoundaryFaces(m.Tets, nbr)
	onBoundary := make([]bool, nv)
	for _, v := range tris {
		onBoundary[v] = true
	}
	checkBoundaryManifold(tris, nv, &p)

	for v, tag := range m.Tags {
		switch {
		case tag > Core:
			p.add("unknown tag", "vertex %d tag %d", v, tag)
		case onBoundary[v] && tag != Boundary:
			p.add("boundary vertex not tagged Boundary", "vertex %d tag %d", v, tag)
		case !onBoundary[v] && tag == Boundary:
			p.add("interior vertex tagged Boundary", "vertex %d", v)
		}
	}
	checkVoids(m, nbr, tris, &p)
	if len(p.list) == 0 {
		return nil
	}
	return &ValidationError{p.list}
}

func checkDuplicates(m *Mesh, p *problems) {
	order := make([]int32, m.NumVertices())
	for i := range order {
		order[i] = int32(i)
	}
	cmpV := func(a, b int32) int {
		va, vb := m.Vertex(a), m.Vertex(b)
		return cmp.Or(cmp.Compare(va[0], vb[0]), cmp.Compare(va[1], vb[1]), cmp.Compare(va[2], vb[2]))
	}
	slices.SortFunc(order, cmpV)
	for i := 1; i < len(order); i++ {
		if cmpV(order[i-1], order[i]) == 0 {
			p.add("duplicate vertex (crack)", "vertices %d and %d at %v", order[i-1], order[i], m.Vertex(order[i]))
		}
	}
}

type dirEdge struct{ a, b int32 }

func checkBoundaryManifold(tris []int32, nv int, p *problems) {
	if len(tris) == 0 {
		p.add("no boundary", "every face is shared")
		return
	}
	count := make(map[dirEdge]int, len(tris))
	for i := 0; i < len(tris); i += 3 {
		for k := 0; k < 3; k++ {
			count[dirEdge{tris[i+k], tris[i+(k+1)%3]}]++
		}
	}
	for e, n := range count {
		if n > 1 {
			p.add("boundary edge used twice in one direction", "edge %d→%d", e.a, e.b)
		}
		if count[dirEdge{e.b, e.a}] == 0 {
			p.add("open boundary edge", "edge %d→%d", e.a, e.b)
		}
	}
	// Around each vertex the boundary triangles must form a single cycle:
	// follow next-edge links from one triangle and count those visited.
	next := make(map[dirEdge]int32, len(tris)) // (v, a) → b for triangle v,a,b
	nfan := make([]int, nv)
	for i := 0; i < len(tris); i += 3 {
		for k := 0; k < 3; k++ {
			v, a, b := tris[i+k], tris[i+(k+1)%3], tris[i+(k+2)%3]
			next[dirEdge{v, a}] = b
			nfan[v]++
		}
	}
	seen := make([]bool, nv)
	for i := 0; i < len(tris); i += 3 {
		for k := 0; k < 3; k++ {
			v := tris[i+k]
			if seen[v] {
				continue
			}
			seen[v] = true
			start := tris[i+(k+1)%3]
			a, steps := start, 0
			for steps <= nfan[v] {
				b, ok := next[dirEdge{v, a}]
				if !ok {
					break
				}
				steps++
				a = b
				if a == start {
					break
				}
			}
			if a != start || steps != nfan[v] {
				p.add("non-manifold boundary vertex", "vertex %d", v)
			}
		}
	}
}

func checkVoids(m *Mesh, nbr []int32, tris []int32, p *problems) {
	isB := func(v int32) bool { return m.Tags[v] == Boundary }
	boundaryEdge := make(map[dirEdge]bool, len(tris))
	for i := 0; i < len(tris); i += 3 {
		for k := 0; k < 3; k++ {
			a, b := tris[i+k], tris[i+(k+1)%3]
			boundaryEdge[dirEdge{min(a, b), max(a, b)}] = true
		}
	}
	reported := map[dirEdge]bool{}
	for t := 0; t < m.NumTets(); t++ {
		q := m.Tets[4*t : 4*t+4]
		if isB(q[0]) && isB(q[1]) && isB(q[2]) && isB(q[3]) {
			p.add("zero-pressure tet (all vertices on the boundary)", "tet %d", t)
		}
		for k, f := range TetFaces {
			// Each interior face is seen from both tets; count it once.
			if n := nbr[4*t+k]; n >= 0 && n > int32(t) && isB(q[f[0]]) && isB(q[f[1]]) && isB(q[f[2]]) {
				p.add("zero-pressure interior face", "tets %d and %d", t, n)
			}
		}
		for _, e := range TetEdges {
			a, b := q[e[0]], q[e[1]]
			key := dirEdge{min(a, b), max(a, b)}
			if isB(a) && isB(b) && !boundaryEdge[key] && !reported[key] {
				reported[key] = true
				p.add("zero-pressure interior edge", "edge %d–%d", key.a, key.b)
			}
		}
	}
}
