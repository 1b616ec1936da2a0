package format

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// exportMesh is a small mesh with every kind of point data worth checking:
// the log mapping (so pressure is not a multiple of ε) and a coordinate
// (0.1) whose shortest decimal form matters.
func exportMesh() *PFM {
	p := gridPFM(3, 0.1)
	p.Mapping, p.PressureCap = Log, 1e6
	return p
}

// vtkLegacy is a legacy ASCII VTK unstructured grid as parsed here.
type vtkLegacy struct {
	points    []float64
	cells     [][]int
	types     []int
	pointData map[string][]float64
}

// parseVTK reads the subset of legacy ASCII VTK that Drake's reader and
// ParaView's take, independently of the writer.
func parseVTK(t *testing.T, data []byte) *vtkLegacy {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < 4 || lines[0] != "# vtk DataFile Version 3.0" || lines[2] != "ASCII" || lines[3] != "DATASET UNSTRUCTURED_GRID" {
		t.Fatalf("bad VTK preamble: %q", lines[:min(4, len(lines))])
	}
	g := &vtkLegacy{pointData: map[string][]float64{}}
	nums := func(s string) []float64 {
		var v []float64
		for _, f := range strings.Fields(s) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("VTK: %q: %v", s, err)
			}
			v = append(v, x)
		}
		return v
	}
	npoints := 0
	for i := 4; i < len(lines); i++ {
		f := strings.Fields(lines[i])
		count := func(k int) int {
			n, err := strconv.Atoi(f[k])
			if err != nil {
				t.Fatalf("VTK line %d: %q", i+1, lines[i])
			}
			return n
		}
		switch f[0] {
		case "POINTS":
			npoints = count(1)
			for j := range npoints {
				g.points = append(g.points, nums(lines[i+1+j])...)
			}
			i += npoints
		case "CELLS":
			n, size := count(1), count(2)
			for j := range n {
				c := nums(lines[i+1+j])
				cell := make([]int, len(c)-1)
				for k := range cell {
					cell[k] = int(c[k+1])
				}
				if int(c[0]) != len(cell) {
					t.Fatalf("VTK cell %d: count %v, %d indices", j, c[0], len(cell))
				}
				size -= len(c)
				g.cells = append(g.cells, cell)
			}
			if size != 0 {
				t.Fatalf("VTK CELLS size off by %d", size)
			}
			i += n
		case "CELL_TYPES":
			n := count(1)
			for j := range n {
				g.types = append(g.types, int(nums(lines[i+1+j])[0]))
			}
			i += n
		case "POINT_DATA":
			if count(1) != npoints {
				t.Fatalf("POINT_DATA %d for %d points", count(1), npoints)
			}
		case "SCALARS":
			if lines[i+1] != "LOOKUP_TABLE default" {
				t.Fatalf("SCALARS %s: no lookup table line", f[1])
			}
			for j := range npoints {
				g.pointData[f[1]] = append(g.pointData[f[1]], nums(lines[i+2+j])...)
			}
			i += 1 + npoints
		case "VECTORS":
			for j := range npoints {
				g.pointData[f[1]] = append(g.pointData[f[1]], nums(lines[i+1+j])...)
			}
			i += npoints
		case "FIELD":
			for range count(2) {
				i++
				a := strings.Fields(lines[i])
				n, _ := strconv.Atoi(a[1])
				m, _ := strconv.Atoi(a[2])
				if m != npoints {
					t.Fatalf("FIELD array %q: %d tuples for %d points", a[0], m, npoints)
				}
				for len(g.pointData[a[0]]) < n*m {
					i++
					g.pointData[a[0]] = append(g.pointData[a[0]], nums(lines[i])...)
				}
			}
		default:
			t.Fatalf("VTK line %d: unexpected %q", i+1, lines[i])
		}
	}
	return g
}

// checkPointData compares exported point data with p's values.
func checkPointData(t *testing.T, what string, data map[string][]float64, p *PFM) {
	t.Helper()
	tags := make([]float64, len(p.Tags))
	pressure := make([]float64, len(p.Epsilon))
	for i := range tags {
		tags[i], pressure[i] = float64(p.Tags[i]), p.Pressure(p.Epsilon[i])
	}
	for name, want := range map[string][]float64{
		"extent": p.Epsilon, "pressure": pressure, "extent_gradient": p.Gradient, "tag": tags,
	} {
		if !slices.Equal(data[name], want) {
			t.Errorf("%s: point data %q differs", what, name)
		}
	}
}

func TestWriteVTK(t *testing.T) {
	p := exportMesh()
	var buf bytes.Buffer
	if err := WriteVTK(&buf, p); err != nil {
		t.Fatal(err)
	}
	g := parseVTK(t, buf.Bytes())
	if !slices.Equal(g.points, p.Positions) {
		t.Error("points differ")
	}
	if len(g.cells) != p.NumTets() || len(g.types) != p.NumTets() {
		t.Fatalf("%d cells, %d types, want %d", len(g.cells), len(g.types), p.NumTets())
	}
	for c, cell := range g.cells {
		for k, v := range cell {
			if int32(v) != p.Tets[4*c+k] {
				t.Fatalf("cell %d = %v, want %v", c, cell, p.Tets[4*c:4*c+4])
			}
		}
		if g.types[c] != 10 {
			t.Fatalf("cell %d type %d, want 10 (VTK_TETRA)", c, g.types[c])
		}
		// Drake's acceptance test, on the parsed numbers.
		a, b, cc, d := geom.At(g.points, int32(cell[0])), geom.At(g.points, int32(cell[1])), geom.At(g.points, int32(cell[2])), geom.At(g.points, int32(cell[3]))
		if geom.Dot(geom.Sub(d, a), geom.Cross(geom.Sub(b, a), geom.Sub(cc, a))) <= 0 {
			t.Fatalf("cell %d: volume not positive", c)
		}
	}
	checkPointData(t, "VTK", g.pointData, p)
}

// TestWriteVTKDrakeSliver checks that a tet with exactly positive but
// rounded non-positive volume is refused rather than written for Drake to
// refuse. Slivers are found by nudging the apex of exactly coplanar
// quadruples (z = x + y, 30-bit fractions) by a few ulps.
func TestWriteVTKDrakeSliver(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		s := randomCoplanar(rng)
		dir := math.Inf(2*rng.IntN(2) - 1)
		for range 1 + rng.IntN(2) {
			s[11] = math.Nextafter(s[11], dir)
		}
		a, b, c, d := geom.At(s, 0), geom.At(s, 1), geom.At(s, 2), geom.At(s, 3)
		switch geom.Orient3D(a, b, c, d) {
		case 0:
			continue
		case -1:
			s[3], s[4], s[5], s[6], s[7], s[8] = s[6], s[7], s[8], s[3], s[4], s[5]
		}
		if drakeTetVolume(s, []int32{0, 1, 2, 3}) > 0 {
			continue
		}
		p := oneTet()
		p.Positions = s
		if err := p.validate(); err != nil {
			t.Fatal(err)
		}
		if err := WriteVTK(&bytes.Buffer{}, p); !errors.Is(err, ErrPFMInvalid) {
			t.Fatalf("sliver: err = %v, want ErrPFMInvalid", err)
		}
		return
	}
	t.Fatal("no sliver found")
}

func TestWriteVTU(t *testing.T) {
	p := exportMesh()
	var buf bytes.Buffer
	if err := WriteVTU(&buf, p); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	head, _, ok := bytes.Cut(bytes.Clone(data), []byte("<AppendedData"))
	if !ok {
		t.Fatal("no AppendedData")
	}
	type dataArray struct {
		Type       string `xml:"type,attr"`
		Name       string `xml:"Name,attr"`
		Components int    `xml:"NumberOfComponents,attr"`
		Format     string `xml:"format,attr"`
		Offset     int    `xml:"offset,attr"`
	}
	var doc struct {
		Type       string `xml:"type,attr"`
		ByteOrder  string `xml:"byte_order,attr"`
		HeaderType string `xml:"header_type,attr"`
		Piece      struct {
			Points int         `xml:"NumberOfPoints,attr"`
			Cells  int         `xml:"NumberOfCells,attr"`
			Data   []dataArray `xml:"PointData>DataArray"`
			Pts    []dataArray `xml:"Points>DataArray"`
			Cell   []dataArray `xml:"Cells>DataArray"`
		} `xml:"UnstructuredGrid>Piece"`
	}
	if err := xml.Unmarshal(append(head, "</VTKFile>"...), &doc); err != nil {
		t.Fatalf("XML: %v", err)
	}
	if doc.Type != "UnstructuredGrid" || doc.ByteOrder != "LittleEndian" || doc.HeaderType != "UInt64" ||
		doc.Piece.Points != p.NumVertices() || doc.Piece.Cells != p.NumTets() {
		t.Fatalf("VTU header %+v", doc)
	}
	i := bytes.Index(data, []byte(`<AppendedData encoding="raw">`))
	base := i + bytes.IndexByte(data[i:], '_') + 1
	le := binary.LittleEndian
	read := func(a dataArray) []float64 {
		if a.Format != "appended" {
			t.Fatalf("%s: format %q", a.Name, a.Format)
		}
		at := base + a.Offset
		n := int(le.Uint64(data[at:]))
		b := data[at+8 : at+8+n]
		var v []float64
		switch a.Type {
		case "Float64":
			for k := 0; k < n; k += 8 {
				v = append(v, math.Float64frombits(le.Uint64(b[k:])))
			}
		case "Int32":
			for k := 0; k < n; k += 4 {
				v = append(v, float64(int32(le.Uint32(b[k:]))))
			}
		case "UInt8":
			for _, x := range b {
				v = append(v, float64(x))
			}
		default:
			t.Fatalf("%s: type %s", a.Name, a.Type)
		}
		return v
	}
	pd := map[string][]float64{}
	for _, a := range doc.Piece.Data {
		pd[a.Name] = read(a)
	}
	checkPointData(t, "VTU", pd, p)
	if len(doc.Piece.Pts) != 1 || doc.Piece.Pts[0].Components != 3 || !slices.Equal(read(doc.Piece.Pts[0]), p.Positions) {
		t.Error("points differ")
	}
	cells := map[string][]float64{}
	for _, a := range doc.Piece.Cell {
		cells[a.Name] = read(a)
	}
	for i, v := range p.Tets {
		if cells["connectivity"][i] != float64(v) {
			t.Fatalf("connectivity[%d] = %v, want %d", i, cells["connectivity"][i], v)
		}
	}
	for c := range p.NumTets() {
		if cells["offsets"][c] != float64(4*c+4) || cells["types"][c] != 10 {
			t.Fatalf("cell %d: offset %v, type %v", c, cells["offsets"][c], cells["types"][c])
		}
	}
	if !bytes.HasSuffix(data, []byte("\n  </AppendedData>\n</VTKFile>\n")) {
		t.Error("appended data not closed")
	}
}

func TestWriteOBJ(t *testing.T) {
	const n, h = 3, 0.1
	p := exportMesh()
	var buf bytes.Buffer
	if err := WriteOBJ(&buf, p); err != nil {
		t.Fatal(err)
	}
	var verts []float64
	var faces [][3]int
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		f := strings.Fields(line)
		switch f[0] {
		case "#":
		case "v":
			for _, s := range f[1:] {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				verts = append(verts, x)
			}
		case "f":
			var tri [3]int
			for k, s := range f[1:] {
				i, err := strconv.Atoi(s)
				if err != nil || i < 1 || 3*i > len(verts) {
					t.Fatalf("face %q", line)
				}
				tri[k] = i - 1
			}
			faces = append(faces, tri)
		default:
			t.Fatalf("OBJ line %q", line)
		}
	}
	if len(faces) != p.NumBoundary() || len(verts) != 3*(6*n*n+2) {
		t.Fatalf("%d faces, %d vertices; want %d, %d (a box of %d² squares a side)", len(faces), len(verts)/3, p.NumBoundary(), 6*n*n+2, n)
	}
	// The same triangles as the .pfm's, by position.
	edges := map[[2]int]int{}
	volume := 0.0
	for i, f := range faces {
		for k := range 3 {
			if got, want := geom.At(verts, int32(f[k])), geom.At(p.Positions, p.Boundary[3*i+k]); got != want {
				t.Fatalf("face %d vertex %d at %v, want %v", i, k, got, want)
			}
			edges[[2]int{f[k], f[(k+1)%3]}]++
		}
		a, b, c := geom.At(verts, int32(f[0])), geom.At(verts, int32(f[1])), geom.At(verts, int32(f[2]))
		volume += geom.Dot(a, geom.Cross(b, c)) / 6
	}
	// Closed and consistently oriented: each edge once each way.
	for e, k := range edges {
		if k != 1 || edges[[2]int{e[1], e[0]}] != 1 {
			t.Fatalf("edge %v used %d times, reverse %d", e, k, edges[[2]int{e[1], e[0]}])
		}
	}
	// Outward: the divergence theorem gives the box's volume.
	if want := math.Pow(n*h, 3); math.Abs(volume-want) > 1e-12 {
		t.Errorf("enclosed volume %v, want %v", volume, want)
	}
}

func TestExport(t *testing.T) {
	dir := t.TempDir()
	p := exportMesh()
	for _, name := range []string{"m.vtk", "m.VTU", "m.obj"} {
		if err := Export(filepath.Join(dir, name), p); err != nil {
			t.Error(err)
		}
	}
	if err := Export(filepath.Join(dir, "m.stl"), p); err == nil || !strings.Contains(err.Error(), "m.stl") {
		t.Errorf("unknown extension: err = %v", err)
	}
	bad := exportMesh()
	bad.Tets[1], bad.Tets[2] = bad.Tets[2], bad.Tets[1]
	if err := Export(filepath.Join(dir, "bad.vtk"), bad); !errors.Is(err, ErrPFMInvalid) {
		t.Errorf("inverted tet: err = %v, want ErrPFMInvalid", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d files left, want 3", len(entries))
	}
}

// TestExportVTKLibrary reads the exports with VTK's own readers — those
// ParaView uses, and vtkUnstructuredGridReader, which Drake's loader calls
// — when a Python with the vtk module is around (python3-vtk9; not needed
// otherwise).
func TestExportVTKLibrary(t *testing.T) {
	py := ""
	for _, c := range append([]string{"python3"}, strings.Fields(os.Getenv("PFMESH_PYTHON"))...) {
		if exec.Command(c, "-c", "import vtk").Run() == nil {
			py = c
			break
		}
	}
	if py == "" {
		t.Skip("no python with the vtk module")
	}
	dir := t.TempDir()
	p := exportMesh()
	for _, name := range []string{"m.vtk", "m.vtu"} {
		if err := Export(filepath.Join(dir, name), p); err != nil {
			t.Fatal(err)
		}
	}
	const script = `
import sys, vtk
for path, reader in ((sys.argv[1], vtk.vtkUnstructuredGridReader()), (sys.argv[2], vtk.vtkXMLUnstructuredGridReader())):
    reader.SetFileName(path)
    reader.Update()
    g = reader.GetOutput()
    pd = g.GetPointData()
    names = sorted(pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays()))
    types = {g.GetCellType(i) for i in range(g.GetNumberOfCells())}
    neg = 0
    for c in range(g.GetNumberOfCells()):
        ids = g.GetCell(c).GetPointIds()
        a, b, cc, d = (g.GetPoint(ids.GetId(k)) for k in range(4))
        u = [b[k] - a[k] for k in range(3)]; v = [cc[k] - a[k] for k in range(3)]; w = [d[k] - a[k] for k in range(3)]
        vol = w[0] * (u[1] * v[2] - u[2] * v[1]) + w[1] * (u[2] * v[0] - u[0] * v[2]) + w[2] * (u[0] * v[1] - u[1] * v[0])
        neg += vol <= 0
    print(g.GetNumberOfPoints(), g.GetNumberOfCells(), sorted(types), neg, ",".join(names),
          " ".join(repr(float(pd.GetArray(a).GetValue(21))) for a in ("extent", "pressure", "tag")), repr(g.GetPoint(21)[0]))
`
	out, err := exec.Command(py, "-c", script, filepath.Join(dir, "m.vtk"), filepath.Join(dir, "m.vtu")).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Python prints floats as repr does: shortest round trip, always with
	// a point or exponent, as Go's 'g' format does after adding ".0".
	pyFloat := func(x float64) string {
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	}
	want := strconv.Itoa(p.NumVertices()) + " " + strconv.Itoa(p.NumTets()) + " [10] 0 extent,extent_gradient,pressure,tag " +
		pyFloat(p.Epsilon[21]) + " " + pyFloat(p.Pressure(p.Epsilon[21])) + " " + pyFloat(float64(p.Tags[21])) + " " + pyFloat(p.Positions[63])
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != want {
			t.Errorf("VTK read %q, want %q", line, want)
		}
	}
}
