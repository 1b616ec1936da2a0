package format

import (
	"errors"
	"fmt"
)

// Kinds of bad surface input; a ParseError wraps one of these when it
// applies, so callers can test with errors.Is.
var (
	ErrEmpty         = errors.New("empty file")
	ErrUnknownFormat = errors.New("not a surface format pfmesh reads (STL, OBJ, OFF, PLY)")
	ErrTruncated     = errors.New("truncated")
	ErrSyntax        = errors.New("syntax error")
	ErrNonFinite     = errors.New("coordinate is NaN or infinite")
	ErrBadIndex      = errors.New("vertex index out of range")
	ErrNoTriangles   = errors.New("no triangles")
	ErrTooLarge      = errors.New("too large")
)

// ParseError describes bad surface input: which file, in which format,
// where (line for text formats, byte offset for binary ones) and what.
type ParseError struct {
	Name   string // file name as given to ReadSurface or DecodeSurface
	Format string // "binary STL", "ASCII STL", "OBJ", "OFF", "PLY", or "" before detection
	Line   int    // 1-based line of a text format; 0 when not known or binary
	Offset int64  // byte offset in a binary format; −1 when not known or text
	Err    error  // what is wrong; wraps one of the Err… values where one applies
}

func (e *ParseError) Error() string {
	where := e.Name
	if e.Format != "" {
		where += ": " + e.Format
	}
	switch {
	case e.Line > 0:
		where += fmt.Sprintf(" line %d", e.Line)
	case e.Offset >= 0:
		where += fmt.Sprintf(" at byte %d", e.Offset)
	}
	return where + ": " + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// kindError is a message that also matches a kind under errors.Is.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }

func (e *kindError) Unwrap() error { return e.kind }

// errorf formats a message that wraps kind for errors.Is; the message
// itself is the formatted text (it should say what kind means).
func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}
