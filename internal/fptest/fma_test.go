//go:build arm64 || (amd64 && amd64.v3)

package fptest

import "testing"

// Go fuses x*y + z on arm64 and, from GOAMD64=v3, on amd64.
func TestFusedHere(t *testing.T) {
	if !Fused() {
		t.Error("a build that fuses multiply-adds reports none")
	}
}
