package stuffing

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

func TestBuildSphere(t *testing.T) {
	s := shapes.Icosphere(1, 4)
	m, rep, err := Build(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *rep)
	if err := tetmesh.Validate(m); err != nil {
		t.Error(err)
	}
	want := shapes.Volume(s)
	if got := m.Volume(); math.Abs(got-want) > 0.01*want {
		t.Errorf("volume %g, want %g", got, want)
	}
}
