package format

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The C (format/c/pfm.h) and Python (format/python/pfm.py) readers are
// run on files the Go writer produced; their dumps of every value must
// equal what ReadPFM returns, and they must refuse damaged files with a
// message saying why. Without cc or python3 the tests skip, unless
// PFMESH_REQUIRE_READERS=1 (as in CI), when they fail.

// needTool returns the path of tool, or skips (fails under
// PFMESH_REQUIRE_READERS=1) when it is missing.
func needTool(t *testing.T, tool string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("PFMESH_REQUIRE_READERS") == "1" {
			t.Fatalf("%s not found, and PFMESH_REQUIRE_READERS=1", tool)
		}
		t.Skipf("%s not found", tool)
	}
	return path
}

type readerFixture struct {
	name string
	p    *PFM
	opt  WriteOptions
}

func readerFixtures() []readerFixture {
	plain := gridPFM(4, 0.25)
	plain.BVH, plain.BuildParams, plain.BuildReport = nil, nil, nil
	logMap := gridPFM(3, 0.1)
	logMap.Mapping, logMap.PressureCap = Log, 3e5 // knee at ε ≈ 0.86: the tangent line is exercised
	return []readerFixture{
		{"one-tet", oneTet(), WriteOptions{}},
		{"one-tet-f32", oneTet(), WriteOptions{Float32: true}},
		{"grid-log-bvh", logMap, WriteOptions{}},
		{"grid-log-bvh-f32", logMap, WriteOptions{Float32: true}},
		{"grid-plain", plain, WriteOptions{}},
		{"ball-f32", ballPFM(8, 0.01), WriteOptions{Float32: true}},
	}
}

// damagedFixtures returns broken files, each with a word the reader's
// message must contain.
func damagedFixtures(t *testing.T) []struct {
	name, want string
	data       []byte
} {
	le := binary.LittleEndian
	base := encode(t, gridPFM(2, 0.5), WriteOptions{})
	damage := func(crc bool, f func(d []byte)) []byte {
		d := bytes.Clone(base)
		f(d)
		if !crc {
			refix(d)
		}
		return d
	}
	coplanar := encode(t, oneTet(), WriteOptions{})
	q := coplanarQuad(t)
	pos := sectionOf(t, coplanar, SectionPositions)
	for i, v := range q {
		le.PutUint64(pos[8*i:], math.Float64bits(v))
	}
	refix(coplanar)
	// A BVH too deep for a 64-entry traversal stack, in an otherwise valid
	// file: the writer would refuse it, so it is laid out here.
	deep := gridPFM(3, 1)
	deep.BVH = nil
	plain := encode(t, deep, WriteOptions{})
	l, err := parsePFMLayout(plain)
	if err != nil {
		t.Fatal(err)
	}
	var secs []pfmSection
	var payload [][]byte
	for _, s := range l.sections {
		secs, payload = append(secs, s), append(payload, plain[s.offset:s.offset+s.length])
	}
	cat := caterpillarBVH(deep.NumTets(), 64, []float64{0, 0, 0, 3, 3, 3})
	secs = append(secs, pfmSection{id: SectionBVHBounds}, pfmSection{id: SectionBVHNodes}, pfmSection{id: SectionBVHItems})
	payload = append(payload, pfmLEBytes(cat.Bounds), pfmLEBytes(cat.Nodes), pfmLEBytes(cat.Items))
	tooDeep := assemble(plain[:pfmHeaderSize], secs, payload)
	return []struct {
		name, want string
		data       []byte
	}{
		{"truncated", "truncated", base[:len(base)/2]},
		{"magic", "magic", damage(false, func(d []byte) { d[2] = 'X' })},
		{"version", "version", damage(false, func(d []byte) { le.PutUint16(d[8:], 2) })},
		{"crc", "crc", damage(true, func(d []byte) { sectionOf(t, d, SectionTets)[5] ^= 4 })},
		{"counts", "", damage(false, func(d []byte) { le.PutUint64(d[pfmOffVertices:], 1<<40) })},
		{"index", "range", damage(false, func(d []byte) { le.PutUint32(sectionOf(t, d, SectionTets)[8:], 27) })},
		{"inverted", "positive", damage(false, func(d []byte) {
			tets := sectionOf(t, d, SectionTets)
			a, b := le.Uint32(tets[4:]), le.Uint32(tets[8:])
			le.PutUint32(tets[4:], b)
			le.PutUint32(tets[8:], a)
		})},
		{"nan", "finite", damage(false, func(d []byte) {
			le.PutUint64(sectionOf(t, d, SectionPositions)[16:], math.Float64bits(math.NaN()))
		})},
		{"epsilon", "epsilon", damage(false, func(d []byte) {
			le.PutUint64(sectionOf(t, d, SectionEpsilon)[16:], math.Float64bits(-0.5))
		})},
		{"tag", "tag", damage(false, func(d []byte) { sectionOf(t, d, SectionTags)[4] = 9 })},
		{"bvh", "bvh", damage(false, func(d []byte) { le.PutUint32(sectionOf(t, d, SectionBVHNodes)[0:], 0) })},
		{"boundary", "face reference", damage(false, func(d []byte) {
			le.PutUint32(sectionOf(t, d, SectionBoundary)[0:], 16*48)
		})},
		{"bbox", "bounding box", damage(false, func(d []byte) { le.PutUint64(d[pfmOffBBox:], math.Float64bits(-1)) })},
		{"coplanar", "positive", coplanar},
		{"bvh-depth", "deeper", tooDeep},
	}
}

// checkReader runs a reader (argv, the files appended) on every fixture,
// then on every damaged file, each batch in one process.
func checkReader(t *testing.T, argv []string, env []string) {
	dir := t.TempDir()
	run := func(paths []string) (sections map[string]string, stderr string, err error) {
		cmd := exec.Command(argv[0], append(argv[1:], paths...)...)
		cmd.Env = append(os.Environ(), env...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err = cmd.Run()
		sections = map[string]string{}
		path := ""
		for _, line := range strings.SplitAfter(o.String(), "\n") {
			if p, ok := strings.CutPrefix(line, "file "); ok {
				path = strings.TrimSuffix(p, "\n")
				continue
			}
			sections[path] += line
		}
		return sections, e.String(), err
	}
	var paths []string
	want := map[string]*PFM{}
	f32 := map[string]bool{}
	for _, f := range readerFixtures() {
		path := filepath.Join(dir, f.name+".pfm")
		if err := WritePFM(path, f.p, f.opt); err != nil {
			t.Fatal(err)
		}
		p, err := ReadPFM(path)
		if err != nil {
			t.Fatal(err)
		}
		paths, want[path], f32[path] = append(paths, path), p, f.opt.Float32
	}
	out, stderr, err := run(paths)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, path := range paths {
		compareDump(t, filepath.Base(path), out[path], want[path], f32[path])
	}

	paths = paths[:0]
	words := map[string]string{}
	for _, d := range damagedFixtures(t) {
		if _, err := pfmDecode(d.data, pfmDecodeOptions{}); err == nil {
			t.Errorf("damaged %s: the Go reader accepts it", d.name)
		}
		path := filepath.Join(dir, "bad-"+d.name+".pfm")
		if err := os.WriteFile(path, d.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths, words[path] = append(paths, path), d.want
	}
	out, stderr, err = run(paths)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("damaged files: exit %v, want 1", err)
	}
	if n := strings.Count(stderr, "\n"); n != len(paths) {
		t.Errorf("%d lines on stderr for %d damaged files:\n%s", n, len(paths), stderr)
	}
	for _, path := range paths {
		msg, ok := strings.CutPrefix(out[path], "error ")
		if !ok || !strings.Contains(strings.ToLower(msg), words[path]) || !strings.HasPrefix(msg, path+": ") || strings.Count(msg, "\n") != 1 {
			t.Errorf("%s: %q, want one error line naming the file and %q", filepath.Base(path), out[path], words[path])
		}
	}
}

// compareDump compares a reader's dump (pfm_dump.c, pfm.py --dump) with
// ReadPFM's values: exactly, except the pressures, which go through each
// language's exp and log1p.
func compareDump(t *testing.T, name, dump string, p *PFM, f32 bool) {
	t.Helper()
	lines := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(dump), "\n") {
		f := strings.Fields(line)
		lines[f[0]] = f[1:]
	}
	floats := func(key string) []float64 {
		var v []float64
		for _, s := range lines[key] {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, key, err)
			}
			v = append(v, x)
		}
		return v
	}
	str := func(key string, want any) {
		got := strings.Join(lines[key], " ")
		if w := strings.Trim(fmt.Sprint(want), "[]"); got != w {
			t.Errorf("%s: %s = %.80q, want %.80q", name, key, got, w)
		}
	}
	same := func(key string, want []float64) {
		got := floats(key)
		if len(got) != len(want) {
			t.Errorf("%s: %s has %d values, want %d", name, key, len(got), len(want))
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: %s[%d] = %v, want %v", name, key, i, got[i], want[i])
				return
			}
		}
	}
	h := &p.Header
	if want := map[bool]string{false: "0", true: "1"}[f32]; strings.Join(lines["float32"], "") != want {
		t.Errorf("%s: float32 = %v, want %s", name, lines["float32"], want)
	}
	str("version", []uint16{h.Major, h.Minor})
	str("counts", []int{p.NumVertices(), p.NumTets(), p.NumBoundary()})
	str("mapping", h.Mapping)
	same("constants", []float64{h.Modulus, h.PressureCap, h.Dissipation, h.Friction, h.LengthUnit})
	same("bbox", h.BBox[:])
	str("sha256", hex.EncodeToString(h.SourceSHA256[:]))
	same("positions", p.Positions)
	str("tets", p.Tets)
	same("epsilon", p.Epsilon)
	same("gradient", p.Gradient)
	str("tags", p.Tags)
	str("boundary", p.Boundary)
	str("build_params", hex.EncodeToString(p.BuildParams))
	str("build_report", hex.EncodeToString(p.BuildReport))
	if p.BVH != nil {
		same("bvh_bounds", p.BVH.Bounds)
		str("bvh_nodes", p.BVH.Nodes)
		str("bvh_items", p.BVH.Items)
	} else if _, ok := lines["bvh_nodes"]; ok {
		t.Errorf("%s: a BVH where the file has none", name)
	}
	pr := floats("pressure")
	if len(pr) != 14 {
		t.Fatalf("%s: %d pressure values, want 7 pairs", name, len(pr))
	}
	for i := 0; i < len(pr); i += 2 {
		if want := h.Pressure(pr[i]); math.Abs(pr[i+1]-want) > 1e-14*math.Abs(want) {
			t.Errorf("%s: pressure(%v) = %v, want %v", name, pr[i], pr[i+1], want)
		}
	}
}

func TestCReader(t *testing.T) {
	cc := needTool(t, "cc")
	bin := filepath.Join(t.TempDir(), "pfm_dump")
	flags := []string{"-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror", "-o", bin, "c/pfm_dump.c", "-lm"}
	// With the sanitizers where the toolchain has them: no read past a
	// buffer, no leak, no undefined behaviour on any input.
	san := append([]string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g"}, flags...)
	if out, err := exec.Command(cc, san...).CombinedOutput(); err != nil {
		t.Logf("building without sanitizers: %s", out)
		if out, err := exec.Command(cc, flags...).CombinedOutput(); err != nil {
			t.Fatalf("cc: %v\n%s", err, out)
		}
	}
	checkReader(t, []string{bin}, nil)
}

func TestPythonReader(t *testing.T) {
	py := needTool(t, "python3")
	interpreters := append([]string{py}, strings.Fields(os.Getenv("PFMESH_PYTHON"))...)
	for _, py := range interpreters {
		t.Run(py+"/stdlib", func(t *testing.T) {
			checkReader(t, []string{py, "python/pfm.py", "--dump"}, []string{"PFM_NO_NUMPY=1"})
		})
		if exec.Command(py, "-c", "import numpy").Run() == nil {
			t.Run(py+"/numpy", func(t *testing.T) {
				checkReader(t, []string{py, "python/pfm.py", "--dump"}, nil)
			})
		}
	}
}
