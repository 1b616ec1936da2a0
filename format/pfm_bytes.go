package format

import (
	"math"
	"unsafe"
)

// .pfm arrays are little-endian and 8-byte aligned, so on a little-endian
// machine a file's bytes are used in place or copied in one move; other
// machines decode element by element.

var pfmNativeLE = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

type pfmElem interface {
	~float64 | ~float32 | ~int32 | ~uint32 | ~uint8
}

// pfmBytesOf views s's memory as bytes, without copying.
func pfmBytesOf[T pfmElem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// pfmLEBytes returns s as little-endian bytes: a view of s on a
// little-endian machine, a new buffer otherwise.
func pfmLEBytes[T pfmElem](s []T) []byte {
	b := pfmBytesOf(s)
	if pfmNativeLE || len(s) == 0 {
		return b
	}
	sz := int(unsafe.Sizeof(s[0]))
	out := make([]byte, len(b))
	for i := 0; i < len(b); i += sz {
		for k := range sz {
			out[i+k] = b[i+sz-1-k]
		}
	}
	return out
}

// pfmArray decodes little-endian b (len(b) a multiple of T's size) as a
// []T. With inPlace on a little-endian machine, and b aligned for T, the
// result aliases b.
func pfmArray[T pfmElem](b []byte, inPlace bool) []T {
	var z T
	sz := int(unsafe.Sizeof(z))
	n := len(b) / sz
	if n == 0 {
		return []T{}
	}
	if pfmNativeLE && inPlace && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(sz) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
	}
	out := make([]T, n)
	dst := pfmBytesOf(out)
	copy(dst, b)
	if !pfmNativeLE {
		for i := 0; i < len(dst); i += sz {
			for k := range sz / 2 {
				dst[i+k], dst[i+sz-1-k] = dst[i+sz-1-k], dst[i+k]
			}
		}
	}
	return out
}

// pfmWiden converts float32 values to float64.
func pfmWiden(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// pfmNarrow converts float64 values to the nearest float32.
func pfmNarrow(s []float64) []float32 {
	out := make([]float32, len(s))
	for i, v := range s {
		out[i] = float32(v)
	}
	return out
}

// pfmRoundOut returns the largest float32 value ≤ v (down) or the smallest
// ≥ v (up), as a float64, so a box widened this way still contains every
// point inside it after the point is rounded to float32.
func pfmRoundOut(v float64, up bool) float64 {
	f := float32(v)
	switch {
	case up && float64(f) < v:
		f = math.Nextafter32(f, float32(math.Inf(1)))
	case !up && float64(f) > v:
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return float64(f)
}
