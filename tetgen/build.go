package tetgen

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Mesh is the tetrahedral mesh Build returns.
type Mesh = tetmesh.Mesh

// Options controls Build. The zero value asks for a quality mesh with
// radius-edge ratio at most 2.
type Options struct {
	// Quality bounds the radius-edge ratio (circumradius over shortest
	// edge) of every tet; 0 means 2. Values down to 1.2 work.
	Quality float64
	// MaxVolume bounds the volume of every tet; 0 means no bound.
	MaxVolume float64
	// EdgeLength bounds the circumradius of every tet (so its edges are
	// at most about this long); 0 means no bound.
	EdgeLength float64
	// Coarse asks for the fewest tets: the surface vertices, the
	// Steiner points boundary recovery needs, Points, and the interior
	// points that keep every interior edge off the boundary. No quality
	// refinement.
	Coarse bool
	// Points are vertices to insert (x, y, z each), e.g. medial-axis
	// samples; each must lie strictly inside the body.
	Points []float64
	// PointTags gives each of Points its tag, Interior or Core; nil
	// means Interior for all.
	PointTags []tetmesh.Tag
	// CoreSurface is an optional closed surface strictly inside the body
	// (a rigid core). The mesh conforms to it; its vertices and every
	// vertex inside it are tagged Core.
	CoreSurface *format.Surface
	// Core, when set, tags Core every Steiner vertex for which it
	// returns true (a core given by an inside test rather than a surface).
	Core func(p geom.Vec) bool
	// Sizing, when set, gives a target edge length at each point: tets
	// too big for the smallest target at their vertices (longest edge
	// above it, and circumradius above that of the regular tet of that
	// edge) are refined. It is called once per vertex.
	Sizing func(p geom.Vec) float64
	// Progress, when set, is called with the stage name and the fraction
	// done.
	Progress func(stage string, done float64)
	// MergeCoplanar retriangulates each planar group of the surface
	// (triangles joined across edges where they are exactly coplanar and
	// face the same way, or, for triangles with an angle below 12°,
	// coplanar to an ulp where the whole group is) to its constrained
	// Delaunay triangulation before meshing: needle input triangles of
	// flat faces then no longer bound the mesh's quality. The guarantee
	// becomes that every planar group, rather than every input triangle,
	// is the union of boundary faces (see coplanar.go and planar.go).
	MergeCoplanar bool
}

// Report describes what Build did.
type Report struct {
	InputVertices  int `json:"input_vertices"`
	InputTriangles int `json:"input_triangles"`
	Vertices       int `json:"vertices"`
	Tets           int `json:"tets"`

	// Steiner points by where they were put.
	SteinerSegment int `json:"steiner_segment"` // on input edges
	SteinerFacet   int `json:"steiner_facet"`   // inside input triangles
	SteinerVolume  int `json:"steiner_volume"`  // inside the body, by refinement, in core slivers and in coarse flat tets
	VoidSplits     int `json:"void_splits"`     // inside the body, to split zero-pressure tets, faces and edges
	SteinerDropped int `json:"steiner_dropped"` // interior Steiner points a forced insertion replaced
	PointsInserted int `json:"points_inserted"` // of Options.Points

	// ConformingRecovery is set when flip-based boundary recovery
	// failed and the surface was recovered by conforming Delaunay
	// refinement instead (more Steiner points).
	ConformingRecovery bool `json:"conforming_recovery"`
	// QualityCapped is set when refinement stopped enforcing the
	// radius-edge bound after adding the most vertices it may for it, a
	// safety net behind the local rules that end it (protecting balls at
	// small input angles, refine.go): some tets then exceed Quality away
	// from small angles too.
	QualityCapped bool `json:"quality_capped"`

	// SharpestCrease is the smallest angle, in degrees, between two
	// input triangles sharing an edge, inside the body (and on either
	// side of the core surface's edges, when there is one). The tets at
	// such an edge divide it between them, so Quality.MinDihedral cannot
	// exceed it: a smaller minimum is the input's, not the mesher's.
	SharpestCrease float64 `json:"sharpest_crease_deg"`

	InputVolume float64 `json:"input_volume"` // enclosed by the input surface, m³
	Volume      float64 `json:"volume"`       // of the tets, m³

	Quality tetmesh.Quality `json:"quality"`

	Timings []Timing `json:"timings"`
}

// Timing is the wall time of one stage.
type Timing struct {
	Stage   string  `json:"stage"`
	Seconds float64 `json:"seconds"`
}

// Vertex kinds.
const (
	vInput   uint8 = iota // a vertex of the input (or core) surface
	vSegment              // Steiner point on an input edge
	vFacet                // Steiner point inside an input triangle
	vVolume               // Steiner point inside the body
	vPoint                // a caller-supplied point
	vBox                  // a corner of the box around everything, outside the body
)

// mesher holds the state of one Build.
type mesher struct {
	opt Options
	m   *tri
	s   surface
	sc  surfCavity

	prot protected // what flips must keep during boundary recovery

	facets   []facetInfo
	segIndex map[uint64]int32 // input edge (lo, hi vertex) → segment
	segEnds  []int32          // two input vertices per segment
	nInput   int              // input and core surface vertices

	kind   []uint8 // per vertex
	ref    []int32 // per vertex: segment or facet of a Steiner point, input index of an input vertex
	on     []uint8 // per vertex: onNone, onOuter or onCore, the surface it lies on
	tag    []tetmesh.Tag
	nOuter int // vertices of the input surface (the core surface's follow)

	// conforming recovers the surface by Delaunay insertion of Steiner
	// points only, never flips: more points, always converges.
	conforming bool
	// joinCoplanar lets surface insertion join a point to subfaces it is
	// coplanar with, except those of its own facets, as it did before
	// planar groups: tests use it to build the flat wall tets that void
	// splitting must still handle.
	joinCoplanar bool

	ref8 *refiner // refinement queues
	// qualityCap is the number of vertices added for shape past which
	// the radius-edge bound no longer refines (see qualityVertices);
	// shapeVertices counts them.
	qualityCap, shapeVertices int

	size     []float64 // per vertex: Options.Sizing there, NaN until asked
	minEdge2 float64   // squared shortest edge refinement may create

	// keepAcute makes optimization's flips keep the smallest acute
	// angle of what they replace (or optTarget), as smoothing does: set
	// for the passes after reinsertion.
	keepAcute bool
	// endStalled ends an optimization pass after rounds that gain
	// nothing (improve): set for the passes after edge contraction and
	// reinsertion.
	endStalled bool

	// During a local split of boundary recovery (splitting), the
	// vertices local splits made and the length of the chain of local
	// splits that made each (see maxLocalDepth).
	splitting  bool
	localDepth map[int32]int

	rep     *Report
	visited stamps     // nearVertices' vertices already visited
	cavSide [][4]uint8 // insertForced's: per cavity tet, whether v sees each face
	// insertInFront's tries, and the worker that takes some of them
	// during splitSlivers.
	frontTries []frontTry
	front      *frontWorker
	start      time.Time

	turnScratch
	// side holds, per vertex, the side of a split optimization round's
	// plane it is on, and halves the rounds' halves (optsplit.go).
	side   []uint8
	halves *[2]roundHalf
	// starOnAt holds, per vertex, starOn's answer (bit 0) and the
	// splitStamp of the round that found it.
	starOnAt   []uint32
	splitStamp uint32

	// reinsertSliver's boundary faces and ascents, and runApexJobs'
	// workers.
	apexFaces   [][3]geom.Vec
	apexJobs    []apexJob
	apexWorkers []apexWorker
}

// turnScratch is the scratch of an optimization turn (mesher.takeTurn)
// and of much else: each half of a split round has its own.
type turnScratch struct {
	buf     []int32
	buf2    []int32
	nbrSeen stamps // neighbours' vertices already listed
	// starSines holds starObjective's sine of each star tet, ringSines
	// flipBetter's of each tet of a ring.
	starSines, ringSines []float64
	// ringTets and ringLink hold flipBetter's edge rings and
	// removeSurfaceEdge's fans.
	ringTets, ringLink []int32
}

// Surfaces a vertex can lie on.
const (
	onNone uint8 = iota
	onOuter
	onCore
)

func (ms *mesher) addVertex(p geom.Vec, kind uint8, ref int32, on uint8) int32 {
	ms.kind = append(ms.kind, kind)
	ms.ref = append(ms.ref, ref)
	ms.on = append(ms.on, on)
	tag := tetmesh.Interior
	switch on {
	case onOuter:
		tag = tetmesh.Boundary
	case onCore:
		tag = tetmesh.Core
	}
	ms.tag = append(ms.tag, tag)
	return ms.m.addVertex(p)
}

// popVertex removes the last vertex, which must not be in any tet.
func (ms *mesher) popVertex() {
	n := len(ms.kind) - 1
	ms.kind, ms.ref, ms.on, ms.tag = ms.kind[:n], ms.ref[:n], ms.on[:n], ms.tag[:n]
	ms.size = ms.size[:min(n, len(ms.size))]
	ms.m.xyz = ms.m.xyz[:3*n]
	ms.m.vt = ms.m.vt[:n]
}

func (ms *mesher) stage(name string) {
	now := time.Now()
	if !ms.start.IsZero() && len(ms.rep.Timings) > 0 {
		ms.rep.Timings[len(ms.rep.Timings)-1].Seconds = now.Sub(ms.start).Seconds()
	}
	ms.start = now
	if name != "" {
		ms.rep.Timings = append(ms.rep.Timings, Timing{Stage: name})
		if ms.opt.Progress != nil {
			ms.opt.Progress(name, 0)
		}
	}
}

// Build tetrahedralizes the solid bounded by s, a clean surface: closed,
// manifold, consistently oriented outward, not self-intersecting, with no
// duplicate vertices or degenerate triangles (format.Clean and
// format.Diagnose produce and check this). Anything else is refused with
// an error saying what is wrong.
//
// Every triangle of s (with Options.MergeCoplanar, every planar group of
// s) is the union of boundary faces of the result, whose
// boundary vertices all lie on s (Steiner points on its edges and faces
// are allowed). Output vertices 0..n−1 are the vertices of s, in order;
// Steiner points follow. See docs/meshing.md for the algorithm.
func Build(s *format.Surface, opt Options) (*Mesh, *Report, error) {
	if err := checkSurface(s, "surface"); err != nil {
		return nil, nil, err
	}
	if opt.CoreSurface != nil {
		if err := checkSurface(opt.CoreSurface, "core surface"); err != nil {
			return nil, nil, err
		}
	}
	if err := checkOptions(&opt); err != nil {
		return nil, nil, err
	}
	if opt.MergeCoplanar {
		s, _ = mergeCoplanar(s)
	}
	mesh, rep, err := build(s, opt, false)
	var recErr *recoveryError
	if errors.As(err, &recErr) {
		// Flips and forced insertions could not recover the surface
		// everywhere, or left voids no split reaches; conforming
		// recovery always can (at the price of more Steiner points),
		// so start over with it.
		mesh, rep, err = build(s, opt, true)
	}
	return mesh, rep, err
}

// recoveryError is a failure that conforming recovery may overcome: of
// boundary recovery by flips, or of void splitting after it.
type recoveryError struct{ err error }

func (e *recoveryError) Error() string { return e.err.Error() }
func (e *recoveryError) Unwrap() error { return e.err }

func build(s *format.Surface, opt Options, conforming bool) (*Mesh, *Report, error) {
	ms, stages := newMesher(s, opt, conforming)
	for _, st := range stages {
		ms.stage(st.name)
		err := st.run()
		if err != nil {
			return nil, nil, err
		}
	}
	ms.stage("output")
	mesh := ms.output()
	ms.stage("")
	ms.rep.Vertices, ms.rep.Tets = mesh.NumVertices(), mesh.NumTets()
	ms.rep.Volume = mesh.Volume()
	ms.rep.Quality = tetmesh.MeasureQuality(mesh)
	return mesh, ms.rep, nil
}

// meshStage is one stage of the mesher.
type meshStage struct {
	name string
	run  func() error
}

// newMesher returns a mesher for s and its stages, to be run in order.
func newMesher(s *format.Surface, opt Options, conforming bool) (*mesher, []meshStage) {
	ms := &mesher{opt: opt, conforming: conforming, rep: &Report{InputVertices: s.NumVertices(), InputTriangles: s.NumTriangles()}}
	ms.rep.ConformingRecovery = conforming
	ms.rep.InputVolume = enclosedVolume(s)
	ms.rep.SharpestCrease = sharpestCrease(s, false)
	if opt.CoreSurface != nil {
		ms.rep.SharpestCrease = min(ms.rep.SharpestCrease, sharpestCrease(opt.CoreSurface, true))
	}
	return ms, []meshStage{
		{"delaunay", func() error { return ms.initialize(s) }},
		{"boundary recovery", ms.recoverSurface},
		{"carve", ms.carve},
		{"points", ms.insertPoints},
		{"refine", ms.refine},
		{"voids", ms.splitVoids},
		{"core slivers", ms.splitCoreSlivers},
		{"optimize", ms.optimize},
		{"slivers", ms.removeSlivers},
	}
}

func checkOptions(opt *Options) error {
	if opt.Quality == 0 {
		opt.Quality = 2
	}
	switch {
	case !(opt.Quality >= 1.2) || math.IsInf(opt.Quality, 0):
		return fmt.Errorf("tetgen: Quality %g: the radius-edge bound must be at least 1.2", opt.Quality)
	case !(opt.MaxVolume >= 0) || math.IsInf(opt.MaxVolume, 0):
		return fmt.Errorf("tetgen: MaxVolume %g must be a positive volume or 0", opt.MaxVolume)
	case !(opt.EdgeLength >= 0) || math.IsInf(opt.EdgeLength, 0):
		return fmt.Errorf("tetgen: EdgeLength %g must be a positive length or 0", opt.EdgeLength)
	case len(opt.Points)%3 != 0:
		return fmt.Errorf("tetgen: Points has %d coordinates, not a multiple of 3", len(opt.Points))
	case opt.PointTags != nil && len(opt.PointTags) != len(opt.Points)/3:
		return fmt.Errorf("tetgen: %d PointTags for %d Points", len(opt.PointTags), len(opt.Points)/3)
	}
	for i, x := range opt.Points {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("tetgen: point %d has a non-finite coordinate", i/3)
		}
	}
	for i, t := range opt.PointTags {
		if t != tetmesh.Interior && t != tetmesh.Core {
			return fmt.Errorf("tetgen: point %d has tag %d; points are Interior or Core", i, t)
		}
	}
	return nil
}

// checkSurface refuses surfaces the exact path cannot take, saying why.
func checkSurface(s *format.Surface, what string) error {
	if s == nil || s.NumTriangles() == 0 {
		return fmt.Errorf("tetgen: the %s has no triangles", what)
	}
	if len(s.Positions)%3 != 0 || len(s.Triangles)%3 != 0 {
		return fmt.Errorf("tetgen: the %s has %d coordinates and %d triangle indices: not whole triples", what, len(s.Positions), len(s.Triangles))
	}
	for i, x := range s.Positions {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("tetgen: the %s has a non-finite coordinate at vertex %d", what, i/3)
		}
	}
	for i, v := range s.Triangles {
		if v < 0 || int(v) >= s.NumVertices() {
			return fmt.Errorf("tetgen: the %s: triangle %d refers to vertex %d of %d", what, i/3, v, s.NumVertices())
		}
	}
	if err := geom.CheckExtent(s.Positions); err != nil {
		return fmt.Errorf("tetgen: the %s: %w", what, err)
	}
	r := format.Diagnose(s)
	var why []string
	add := func(cond bool, f string, args ...any) {
		if cond {
			why = append(why, fmt.Sprintf(f, args...))
		}
	}
	add(r.DuplicateVertices > 0, "%d duplicate vertices (not welded)", r.DuplicateVertices)
	add(r.UnusedVertices > 0, "%d unused vertices", r.UnusedVertices)
	add(r.CollapsedTriangles > 0, "%d collapsed triangles", r.CollapsedTriangles)
	add(r.ZeroAreaTriangles > 0, "%d zero-area triangles", r.ZeroAreaTriangles)
	add(r.DuplicateTriangles > 0, "%d duplicate triangles", r.DuplicateTriangles)
	add(r.BoundaryEdges > 0, "open: %d boundary edges", r.BoundaryEdges)
	add(r.NonManifoldEdges > 0, "%d non-manifold edges", r.NonManifoldEdges)
	add(r.NonManifoldVertices > 0, "%d non-manifold vertices", r.NonManifoldVertices)
	add(r.InconsistentEdges > 0, "not consistently oriented: %d edges", r.InconsistentEdges)
	if r.SelfIntersectingPairs > 0 {
		p := r.SelfIntersections[0]
		why = append(why, fmt.Sprintf("self-intersecting: %d triangle pairs (first: triangles %d and %d)", r.SelfIntersectingPairs, p[0], p[1]))
	}
	add(len(why) == 0 && !(r.Volume > 0), "inside out: enclosed volume %g is not positive", r.Volume)
	if len(why) > 0 {
		msg := fmt.Sprintf("tetgen: the %s cannot be meshed on the exact path: ", what)
		for i, w := range why {
			if i > 0 {
				msg += "; "
			}
			msg += w
		}
		return fmt.Errorf("%s (format.Clean fixes welding, degenerate triangles and orientation)", msg)
	}
	return nil
}

// boundingBox returns the eight corners of a box around the points, half
// their extent away on every side. With its corners in the Delaunay
// tetrahedralization, every surface simplex is inside the hull, so
// boundary recovery never meets a ghost tet; the box goes with the
// outside at carving.
func boundingBox(xyz []float64) []float64 {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i < len(xyz); i += 3 {
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = min(lo[k], xyz[i+k]), max(hi[k], xyz[i+k])
		}
	}
	ext := max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2])
	var out []float64
	for c := 0; c < 8; c++ {
		for k := 0; k < 3; k++ {
			if c>>k&1 == 0 {
				out = append(out, lo[k]-ext/2)
			} else {
				out = append(out, hi[k]+ext/2)
			}
		}
	}
	return out
}

// enclosedVolume is the volume a closed outward surface bounds.
func enclosedVolume(s *format.Surface) float64 {
	var v float64
	for i := 0; i < len(s.Triangles); i += 3 {
		a, b, c := geom.At(s.Positions, s.Triangles[i]), geom.At(s.Positions, s.Triangles[i+1]), geom.At(s.Positions, s.Triangles[i+2])
		v += geom.Dot(a, geom.Cross(b, c))
	}
	return v / 6
}

// initialize builds the Delaunay tetrahedralization of the surface
// vertices and the surface's subfaces, segments and facets.
func (ms *mesher) initialize(s *format.Surface) error {
	surfs := []*format.Surface{s}
	if ms.opt.CoreSurface != nil {
		surfs = append(surfs, ms.opt.CoreSurface)
	}
	var xyz []float64
	for _, x := range surfs {
		xyz = append(xyz, x.Positions...)
	}
	nIn := len(xyz) / 3
	xyz = append(xyz, boundingBox(xyz)...)
	m, perm, dup, err := delaunay(xyz)
	if err != nil {
		return fmt.Errorf("tetgen: the surface vertices span no volume: %w", err)
	}
	for i, d := range dup {
		if d >= 0 {
			p := m.pos(int32(i))
			return fmt.Errorf("tetgen: the core surface touches the surface at (%g, %g, %g)", p[0], p[1], p[2])
		}
	}
	ms.m = m
	n := len(perm)
	ms.nInput = nIn
	ms.nOuter = s.NumVertices()
	ms.kind = make([]uint8, n)
	ms.ref = make([]int32, n)
	ms.on = make([]uint8, n)
	ms.tag = make([]tetmesh.Tag, n)
	idOf := make([]int32, n) // input index → tri vertex
	for v, in := range perm {
		ms.ref[v] = in
		idOf[in] = int32(v)
		if int(in) >= nIn {
			ms.kind[v], ms.ref[v] = vBox, -1
			continue
		}
		ms.on[v], ms.tag[v] = onOuter, tetmesh.Boundary
		if int(in) >= ms.nOuter {
			ms.on[v], ms.tag[v] = onCore, tetmesh.Core
		}
	}
	ms.segIndex = map[uint64]int32{}
	base := int32(0)
	for si, x := range surfs {
		core := si == 1
		nt := int32(x.NumTriangles())
		f0 := ms.s.num()
		for t := int32(0); t < nt; t++ {
			q := x.Triangles[3*t : 3*t+3]
			a, b, c := idOf[base+q[0]], idOf[base+q[1]], idOf[base+q[2]]
			ms.facets = append(ms.facets, newFacet(m.pos(a), m.pos(b), m.pos(c), core))
			ms.s.add(a, b, c, int32(len(ms.facets)-1))
			ms.s.segs[len(ms.s.segs)-1] = 7
		}
		// Neighbours across edges: the reverse half-edge.
		half := make(map[uint64]int32, 3*nt)
		for f := f0; f < ms.s.num(); f++ {
			for e := int32(0); e < 3; e++ {
				a, b := ms.s.edge(f, e)
				if h, ok := half[edgeKey(b, a)]; ok {
					ms.s.link(f, e, h/3, h%3)
				} else {
					half[edgeKey(a, b)] = 3*f + e
				}
				if a < b {
					ms.segIndex[edgeKey(a, b)] = int32(len(ms.segEnds) / 2)
					ms.segEnds = append(ms.segEnds, a, b)
				}
			}
		}
		base += int32(x.NumVertices())
	}
	ms.groupPlanarFacets()
	return nil
}
