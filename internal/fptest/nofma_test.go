//go:build amd64 && !amd64.v3

package fptest

import "testing"

// Below GOAMD64=v3 there is no fused multiply-add instruction to use.
func TestNotFused(t *testing.T) {
	if Fused() {
		t.Error("a build without FMA instructions reports a fused multiply-add")
	}
}
