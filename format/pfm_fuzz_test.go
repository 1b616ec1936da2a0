package format

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadPFM feeds the .pfm decoder arbitrary bytes, seeded with valid
// files. CRCs are skipped so mutations reach the checks behind them
// (mutated seeds would almost never pass a CRC). The decoder must not
// panic, and whatever it accepts must be a valid mesh that can be written
// again.
func FuzzReadPFM(f *testing.F) {
	small := gridPFM(1, 1)
	small.BVH = NewBVH(small.Positions, small.Tets, 2)
	for _, s := range []struct {
		p   *PFM
		opt WriteOptions
	}{
		{oneTet(), WriteOptions{}},
		{oneTet(), WriteOptions{Float32: true}},
		{small, WriteOptions{}},
		{gridPFM(2, 0.5), WriteOptions{Float32: true}},
	} {
		f.Add(encode(f, s.p, s.opt))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := pfmDecode(data, pfmDecodeOptions{skipCRC: true})
		if err != nil {
			return
		}
		if err := p.validate(); err != nil {
			t.Fatalf("decoded an invalid mesh: %v", err)
		}
		if _, err := pfmDecode(data, pfmDecodeOptions{}); err != nil {
			return // the CRCs fail; nothing more to check
		}
		path := filepath.Join(t.TempDir(), "f.pfm")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPFM(path); err != nil {
			t.Fatalf("pfmDecode accepts, ReadPFM refuses: %v", err)
		}
		if _, err := InspectPFM(path); err != nil {
			t.Fatalf("ReadPFM accepts, InspectPFM refuses: %v", err)
		}
	})
}
