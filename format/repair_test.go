package format_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

func kinds(changes []format.Change) map[string]int {
	m := map[string]int{}
	for _, c := range changes {
		m[c.Kind] += c.Count
	}
	return m
}

// The holed box closes with a fan of four triangles in the plane of the
// missing cell, so it encloses the unit volume again (to rounding).
func TestRepairFillsHole(t *testing.T) {
	// The missing cell spans 41% of the box diagonal: above the default 10%.
	out, changes := format.Repair(read(t, "hole.obj"), format.RepairOptions{MaxHoleSize: 0.5})
	if k := kinds(changes); k[format.ChangeFillHole] != 4 || len(changes) != 1 {
		t.Errorf("changes %v", changes)
	}
	r := format.Diagnose(out)
	if !r.Closed || !r.ConsistentlyOriented || math.Abs(r.Volume-1) > 1e-15 || r.Verdict.Path != format.PathExact {
		t.Errorf("closed %v oriented %v volume %g path %s", r.Closed, r.ConsistentlyOriented, r.Volume, r.Verdict.Path)
	}
	if out.NumVertices() != 27 || out.NumTriangles() != 50 {
		t.Errorf("%d vertices, %d triangles; want 27, 50", out.NumVertices(), out.NumTriangles())
	}
}

// A hole of three edges takes one triangle; a hole too large is left.
func TestRepairHoleSizes(t *testing.T) {
	s := shapes.Icosphere(1, 3)
	s.Triangles = s.Triangles[3:] // one triangle missing
	out, changes := format.Repair(s, format.RepairOptions{})
	if k := kinds(changes); k[format.ChangeFillHole] != 1 {
		t.Errorf("changes %v", changes)
	}
	// The one triangle that fills the hole is the one removed.
	want := format.Diagnose(shapes.Icosphere(1, 3)).Volume
	if r := format.Diagnose(out); !r.Closed || math.Abs(r.Volume-want) > 1e-14 || out.NumTriangles() != s.NumTriangles()+1 {
		t.Errorf("closed %v volume %g (want %g), %d triangles", r.Closed, r.Volume, want, out.NumTriangles())
	}

	big := shapes.Icosphere(1, 3)
	var kept []int32
	for i := 0; i < len(big.Triangles); i += 3 { // remove the cap z > 0.5: a loop far over 10% of the size
		if big.Positions[3*big.Triangles[i]+2] <= 0.5 || big.Positions[3*big.Triangles[i+1]+2] <= 0.5 || big.Positions[3*big.Triangles[i+2]+2] <= 0.5 {
			kept = append(kept, big.Triangles[i:i+3]...)
		}
	}
	big.Triangles = kept
	out, changes = format.Repair(big, format.RepairOptions{})
	if k := kinds(changes); k[format.ChangeFillHole] != 0 {
		t.Errorf("a large hole was filled: %v", changes)
	}
	if r := format.Diagnose(out); r.Closed {
		t.Error("large hole closed")
	}
	out, changes = format.Repair(big, format.RepairOptions{MaxHoleSize: 2})
	if r := format.Diagnose(out); !r.Closed || kinds(changes)[format.ChangeFillHole] == 0 {
		t.Errorf("with a larger limit: closed %v, changes %v", r.Closed, changes)
	}
	if _, changes = format.Repair(shapes.Icosphere(1, 3), format.RepairOptions{MaxHoleEdges: -1}); len(changes) != 0 {
		t.Errorf("closed sphere: changes %v", changes)
	}
}

// A speck far from the part is dropped with its vertices, the part is
// kept, and the inside-out part is turned outward; each change is listed.
func TestRepairDropsSpecksAndOrients(t *testing.T) {
	part := shapes.Box(1, 1, 1, 2)
	for t := range part.NumTriangles() {
		part.Triangles[3*t+1], part.Triangles[3*t+2] = part.Triangles[3*t+2], part.Triangles[3*t+1]
	}
	speck := shapes.Box(0.01, 0.01, 0.01, 1)
	for i := range speck.Positions {
		speck.Positions[i] += 5
	}
	out, changes := format.Repair(concat(part, speck), format.RepairOptions{})
	k := kinds(changes)
	if k[format.ChangeDropComponent] != 12 || k[format.ChangeDropVertices] != 8 || k[format.ChangeOrient] != 1 {
		t.Errorf("changes %v", changes)
	}
	r := format.Diagnose(out)
	if r.Components != 1 || math.Abs(r.Volume-1) > 1e-15 || out.NumVertices() != 26 {
		t.Errorf("components %d volume %g vertices %d", r.Components, r.Volume, out.NumVertices())
	}
	for _, c := range changes {
		if c.Detail == "" || !strings.HasPrefix(c.String(), c.Kind+": ") {
			t.Errorf("change %#v", c)
		}
	}
	// The largest component stays, however small the threshold makes it.
	out, _ = format.Repair(speck, format.RepairOptions{MinComponentArea: 0.9})
	if out.NumTriangles() != 12 {
		t.Errorf("lone component dropped")
	}
}
