package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

const pfmDoc = "../docs/pfm.md"

// TestPFMDocHexDump checks that the worked example in docs/pfm.md is the
// Go writer's output for oneTet, annotated field by field from the bytes.
// PFMESH_UPDATE_DOC=1 rewrites the example instead.
func TestPFMDocHexDump(t *testing.T) {
	data := encode(t, oneTet(), WriteOptions{})
	dump := annotatedDump(t, data)
	doc, err := os.ReadFile(pfmDoc)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- hexdump:begin -->\n", "<!-- hexdump:end -->"
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s: no hexdump markers", pfmDoc)
	}
	block := "```\n" + dump + "```\n"
	if os.Getenv("PFMESH_UPDATE_DOC") == "1" {
		out := append(append(bytes.Clone(doc[:i+len(begin)]), block...), doc[j:]...)
		if err := os.WriteFile(pfmDoc, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := string(doc[i+len(begin) : j]); got != block {
		t.Errorf("%s: the worked example differs from the writer's output; run with PFMESH_UPDATE_DOC=1\nwant:\n%s", pfmDoc, block)
	}
	// The dump's bytes, read back from the text alone, are the file.
	var back []byte
	for _, line := range strings.Split(strings.Trim(dump, "\n"), "\n") {
		hex, _, _ := strings.Cut(line, "|")
		fields := strings.Fields(hex)
		var off int
		fmt.Sscanf(fields[0], "%x", &off)
		if off != len(back) {
			t.Fatalf("dump line at %#x, want %#x", off, len(back))
		}
		for _, f := range fields[1:] {
			var b byte
			fmt.Sscanf(f, "%02x", &b)
			back = append(back, b)
		}
	}
	if !bytes.Equal(back, data) {
		t.Error("the dump's bytes are not the file")
	}
}

// annotatedDump prints data, a valid file, one field or array element per
// line, each with what it means.
func annotatedDump(t *testing.T, data []byte) string {
	le := binary.LittleEndian
	l, err := parsePFMLayout(data)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	off := 0
	row := func(n int, format string, args ...any) {
		hex := make([]string, n)
		for i := range n {
			hex[i] = fmt.Sprintf("%02x", data[off+i])
		}
		fmt.Fprintf(&sb, "%04x  %-71s | %s\n", off, strings.Join(hex, " "), fmt.Sprintf(format, args...))
		off += n
	}
	f64 := func(at int) float64 { return math.Float64frombits(le.Uint64(data[at:])) }
	row(8, "magic")
	row(2, "major version %d", le.Uint16(data[off:]))
	row(2, "minor version %d", le.Uint16(data[off:]))
	row(4, "header CRC-32C of bytes 0x0–0xb and 0x10–0x%x", l.tableEnd-1)
	row(4, "header size %d", le.Uint32(data[off:]))
	row(4, "section count %d", le.Uint32(data[off:]))
	row(8, "vertex count %d", le.Uint64(data[off:]))
	row(8, "tet count %d", le.Uint64(data[off:]))
	row(8, "boundary triangle count %d", le.Uint64(data[off:]))
	row(4, "encoding %d (f64)", le.Uint32(data[off:]))
	row(4, "pressure mapping %d (log)", le.Uint32(data[off:]))
	for _, name := range []string{"modulus E, Pa", "pressure cap, Pa", "dissipation, s/m", "friction", "length unit, m"} {
		row(8, "%s = %v", name, f64(off))
	}
	for _, name := range []string{"bbox min x", "min y", "min z", "max x", "max y", "max z"} {
		row(8, "%s = %v", name, f64(off))
	}
	row(16, "SHA-256 of the source (unknown: zeros)")
	row(16, "(SHA-256 continued)")
	for _, s := range l.sections {
		row(24, "section %d (%v): CRC 0x%08x, offset %#x, length %d", s.id, s.id, s.crc, s.offset, s.length)
	}
	for _, s := range l.sections {
		if off != int(s.offset) {
			t.Fatalf("section %v at %#x, want it next at %#x", s.id, s.offset, off)
		}
		switch s.id {
		case SectionPositions, SectionGradient:
			for v := range int(s.length / 24) {
				row(24, "%v %d: %v %v %v", s.id, v, f64(off), f64(off+8), f64(off+16))
			}
		case SectionTets:
			row(16, "tet 0: vertices %d %d %d %d", le.Uint32(data[off:]), le.Uint32(data[off+4:]), le.Uint32(data[off+8:]), le.Uint32(data[off+12:]))
		case SectionEpsilon:
			for v := range int(s.length / 8) {
				row(8, "ε %d = %v", v, f64(off))
			}
		case SectionTags:
			row(int(s.length), "tags %v", data[off:off+int(s.length)])
		case SectionBoundary:
			for range int(s.length / 4) {
				ref := le.Uint32(data[off:])
				f, r := tetmesh.TetFaces[ref&3], int(ref>>2&3)
				tet := sectionOf(t, data, SectionTets)[16*(ref>>4):]
				v := func(k int) uint32 { return le.Uint32(tet[4*f[(r+k)%3]:]) }
				row(4, "face ref %#x: tet %d, face %d, rotation %d: triangle %d %d %d", ref, ref>>4, ref&3, r, v(0), v(1), v(2))
			}
		case SectionBuildParams:
			row(int(s.length), "%s", data[off:off+int(s.length)])
		default:
			t.Fatalf("section %v not annotated", s.id)
		}
		if pad := -off & 7; pad > 0 && off < len(data) {
			row(pad, "padding")
		}
	}
	if off != len(data) {
		t.Fatalf("dump ends at %#x of %#x", off, len(data))
	}
	return sb.String()
}

// TestPFMCRCVector checks the CRC against the published check value of
// CRC-32C.
func TestPFMCRCVector(t *testing.T) {
	if got := pfmCRC([]byte("123456789")); got != 0xe3069283 {
		t.Errorf("CRC-32C(123456789) = %#x, want 0xe3069283", got)
	}
}
