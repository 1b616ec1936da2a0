package contact_test

import (
	"fmt"
	"log"

	"github.com/pfmesh/pfmesh/contact"
)

// A compliant unit cube (six tets, ε = z: zero on its bottom face, rising
// inward) resting 0.1 m deep in a rigid half-space: the contact surface is
// the unit square at z = 0.1, pressure E·0.1 throughout.
func Example() {
	pos := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1}
	tets := []int32{0, 1, 3, 7, 0, 3, 2, 7, 0, 2, 6, 7, 0, 6, 4, 7, 0, 4, 5, 7, 0, 5, 1, 7}
	eps := []float64{0, 0, 0, 0, 1, 1, 1, 1}
	cube, err := contact.NewCompliant(pos, tets, eps, contact.Material{Modulus: 1e5})
	if err != nil {
		log.Fatal(err)
	}
	floor, err := contact.NewHalfSpace(contact.Material{})
	if err != nil {
		log.Fatal(err)
	}
	X_WB, err := contact.ParsePose("0 0 0.1")
	if err != nil {
		log.Fatal(err)
	}
	r, err := contact.Evaluate(cube, floor, contact.Config{X_WA: contact.Identity(), X_WB: X_WB}, contact.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("force on A %.6g N, area %.6g m², mean pressure %.6g Pa, centroid %.3g\n",
		r.OnA.Force, r.Area, r.MeanPressure, r.Centroid)
	// Output:
	// force on A [0 0 10000] N, area 1 m², mean pressure 10000 Pa, centroid [0.5 0.5 0.1]
}

func ExampleParsePose() {
	X, err := contact.ParsePose("1 2 3 0 0 1.5707963267948966") // yaw 90°
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.3g\n", X.Apply([3]float64{1, 0, 0}))
	// Output:
	// [1 3 3]
}
