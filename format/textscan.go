package format

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"unsafe"
)

// textScanner reads a text surface format line by line, and within a
// line field by field, without allocating per line: lines are slices of
// the bufio buffer, valid until the next call to nextLine.
type textScanner struct {
	r    *bufio.Reader
	line int    // 1-based number of the current line
	rest []byte // unread part of the current line
	long []byte // holds a line longer than the buffer
	eof  bool
	// consumed counts the bytes of the lines read so far, line endings
	// included: where binary data after a text header starts.
	consumed int64
}

func newTextScanner(r io.Reader) *textScanner {
	return &textScanner{r: bufio.NewReaderSize(r, 1<<16)}
}

// nextLine advances to the next line, dropping a UTF-8 byte order mark
// on the first and the line ending, and reports false at end of input.
func (s *textScanner) nextLine() (bool, error) {
	if s.eof {
		return false, nil
	}
	b, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = s.r.ReadSlice('\n')
			s.long = append(s.long, b...)
		}
		b = s.long
	}
	switch {
	case err == io.EOF:
		s.eof = true
		if len(b) == 0 {
			return false, nil
		}
	case err != nil:
		return false, err
	}
	s.line++
	s.consumed += int64(len(b))
	if s.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	s.rest = bytes.TrimRight(b, "\r\n")
	return true, nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

// field returns the next whitespace-separated field of the current line,
// or nil when the line has no more.
func (s *textScanner) field() []byte {
	b := s.rest
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !isSpace(b[j]) {
		j++
	}
	s.rest = b[j:]
	if i == j {
		return nil
	}
	return b[i:j]
}

// token returns the next field, moving on to later lines as needed; nil
// at end of input.
func (s *textScanner) token() ([]byte, error) {
	for {
		if f := s.field(); f != nil {
			return f, nil
		}
		ok, err := s.nextLine()
		if !ok || err != nil {
			return nil, err
		}
	}
}

// parseFloat parses a decimal number, rejecting NaN, infinities and
// values that overflow float64.
func parseFloat(b []byte) (float64, error) {
	if len(b) == 0 {
		return 0, errorf(ErrSyntax, "missing number")
	}
	// The string aliases b only for the duration of the call: ParseFloat
	// copies its input into any error it returns.
	x, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, errorf(ErrNonFinite, "coordinate %q is NaN or infinite", b)
	}
	if err != nil {
		return 0, errorf(ErrSyntax, "%q is not a number", b)
	}
	return x, nil
}

// parseInt parses a decimal integer that fits in int64.
func parseInt(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, errorf(ErrSyntax, "missing integer")
	}
	n, err := strconv.ParseInt(unsafe.String(&b[0], len(b)), 10, 64)
	if err != nil {
		return 0, errorf(ErrSyntax, "%q is not an integer", b)
	}
	return n, nil
}

// lineError returns a ParseError at the scanner's current line.
func (s *textScanner) lineError(format string, err error) *ParseError {
	return &ParseError{Format: format, Line: s.line, Offset: -1, Err: err}
}
