package tetgen

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// sliverClasses counts the tets below lim degrees by the kinds of their
// vertices: i input vertices, c Steiner points on creases (boundary
// vertices whose boundary faces are not coplanar), f Steiner points on
// flat parts of the surface, v interior vertices.
func sliverClasses(s *format.Surface, m *Mesh, lim float64) map[string]int {
	nbr, _ := tetmesh.Neighbors(m.Tets, m.NumVertices())
	bf := tetmesh.BoundaryFaces(m.Tets, nbr)
	normals := make(map[int32][]geom.Vec)
	for f := 0; f < len(bf); f += 3 {
		a, b, c := m.Vertex(bf[f]), m.Vertex(bf[f+1]), m.Vertex(bf[f+2])
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		n = geom.Scale(1/geom.Norm(n), n)
		for k := 0; k < 3; k++ {
			normals[bf[f+k]] = append(normals[bf[f+k]], n)
		}
	}
	kind := func(v int32) byte {
		switch {
		case int(v) < s.NumVertices():
			return 'i'
		case m.Tags[v] != tetmesh.Boundary:
			return 'v'
		}
		ns := normals[v]
		for _, n := range ns[1:] {
			if geom.Dot(n, ns[0]) < 1-1e-9 {
				return 'c'
			}
		}
		return 'f'
	}
	out := map[string]int{}
	for t := 0; t < m.NumTets(); t++ {
		q := m.Tets[4*t : 4*t+4]
		d := tetmesh.Dihedral(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3]))
		if slices.Min(d[:])*180/math.Pi >= lim {
			continue
		}
		var ks []byte
		for _, v := range q {
			ks = append(ks, kind(v))
		}
		slices.Sort(ks)
		out[string(ks)]++
	}
	return out
}

// TestCorpusQuality meshes corpus models in quality mode (default
// options) and fails when a model's smallest dihedral angle falls below
// the floor it reached, or rises above the input's sharpest crease
// (Report.SharpestCrease), which no mesh keeping the surface can do. It
// logs which vertices the tets below 1° and 12° have (i input vertex, c
// Steiner point on an input edge, f inside an input triangle, v
// interior). The large models run only with PFMESH_LONG=1.
func TestCorpusQuality(t *testing.T) {
	for _, c := range corpusQuality {
		t.Run(c.file, func(t *testing.T) {
			if c.long && os.Getenv("PFMESH_LONG") == "" {
				t.Skip("long: set PFMESH_LONG=1")
			}
			corpusQualityCase(t, c.file, Options{}, c.floor)
		})
	}
}

// TestCorpusQualityMerged is TestCorpusQuality with MergeCoplanar, every
// model only with PFMESH_LONG=1; each output is checked to keep the
// planar groups (checkMergedMesh).
func TestCorpusQualityMerged(t *testing.T) {
	for _, c := range corpusQuality {
		t.Run(c.file, func(t *testing.T) {
			if os.Getenv("PFMESH_LONG") == "" {
				t.Skip("long: set PFMESH_LONG=1")
			}
			corpusQualityCase(t, c.file, Options{MergeCoplanar: true}, c.mergedFloor)
		})
	}
}

func corpusQualityCase(t *testing.T, file string, opt Options, floor float64) {
	if testing.Short() {
		t.Skip("corpus meshing is slow")
	}
	t.Parallel()
	s := loadCorpus(t, file)
	m, rep, err := Build(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if opt.MergeCoplanar {
		checkMergedMesh(t, s, m)
	} else {
		checkMesh(t, s, m)
	}
	got := tetmesh.MeasureQuality(m).MinDihedral
	t.Logf("%d tets, crease %.3g°, min dihedral %.3g°, conforming %v, capped %v; <1°: %v; <12°: %v; %v",
		m.NumTets(), rep.SharpestCrease, got, rep.ConformingRecovery, rep.QualityCapped,
		fmt.Sprint(sliverClasses(s, m, 1)), fmt.Sprint(sliverClasses(s, m, 12)), rep.Timings)
	if got > rep.SharpestCrease+1e-9 {
		t.Errorf("smallest dihedral angle %.3g° above the input's sharpest crease %.3g°", got, rep.SharpestCrease)
	}
	if got < floor {
		t.Errorf("smallest dihedral angle %.3g°, below the %.3g° this model reached", got, floor)
	}
}

// corpusQuality lists the watertight corpus models the exact path takes,
// with the smallest dihedral angle each reached (degrees, rounded down;
// session 8, docs/meshing.md). Four floors went down in session 8: the
// session-start code was already below three of them (gearwheel 0.0148°,
// example001 1.87°, cura 0.306°) and the propeller went from 0.221° to
// 0.21°; their worst tets stand on needle subfaces of input triangles
// with angles down to 0.0005-0.05°, so any change of where points go
// moves the minimum either way. mergedFloor is the same with
// MergeCoplanar (session 9): up on the baraban, lever, cura plate and
// gearwheel, down on example001, the hinge and the propeller (all three
// capped refinement, where moving points moves the minimum either way).
// Session 9's front insertion and smoothing guard (sliver.go) raised most
// floors and lowered two, both on capped refinement: the aneurysm (2.18°
// → 1.92° in both modes) and the hinge without the option (4.99° →
// 4.41°). Front insertion was first limited to faces opposite an interior
// Steiner vertex, which lifted the lever, cura, baraban and gearwheel
// further without the option but took the default pipeline's icosphere
// fixture from 15.0° to 7.3° and the aneurysm to 0.87°; it tries every
// face again (the lead, end of session 9), and those four floors are
// what that reaches (lever 1.04°, cura 0.451°, baraban 5.65°, gearwheel
// 0.0117°). Session 10 (C19, surface edge removal in the slivers pass;
// docs/meshing.md) lowered the tets below 12° on every long model but
// cura with the option (equal) and the baraban without it, and moved the
// minima of the capped models both ways, as every change to these passes
// does (an exactly equivalent angle test alone took the lever from 1.19°
// to 0.88°): up without the option on the lever (1.04° → 1.22°), cura
// (0.451° → 0.605°), example001 (2.43° → 2.71°) and the baraban (5.65° →
// 5.8°); down on the gearwheel (0.0117° → 0.00551°; with the option 0.426°
// → 0.245°), the hinge (4.41° → 3.94°), the aneurysm (1.92° → 0.872° in
// both modes; 0.872° in a session-9 variant too), and with the option the
// lever (4.95° → 4.6°) and example001 (2.92° → 2.86°).
// Session 10's local rules that end refinement (C18; refine.go,
// protect.go) replaced the vertex cap, which nine models reached (the
// cura plate still does); measured apart from C19's change, they raised
// every long model's minimum without the option but the propeller's
// (0.214° → 0.204°) and took the mushroom from 13.2° to 12.0° (it had
// reached the cap at 61 k tets, now 16 k; no tet below 12° either way).
// Merged, the quick models measure: mushroom 11.7° both ways (6 tets
// below 12°), baraban 11.2° and 13.7° with the option — their floors
// follow that run, and so do the long models' (one full long run of
// both tests on the merge, 1150a59): none capped but the cura plate
// without the option (0.585°, 4 226 tets below 12°, 13 438 before); with
// the option the cura plate reaches 12.6°, the baraban 13.7°.
// Session 11 (C23's edge contraction, C22's ascent smoothing; one full
// long run of both tests on the merge, 7dd8e4b) raised every floor that
// moved: without the option mushroom 12.8°, baraban 12.3° (no tet below
// 12° on either), example001 4.51°, lever 1.75°, cura 0.722° (capped),
// hinge 5.41°, aneurysm 2.97°, gearwheel 0.228°, propeller 0.453°; with
// it baraban 15°, cura 14.7°, lever 10.5°, gearwheel 0.424°, propeller
// 0.453°, example001 3.97°, hinge 7.18°. The review's shared star
// objective for smoothing (optimize.go) then moved only the gearwheel:
// 0.228° → 0.202° (0.424° → 0.473° with the option).
// Session 12's optimal reinsertion (reinsert.go), the last step of the
// sliver stage and, with its guarded flips, unable to lower a smallest
// angle (one full long run of both tests): without the option lever
// 1.75° → 1.91°, cura 0.722° → 0.737°, gearwheel 0.202° → 0.676°;
// with it gearwheel 0.473° → 1.03°; every other minimum the same.
var corpusQuality = []struct {
	file        string
	floor       float64
	long        bool
	mergedFloor float64 // with MergeCoplanar (session 9; docs/meshing.md)
}{
	{"bunny_npm.obj", 14.9, false, 14.9},
	{"lib3mf_helix.stl", 14.9, false, 14.9},
	{"openscad-testing_issue1580-back-to-back.stl", 25, false, 25},
	{"matgeom_mushroom.off", 12.7, false, 12.7},
	{"yade_baraban.stl", 12.2, false, 14.9},
	{"openscad_example001.stl", 4.5, true, 3.9}, // 2.5 in session 4; 1.87 at the session-8 start
	{"gmsh_lever.stl", 1.9, true, 10.4},
	{"cura_pbr3d_g1_buildplate.stl", 0.73, true, 14.6}, // 0.42 in session 4; 0.306 at the session-8 start
	{"netgen_hinge.stl", 5.4, true, 7.1},               // 4.99 before session 9's front insertion
	{"plb_aneurysm.stl", 2.9, true, 2.9},               // 2.18 before session 9's front insertion
	{"stlmodels_gearwheel.bin.stl", 0.67, true, 1},     // 0.028 in session 4; 0.0148 at the session-8 start
	{"occt_propeller.stl", 0.45, true, 0.45},           // 0.22 in session 4; its 9.92° crease bounds any mesh below 12°
}
