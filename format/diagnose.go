package format

import (
	"math"
	"slices"
	"sync"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Report is the diagnosis of a triangle surface: what it is, what is
// wrong with it, and which meshing path it needs. JSON field names are
// stable; `pfmesh check --json` prints this structure.
//
// Topology is that of the surface with exactly equal vertices welded
// (DuplicateVertices counts how many were merged for the analysis), so
// an unwelded file is judged by its geometry, not by how it was indexed.
type Report struct {
	File string `json:"file,omitempty"` // set by Check

	Vertices          int `json:"vertices"`           // as stored
	Triangles         int `json:"triangles"`          // as stored
	DuplicateVertices int `json:"duplicate_vertices"` // at the same position as an earlier vertex
	UnusedVertices    int `json:"unused_vertices"`    // used by no triangle (after welding)

	CollapsedTriangles int `json:"collapsed_triangles"` // two corners at one (welded) vertex
	ZeroAreaTriangles  int `json:"zero_area_triangles"` // three distinct corners, exactly collinear
	DuplicateTriangles int `json:"duplicate_triangles"` // same three vertices as an earlier triangle, in any order

	Edges               int   `json:"edges"`                // distinct edges of non-collapsed triangles
	BoundaryEdges       int   `json:"boundary_edges"`       // edges of exactly one triangle
	BoundaryLoops       []int `json:"boundary_loops"`       // number of edges of each boundary loop, in order of discovery
	NonManifoldEdges    int   `json:"nonmanifold_edges"`    // edges of three or more triangles
	NonManifoldVertices int   `json:"nonmanifold_vertices"` // vertices whose triangles form more than one fan
	InconsistentEdges   int   `json:"inconsistent_edges"`   // edges two triangles run along in the same direction

	// Closed: every edge of every triangle is shared by exactly two
	// triangles. A collapsed triangle has an edge from a vertex to itself
	// that nothing else shares, so it makes the surface not closed.
	Closed bool `json:"closed"`
	// Manifold: no non-manifold edges or vertices.
	Manifold bool `json:"manifold"`
	// ConsistentlyOriented: no directed edge occurs in two triangles —
	// neighbours run along their shared edge in opposite directions, and
	// no edge has more than two triangles.
	ConsistentlyOriented bool `json:"consistently_oriented"`
	// Orientable: every patch of triangles connected through manifold
	// edges can be oriented consistently (Clean does so).
	Orientable bool `json:"orientable"`

	Components int `json:"components"` // edge-connected components
	// Genus of a closed, manifold, orientable surface (the sum over its
	// components); absent otherwise.
	Genus *int `json:"genus,omitempty"`

	Area float64 `json:"area"` // m²
	// Volume is the signed enclosed volume in m³, negative when inside
	// out: the sum over triangles of the tetrahedra they span with the
	// bounding-box centre. It is exact only for a closed surface; for an
	// open one it depends on that reference point.
	Volume float64 `json:"volume"`
	// OrientedVolume is the volume the surface encloses once Clean has
	// oriented it. Check sets it when Clean turns triangles round: where
	// the file's orientation is inconsistent, Volume, summed over
	// triangles facing either way, means nothing (a vessel with half its
	// triangles flipped: 25 m³ as read, 4 802 m³ enclosed); where the
	// surface is inside out, Volume is negative.
	OrientedVolume *float64 `json:"oriented_volume,omitempty"`

	BBoxMin  [3]float64 `json:"bbox_min"` // m
	BBoxMax  [3]float64 `json:"bbox_max"` // m
	Diagonal float64    `json:"diagonal"` // of the bounding box, m

	SelfIntersectingPairs int        `json:"self_intersecting_pairs"`
	SelfIntersections     [][2]int32 `json:"self_intersections"` // the first pairs of triangle indices, at most 20

	Verdict Verdict `json:"verdict"`
}

// Meshing paths a Verdict chooses between.
const (
	PathExact  = "exact"  // constrained Delaunay from the surface as it is (after Clean)
	PathRobust = "robust" // winding-number based, for surfaces the exact path cannot take
	PathRefuse = "refuse" // no meshing path can make a solid of it
)

// Verdict says which meshing path a surface needs and why, in words.
type Verdict struct {
	Path    string   `json:"path"`    // PathExact, PathRobust or PathRefuse
	Reasons []string `json:"reasons"` // why not exact (or refused); notes on what Clean will fix
}

// Diagnose examines s and reports on it; s is not modified. The work is
// linear in the size of s except the self-intersection search, which
// tests only triangle pairs whose bounding boxes overlap (via a BVH).
func Diagnose(s *Surface) *Report {
	r := &Report{Vertices: s.NumVertices(), Triangles: s.NumTriangles()}
	// The triangle BVH needs only geometry: build it meanwhile.
	var tree *bvh.Tree
	built := make(chan struct{})
	go func() {
		tree = triangleTree(s.Positions, s.Triangles)
		close(built)
	}()
	remap, pos := weldExact(s.Positions)
	r.DuplicateVertices = r.Vertices - len(pos)/3
	nv := len(pos) / 3
	tris := s.Triangles // read only below
	if len(pos) < len(s.Positions) {
		tris = make([]int32, len(s.Triangles))
		for i, v := range s.Triangles {
			tris[i] = remap[v]
		}
	}
	used := make([]bool, nv)
	for _, v := range tris {
		used[v] = true
	}
	for _, u := range used {
		if !u {
			r.UnusedVertices++
		}
	}
	lo, hi := bounds(pos)
	r.BBoxMin, r.BBoxMax, r.Diagonal = lo, hi, math.Sqrt(geom.Dist2(lo, hi))

	nt := len(tris) / 3
	degenerate := make([]bool, nt) // collapsed or zero-area: no plane, no self-intersection test
	for t := range nt {
		if collapsed(tris, t) {
			r.CollapsedTriangles++
			degenerate[t] = true
			continue
		}
		a, b, c := geom.At(pos, tris[3*t]), geom.At(pos, tris[3*t+1]), geom.At(pos, tris[3*t+2])
		if collinear(a, b, c) {
			r.ZeroAreaTriangles++
			degenerate[t] = true
		}
		r.Area += 0.5 * geom.Norm(geom.Cross(geom.Sub(b, a), geom.Sub(c, a)))
	}
	r.Volume = signedVolume(pos, tris, lo, hi)
	for _, d := range duplicates(tris, nv) {
		if d {
			r.DuplicateTriangles++
		}
	}

	tp := newTopology(tris, nv)
	r.Edges, r.BoundaryEdges, r.NonManifoldEdges, r.InconsistentEdges = tp.edges, tp.boundaryEdges, tp.nonManifoldEdges, tp.inconsistentEdges
	// The questions below only read the topology: ask them concurrently.
	var fans []bool
	var wg sync.WaitGroup
	wg.Go(func() { fans = flatFans(pos, tp) })
	wg.Go(func() {
		r.BoundaryLoops = []int{}
		for _, loop := range tp.boundaryLoops() {
			r.BoundaryLoops = append(r.BoundaryLoops, len(loop))
		}
		_, r.Components = tp.components()
	})
	wg.Go(func() { r.NonManifoldVertices = tp.nonManifoldVertices() })
	wg.Go(func() {
		r.Orientable = !slices.Contains(tp.orientPatches().conflicted, true)
	})
	wg.Wait()
	nc := r.Components
	r.Closed = r.BoundaryEdges == 0 && r.NonManifoldEdges == 0 && r.CollapsedTriangles == 0 && nt > 0
	r.Manifold = r.NonManifoldEdges == 0 && r.NonManifoldVertices == 0
	r.ConsistentlyOriented = r.InconsistentEdges == 0 && r.NonManifoldEdges == 0
	if r.Closed && r.Manifold && r.Orientable {
		// χ = V − E + F over the used vertices; each closed orientable
		// component of genus g has χ = 2 − 2g.
		chi := (nv - r.UnusedVertices) - r.Edges + nt
		g := (2*nc - chi) / 2
		r.Genus = &g
	}

	<-built
	r.SelfIntersectingPairs, r.SelfIntersections = selfIntersections(pos, tris, tree, degenerate, fans)
	r.Verdict = r.verdict(pos, tris)
	return r
}

// signedVolume returns the volume tris enclose, positive when they face
// outward: the sum of the tetrahedra each spans with the centre of the
// box lo–hi, which keeps the sum well conditioned far from the origin.
func signedVolume(pos []float64, tris []int32, lo, hi geom.Vec) float64 {
	o := geom.Scale(0.5, geom.Add(lo, hi))
	v := 0.0
	for t := 0; t < len(tris); t += 3 {
		if collapsed(tris, t/3) {
			continue // no volume, but its rounding would add some
		}
		v += geom.TetVolume(o, geom.At(pos, tris[t]), geom.At(pos, tris[t+1]), geom.At(pos, tris[t+2]))
	}
	return v
}
