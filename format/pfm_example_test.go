package format_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/pfmesh/pfmesh/format"
)

// unitTet is a one-tet pressure-field mesh: the corner of a 1 cm cube.
func unitTet() *format.PFM {
	return &format.PFM{
		Header:    format.Header{Modulus: 1e6, Mapping: format.Linear, Dissipation: 1, Friction: 0.5},
		Positions: []float64{0, 0, 0, 0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01},
		Tets:      []int32{0, 1, 2, 3},
		Epsilon:   []float64{0, 0, 0, 0},
		Gradient:  make([]float64, 12),
		Tags:      []uint8{1, 1, 1, 1},
		Boundary:  []int32{1, 2, 3, 0, 3, 2, 0, 1, 3, 0, 2, 1},
	}
}

func ExampleWritePFM() {
	dir, _ := os.MkdirTemp("", "pfm")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tet.pfm")
	if err := format.WritePFM(path, unitTet(), format.WriteOptions{}); err != nil {
		log.Fatal(err)
	}
	p, err := format.ReadPFM(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.NumVertices(), "vertices,", p.NumTets(), "tet, version", p.Major, p.Minor)
	fmt.Println("bbox", p.BBox)
	// Output:
	// 4 vertices, 1 tet, version 1 0
	// bbox [0 0 0 0.01 0.01 0.01]
}

func ExampleOpenPFM() {
	dir, _ := os.MkdirTemp("", "pfm")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tet.pfm")
	if err := format.WritePFM(path, unitTet(), format.WriteOptions{}); err != nil {
		log.Fatal(err)
	}
	m, err := format.OpenPFM(path, format.OpenOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close() // the arrays are valid until then
	fmt.Println(m.Tets, m.Boundary[:3])
	// Output: [0 1 2 3] [1 2 3]
}

func ExampleInspectPFM() {
	dir, _ := os.MkdirTemp("", "pfm")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tet.pfm")
	if err := format.WritePFM(path, unitTet(), format.WriteOptions{Float32: true}); err != nil {
		log.Fatal(err)
	}
	info, err := format.InspectPFM(path)
	if err != nil {
		log.Fatal(err)
	}
	info.Print(os.Stdout)
	// Output:
	// pfm version 1.0, float32 (gradient recomputed), 400 bytes, 400.00 bytes/tet without BVH
	// 4 vertices, 1 tets, 4 boundary triangles
	// E = 1e+06 Pa, mapping linear, dissipation 1 s/m, friction 0.5, source unit 0 m
	// bbox min (0, 0, 0) max (0.009999999776482582, 0.009999999776482582, 0.009999999776482582) m
	// source sha256 0000000000000000000000000000000000000000000000000000000000000000
	// header crc ok
	//   id  section             offset       length        crc
	//    1  positions              296           48 0xb83b157a  ok
	//    2  tets                   344           16 0x835b3dad  ok
	//    3  epsilon                360           16 0x42709aea  ok
	//    5  tags                   376            4 0xd1aa6875  ok
	//    6  boundary               384           16 0x835b3dad  ok
}

func ExampleHeader_Pressure() {
	h := format.Header{Modulus: 1e5, Mapping: format.Log, PressureCap: 1e6}
	for _, eps := range []float64{0, 0.5, 0.99, 1} {
		fmt.Printf("p0(%g) = %.4g Pa\n", eps, h.Pressure(eps))
	}
	// Output:
	// p0(0) = 0 Pa
	// p0(0.5) = 6.931e+04 Pa
	// p0(0.99) = 4.605e+05 Pa
	// p0(1) = 1e+06 Pa
}

func ExampleExport() {
	dir, _ := os.MkdirTemp("", "pfm")
	defer os.RemoveAll(dir)
	for _, name := range []string{"tet.vtk", "tet.vtu", "tet.obj"} {
		if err := format.Export(filepath.Join(dir, name), unitTet()); err != nil {
			log.Fatal(err)
		}
	}
	obj, _ := os.ReadFile(filepath.Join(dir, "tet.obj"))
	fmt.Print(string(obj))
	// Output:
	// # pfmesh boundary surface: 4 vertices, 4 triangles, metres
	// v 0 0 0
	// v 0.01 0 0
	// v 0 0.01 0
	// v 0 0 0.01
	// f 2 3 4
	// f 1 4 3
	// f 1 2 4
	// f 1 3 2
}
