package fptest

import "testing"

func TestSame(t *testing.T) {
	if !Same(1, 1, 0) || Same(1, 1+0x1p-52, 0) {
		t.Error("Same with scale 0 is not bit equality")
	}
	if Same(1, 1+0x1p-52, 1) != Fused() {
		t.Error("Same ignores the tolerance of a fused build, or applies it to one that does not fuse")
	}
}
