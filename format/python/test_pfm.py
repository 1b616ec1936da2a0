"""Unit tests of pfm.py that need no Go: the worked example in docs/pfm.md
is the fixture. (format/pfm_readers_test.go compares pfm.py with the Go
reader on many more files.) Run: python3 test_pfm.py; PFM_NO_NUMPY=1 forces
the standard-library path."""

import math
import os
import random
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pfm  # noqa: E402

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "pfm.md")


def doc_example():
    """The bytes of the worked example, read from the hex dump alone."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    block = text.split("<!-- hexdump:begin -->")[1].split("<!-- hexdump:end -->")[0]
    out = bytearray()
    for line in block.splitlines():
        if "|" not in line:
            continue
        fields = line.split("|")[0].split()
        assert int(fields[0], 16) == len(out), line
        out.extend(int(b, 16) for b in fields[1:])
    return bytes(out)


def flat(a):
    return a.ravel().tolist() if hasattr(a, "ravel") else list(a)


class TestPFM(unittest.TestCase):
    def test_crc_check_value(self):
        self.assertEqual(pfm.crc32c(b"123456789"), 0xE3069283)
        self.assertEqual(pfm.crc32c(b""), 0)

    def test_crc_lanes(self):
        # The numpy lane-parallel CRC against the byte-at-a-time one.
        rng = random.Random(1)
        for n in (0, 1, 1 << 16, (1 << 16) + 7, 300001):
            data = bytes(rng.getrandbits(8) for _ in range(n))
            self.assertEqual(pfm.crc32c(data), pfm._crc_bytes(data), n)

    def test_doc_example(self):
        m = pfm.read_bytes(doc_example())
        self.assertEqual((m.major, m.minor, m.float32), (1, 0, False))
        self.assertEqual((m.num_vertices, m.num_tets, m.num_boundary), (4, 1, 4))
        self.assertEqual(flat(m.positions), [0, 0, 0, 1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3])
        self.assertEqual(flat(m.tets), [0, 1, 2, 3])
        self.assertEqual(flat(m.tags), [pfm.BOUNDARY] * 4)
        self.assertEqual(flat(m.boundary), [2, 3, 1, 0, 3, 2, 0, 1, 3, 0, 2, 1])
        self.assertEqual(m.build_params, '{"h":1}')
        self.assertIsNone(m.bvh_bounds)
        self.assertEqual((m.mapping, m.modulus, m.pressure_cap), (pfm.LOG, 1e6, 1e8))
        self.assertEqual(m.pressure(1), 1e8)
        self.assertAlmostEqual(m.pressure(1 - math.exp(-1)), 1e6, delta=1e-6)

    def test_truncated(self):
        data = doc_example()  # the writer pads no last section: every byte counts
        for n in range(len(data)):
            with self.assertRaises(pfm.PFMError) as cm:
                pfm.read_bytes(data[:n])
            self.assertIn(cm.exception.kind, ("corrupt", "not-pfm"), n)

    def test_every_protected_byte(self):
        # CRC-32C catches any damage to one byte; only padding is unprotected.
        data = doc_example()
        hsize, count = struct.unpack_from("<II", data, 16)
        covered = set(range(12)) | set(range(16, hsize + 24 * count))
        for i in range(count):
            _, _, off, length = struct.unpack_from("<IIQQ", data, hsize + 24 * i)
            covered.update(range(off, off + length))
        self.assertEqual(len(data) - len(covered), 8)  # the CRC field and the padding after the tags
        for i in sorted(covered):
            bad = bytearray(data)
            bad[i] ^= 0xFF
            with self.assertRaises(pfm.PFMError, msg="byte %d" % i):
                pfm.read_bytes(bytes(bad))

    def test_orientation_exact(self):
        tet = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
        self.assertEqual(pfm._orient(*tet), 1)
        self.assertEqual(pfm._orient(tet[0], tet[2], tet[1], tet[3]), -1)
        # On the plane z = x + y exactly (30-bit fractions), with a rounded
        # determinant that is not zero: the filter must defer, exactly 0.
        rng = random.Random(2)
        found = 0
        for _ in range(100000):
            q = []
            for _ in range(4):
                x, y = rng.getrandbits(30) / 2 ** 30, rng.getrandbits(30) / 2 ** 30
                q.append((x, y, x + y))
            a, b, c, d = q
            u = [b[k] - a[k] for k in range(3)]
            v = [c[k] - a[k] for k in range(3)]
            w = [d[k] - a[k] for k in range(3)]
            naive = ((u[1] * v[2] - u[2] * v[1]) * w[0] + (u[2] * v[0] - u[0] * v[2]) * w[1]
                     + (u[0] * v[1] - u[1] * v[0]) * w[2])
            if naive != 0:
                self.assertEqual(pfm._orient(a, b, c, d), 0)
                found += 1
                if found == 20:
                    break
        self.assertEqual(found, 20)

    def test_bad_version_and_magic(self):
        data = bytearray(doc_example())
        data[8] = 2
        with self.assertRaises(pfm.PFMError) as cm:
            pfm.read_bytes(bytes(data))
        self.assertEqual(cm.exception.kind, "version")
        with self.assertRaises(pfm.PFMError) as cm:
            pfm.read_bytes(b"solid ascii stl\n" * 20)
        self.assertEqual(cm.exception.kind, "not-pfm")


if __name__ == "__main__":
    unittest.main()
