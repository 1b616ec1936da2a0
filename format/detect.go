package format

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
)

// SurfaceFormat names a surface file format.
type SurfaceFormat int

const (
	UnknownFormat SurfaceFormat = iota
	BinarySTL
	ASCIISTL
	OBJ
	OFF
	PLY
)

func (f SurfaceFormat) String() string {
	return [...]string{"unknown", "binary STL", "ASCII STL", "OBJ", "OFF", "PLY"}[f]
}

// detectHead is how many leading bytes DetectFormat looks at.
const detectHead = 512

// DetectFormat decides the format of a surface file from its first bytes
// (head, up to 512), its total size, and — only when the content leaves
// it open — its name's extension.
//
// The content decides first: a PLY magic line; an OFF header keyword; a
// binary STL whose header's triangle count matches the size exactly
// (even when its 80-byte comment begins with "solid", as many exporters
// write); text beginning with "solid" is ASCII STL; other text with OBJ
// statements is OBJ. Binary content that is none of these is taken for
// a damaged binary STL, so that its reader reports the size mismatch.
func DetectFormat(head []byte, size int64, name string) SurfaceFormat {
	text := looksText(head)
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	first := firstWord(t)
	// PLY and OFF headers are text even when the data after them is not.
	switch {
	case string(first) == "ply" && looksText(firstLine(t)):
		return PLY
	case isOFFKeyword(firstWord(skipComments(t))) && looksText(firstLine(skipComments(t))):
		return OFF
	case size >= stlHeaderSize && len(head) >= stlHeaderSize &&
		stlHeaderSize+stlTriangleSize*int64(binary.LittleEndian.Uint32(head[80:84])) == size:
		return BinarySTL
	case text && bytes.EqualFold(first, []byte("solid")):
		return ASCIISTL
	case text && looksOBJ(t):
		return OBJ
	case !text && size > 0:
		return BinarySTL
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".stl":
		return ASCIISTL
	case ".obj":
		return OBJ
	case ".off":
		return OFF
	case ".ply":
		return PLY
	}
	return UnknownFormat
}

// firstWord returns t up to its first whitespace.
func firstWord(t []byte) []byte {
	if i := bytes.IndexAny(t, " \t\r\n"); i >= 0 {
		return t[:i]
	}
	return t
}

// firstLine returns t up to its first line break.
func firstLine(t []byte) []byte {
	line, _, _ := bytes.Cut(t, []byte("\n"))
	return line
}

// skipComments drops leading blank lines and lines starting with "#".
func skipComments(t []byte) []byte {
	for {
		t = bytes.TrimLeft(t, " \t\r\n")
		if len(t) == 0 || t[0] != '#' {
			return t
		}
		i := bytes.IndexByte(t, '\n')
		if i < 0 {
			return nil
		}
		t = t[i:]
	}
}

// looksText reports whether b has no NUL and no control characters other
// than whitespace: binary STL bodies are full of both.
func looksText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' || c == 0x7f {
			return false
		}
	}
	return true
}

// isOFFKeyword reports whether b is OFF with optional prefixes (ST, C, N,
// 4, n) as Geomview defines them.
func isOFFKeyword(b []byte) bool {
	s, ok := strings.CutSuffix(string(b), "OFF")
	return ok && len(s) <= 5 && strings.Trim(s, "STCN4n") == ""
}

// looksOBJ reports whether some line of t begins with an OBJ statement.
func looksOBJ(t []byte) bool {
	for line := range bytes.Lines(t) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch string(f[0]) {
		case "v", "vt", "vn", "f", "o", "g", "s", "usemtl", "mtllib", "l", "vp":
			return true
		}
	}
	return false
}
