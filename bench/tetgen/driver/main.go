// Command driver is the pfmesh side of bench/tetgen/run.sh. It reads a
// surface (format.Clean applied) and
//
//	driver mesh IN [-q B] [-a V] [-merge-coplanar] [-runs N] [-stages] [-hash] [-cpuprofile F]
//	                                  meshes it with tetgen.Build and prints
//	                                  "tets seconds min_dihedral" (median of N runs);
//	                                  -merge-coplanar sets Options.MergeCoplanar,
//	                                  -stages adds the last run's stage times and
//	                                  whether refinement reached the shape-vertex
//	                                  cap on stderr, -hash appends a digest of the
//	                                  mesh that ignores vertex and tet numbering
//	                                  (to check that a change keeps the meshes),
//	                                  -cpuprofile writes a CPU profile
//	driver convert IN PREFIX          writes it as PREFIX.smesh (TetGen) and
//	                                  PREFIX.stl (gmsh): all mesh the same triangles
//	driver quality PREFIX             reads TetGen's PREFIX.node and PREFIX.ele
//	                                  (or gmsh's PREFIX if it ends in .msh, MSH
//	                                  2 ASCII) and prints "tets min_dihedral"
//	driver sphere N OUT               writes an icosphere of subdivision level N
//	                                  as OUT (.stl), the benchmark's sphere
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pfmesh/pfmesh/fixtures"
	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/atomicfile"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/tetgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return errors.New("usage: driver mesh|convert|quality|sphere ...")
	}
	switch args[0] {
	case "mesh":
		fs := flag.NewFlagSet("mesh", flag.ContinueOnError)
		q := fs.Float64("q", 0, "radius-edge bound (0: tetgen's default 2)")
		a := fs.Float64("a", 0, "largest tet volume (0: none)")
		merge := fs.Bool("merge-coplanar", false, "mesh coplanar input triangles as one facet (Options.MergeCoplanar)")
		runs := fs.Int("runs", 1, "runs; the median time is printed")
		stages := fs.Bool("stages", false, "print the last run's stage times on stderr")
		hash := fs.Bool("hash", false, "append a digest of the mesh, independent of vertex and tet numbering")
		prof := fs.String("cpuprofile", "", "write a CPU profile of the runs to this file")
		if err := fs.Parse(args[2:]); err != nil {
			return err
		}
		s, err := read(args[1])
		if err != nil {
			return err
		}
		if *prof != "" {
			f, err := os.Create(*prof)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		var secs []float64
		var m *tetgen.Mesh
		var rep *tetgen.Report
		for range *runs {
			m, rep = nil, nil // so the peak memory is one run's, not two meshes'
			t0 := time.Now()
			if m, rep, err = tetgen.Build(s, tetgen.Options{Quality: *q, MaxVolume: *a, MergeCoplanar: *merge}); err != nil {
				return err
			}
			secs = append(secs, time.Since(t0).Seconds())
		}
		if *stages {
			for _, st := range rep.Timings {
				fmt.Fprintf(os.Stderr, "%-20s %7.3f s\n", st.Stage, st.Seconds)
			}
			fmt.Fprintf(os.Stderr, "%-20s %7v\n", "quality capped", rep.QualityCapped)
		}
		slices.Sort(secs)
		// Build's report measured the mesh with tetmesh.MeasureQuality,
		// as quality does TetGen's: no second pass over a million tets.
		fmt.Printf("%d %.3f %.3f", m.NumTets(), secs[len(secs)/2], rep.Quality.MinDihedral)
		if *hash {
			fmt.Printf(" %x", digest(m))
		}
		fmt.Println()
	case "convert":
		if len(args) != 3 {
			return errors.New("usage: driver convert IN PREFIX")
		}
		s, err := read(args[1])
		if err != nil {
			return err
		}
		if err := atomicfile.Write(args[2]+".smesh", func(w io.Writer) error { return writeSmesh(w, s) }); err != nil {
			return err
		}
		return os.WriteFile(args[2]+".stl", fixtures.BinarySTL(s, "pfmesh bench"), 0o644)
	case "quality":
		read := readTetGen
		if strings.HasSuffix(args[1], ".msh") {
			read = readMSH2
		}
		m, err := read(args[1])
		if err != nil {
			return err
		}
		fmt.Printf("%d %.3f\n", m.NumTets(), tetmesh.MeasureQuality(m).MinDihedral)
	case "sphere":
		if len(args) != 3 {
			return errors.New("usage: driver sphere LEVEL OUT")
		}
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 0 || n > 8 {
			return fmt.Errorf("sphere level %q: want 0..8", args[1])
		}
		data := fixtures.BinarySTL(shapes.Icosphere(1, n), "icosphere")
		return os.WriteFile(args[2], data, 0o644)
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	return nil
}

// digest hashes m as a set of tets, each a sorted list of its corners'
// coordinates and tags, so that two meshes differing only in how their
// vertices and tets are numbered get the same digest.
func digest(m *tetgen.Mesh) [sha256.Size]byte {
	const corner = 3*8 + 1
	tets := make([][4 * corner]byte, m.NumTets())
	for t := range tets {
		var cs [4][corner]byte
		for k := range 4 {
			v := m.Tets[4*t+k]
			for d := range 3 {
				binary.BigEndian.PutUint64(cs[k][8*d:], math.Float64bits(m.Positions[3*int(v)+d]))
			}
			cs[k][24] = byte(m.Tags[v])
		}
		slices.SortFunc(cs[:], func(a, b [corner]byte) int { return bytes.Compare(a[:], b[:]) })
		for k := range 4 {
			copy(tets[t][k*corner:], cs[k][:])
		}
	}
	slices.SortFunc(tets, func(a, b [4 * corner]byte) int { return bytes.Compare(a[:], b[:]) })
	h := sha256.New()
	for _, t := range tets {
		h.Write(t[:])
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

func read(path string) (*format.Surface, error) {
	s, err := format.ReadSurface(path, format.ReadOptions{})
	if err != nil {
		return nil, err
	}
	s, _ = format.Clean(s, format.CleanOptions{})
	return s, nil
}

func writeSmesh(out io.Writer, s *format.Surface) error {
	w := bufio.NewWriter(out)
	fmt.Fprintf(w, "%d 3 0 0\n", s.NumVertices())
	for i := 0; i < s.NumVertices(); i++ {
		fmt.Fprintf(w, "%d %.17g %.17g %.17g\n", i, s.Positions[3*i], s.Positions[3*i+1], s.Positions[3*i+2])
	}
	fmt.Fprintf(w, "%d 0\n", s.NumTriangles())
	for i := 0; i < s.NumTriangles(); i++ {
		fmt.Fprintf(w, "3 %d %d %d\n", s.Triangles[3*i], s.Triangles[3*i+1], s.Triangles[3*i+2])
	}
	fmt.Fprintf(w, "0\n0\n")
	return w.Flush()
}

// readTetGen reads TetGen's PREFIX.node and PREFIX.ele (0- or 1-based).
func readTetGen(prefix string) (*tetmesh.Mesh, error) {
	nodes, err := records(prefix + ".node")
	if err != nil {
		return nil, err
	}
	eles, err := records(prefix + ".ele")
	if err != nil {
		return nil, err
	}
	m := &tetmesh.Mesh{}
	base := -1
	for _, r := range nodes {
		if len(r) < 4 {
			return nil, fmt.Errorf("%s.node: short record %v", prefix, r)
		}
		if base < 0 {
			base = int(r[0])
		}
		m.Positions = append(m.Positions, r[1], r[2], r[3])
	}
	for _, r := range eles {
		if len(r) < 5 {
			return nil, fmt.Errorf("%s.ele: short record %v", prefix, r)
		}
		for _, x := range r[1:5] {
			m.Tets = append(m.Tets, int32(int(x)-base))
		}
	}
	m.Tags = make([]tetmesh.Tag, len(m.Positions)/3)
	return m, nil
}

// readMSH2 reads the nodes and 4-node tetrahedra (element type 4) of a
// gmsh MSH 2 ASCII file; other elements (its surface triangles) are left.
func readMSH2(path string) (*tetmesh.Mesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	m := &tetmesh.Mesh{}
	index := map[int]int32{} // node number → vertex
	section := ""
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0:
			continue
		case strings.HasPrefix(fields[0], "$"):
			section = strings.TrimPrefix(fields[0], "$")
			continue
		case len(fields) == 1: // a section's count
			continue
		}
		nums := make([]float64, len(fields))
		for i, x := range fields {
			if nums[i], err = strconv.ParseFloat(x, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
		}
		switch section {
		case "MeshFormat":
			if nums[0] >= 3 || nums[1] != 0 {
				return nil, fmt.Errorf("%s: MSH %s, file type %s: want version 2 ASCII", path, fields[0], fields[1])
			}
		case "Nodes":
			if len(nums) < 4 {
				return nil, fmt.Errorf("%s:%d: short node", path, line)
			}
			index[int(nums[0])] = int32(len(m.Positions) / 3)
			m.Positions = append(m.Positions, nums[1], nums[2], nums[3])
		case "Elements":
			if len(nums) < 3 || nums[1] != 4 {
				continue
			}
			corners := nums[3+int(nums[2]):]
			if len(corners) != 4 {
				return nil, fmt.Errorf("%s:%d: a tetrahedron with %d nodes", path, line, len(corners))
			}
			for _, x := range corners {
				v, ok := index[int(x)]
				if !ok {
					return nil, fmt.Errorf("%s:%d: no node %v", path, line, x)
				}
				m.Tets = append(m.Tets, v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	m.Tags = make([]tetmesh.Tag, len(m.Positions)/3)
	return m, nil
}

// records returns the numeric lines of a TetGen file after its header.
func records(path string) ([][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]float64
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if header {
			header = false
			continue
		}
		r := make([]float64, len(fields))
		for i, x := range fields {
			if r[i], err = strconv.ParseFloat(x, 64); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		out = append(out, r)
	}
	return out, sc.Err()
}
