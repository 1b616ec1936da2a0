package format

import (
	"fmt"
)

// OpenOptions controls OpenPFM.
type OpenOptions struct {
	// SkipCRC skips verifying the CRC-32C checksums, which otherwise read
	// every byte of the file. Use it only for files you wrote yourself
	// and trust not to be damaged; every structural and content check
	// still runs, so a damaged file can load with wrong values but never
	// with indices out of range, non-finite values or inverted tets.
	SkipCRC bool
}

// Mapped is a .pfm file opened with OpenPFM. On Linux its arrays point
// into a read-only mapping of the file: writing to them faults, and they
// must not be used after Close; and, as with any mapping, if another
// program truncates the file meanwhile, reading the lost part kills the
// process (SIGBUS). A file written with Float32 has its
// positions, ε and ∇ε decoded into ordinary memory instead; so does every
// file on systems without the mapping or that are not little-endian.
type Mapped struct {
	PFM
	mapping []byte // nil when nothing is mapped
}

// OpenPFM opens the .pfm file at path for reading, mapping it into
// memory where the system allows, and checks it as ReadPFM does (CRCs
// unless opt.SkipCRC). Call Close when done with the arrays.
func OpenPFM(path string, opt OpenOptions) (*Mapped, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, mapped, err := pfmMapFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, err := pfmDecode(data, pfmDecodeOptions{inPlace: true, skipCRC: opt.SkipCRC})
	if err != nil {
		if mapped {
			pfmUnmap(data)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m := &Mapped{PFM: *p}
	if mapped {
		m.mapping = data
	}
	return m, nil
}

// Close releases the mapping. The arrays must not be used afterwards.
func (m *Mapped) Close() error {
	if m.mapping == nil {
		return nil
	}
	err := pfmUnmap(m.mapping)
	m.mapping = nil
	m.PFM = PFM{}
	return err
}
