"""Read .pfm pressure-field mesh files, format version 1.x (pfmesh docs/pfm.md).

Standard library only; when numpy is importable the arrays are numpy arrays
(read-only views of the file's bytes where the stored type allows) and the
checks run vectorized. Set PFM_NO_NUMPY=1 to force the standard-library path.

    import pfm
    m = pfm.read("part.pfm")
    m.positions      # numpy: (nv, 3) float64; otherwise a flat array('d')
    m.tets           # numpy: (nt, 4) uint32;  otherwise a flat array of 4 per tet
    m.pressure(0.5)  # p0 = E*g(eps), Pa

The reader treats its input as hostile: every CRC (unless verify_crc=False,
for trusted files only), every length against the file's size, every index
against its range, every real for NaN/Inf and every tet's orientation, decided
exactly, are checked, and a bad file raises PFMError saying what is wrong where.

Run as a script, ``python3 pfm.py FILE...`` prints a summary of each file and
``python3 pfm.py --dump FILE...`` every value (the form pfmesh's tests compare).

For a 1M-tet file (45 MB) the checks take about 0.6 s of CPU with numpy and 9 s
without; the C reader takes 0.06 s and the Go one 0.045 s.
"""

import array
import json
import math
import os
import struct
import sys
from fractions import Fraction

__all__ = ["PFMError", "Mesh", "read", "read_bytes", "crc32c", "LINEAR", "LOG",
           "INTERIOR", "BOUNDARY", "CORE"]

LINEAR, LOG = 0, 1
INTERIOR, BOUNDARY, CORE = 0, 1, 2

_MAGIC = b"\x89PFM\r\n\x1a\n"
_HEADER = 176
_ENTRY = 24
_NAMES = {1: "positions", 2: "tets", 3: "epsilon", 4: "gradient", 5: "tags", 6: "boundary",
          7: "build-params", 8: "build-report", 9: "bvh-bounds", 10: "bvh-nodes", 11: "bvh-items"}
_FACES = ((1, 2, 3), (0, 3, 2), (0, 1, 3), (0, 2, 1))


def _numpy():
    if os.environ.get("PFM_NO_NUMPY") == "1":
        return None
    try:
        import numpy
        return numpy
    except ImportError:
        return None


class PFMError(ValueError):
    """A file that is not a valid .pfm file. kind is one of "not-pfm",
    "version", "corrupt", "checksum", "invalid"."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Mesh:
    """A checked .pfm mesh. Lengths in metres, pressures in pascals."""

    def __init__(self):
        self.major = self.minor = 0
        self.float32 = False            # reals were stored as float32
        self.gradient_recomputed = False
        self.num_vertices = self.num_tets = self.num_boundary = 0
        self.mapping = LINEAR
        self.modulus = self.pressure_cap = self.dissipation = self.friction = self.length_unit = 0.0
        self.bbox = (0.0,) * 6
        self.source_sha256 = bytes(32)
        self.positions = self.tets = self.epsilon = self.gradient = None
        self.tags = self.boundary = None
        self.build_params = self.build_report = None   # JSON text, or None
        self.bvh_bounds = self.bvh_nodes = self.bvh_items = None   # None without a BVH

    def pressure(self, eps):
        """p0 = E*g(eps) in pascals, as docs/pfm.md defines g."""
        e, cap = self.modulus, self.pressure_cap
        if self.mapping != LOG:
            return e * eps
        r = 1 - eps
        q = math.exp(1 - cap / e)
        if r > q:
            return -e * math.log1p(-eps)
        if q == 0:
            return cap
        return cap - e * r / q


# ---- CRC-32C ----

def _crc_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_TABLE = _crc_table()


def _crc_bytes(data, crc=0):
    """CRC-32C, one byte at a time (slow: about 10 MB/s)."""
    c = crc ^ 0xFFFFFFFF
    t = _TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def _gf2_times(mat, vec):
    s, i = 0, 0
    while vec:
        if vec & 1:
            s ^= mat[i]
        vec >>= 1
        i += 1
    return s


def _gf2_square(mat):
    return [_gf2_times(mat, m) for m in mat]


def _shift_operator(nbytes):
    """The 32x32 GF(2) matrix (as 32 columns) that advances a CRC-32C
    register over nbytes zero bytes: crc(A+B) = M(len B)*crc(A) ^ crc(B)."""
    odd = [0x82F63B78] + [1 << i for i in range(31)]   # one zero bit
    result = [1 << i for i in range(32)]
    n = 8 * nbytes
    while n:
        if n & 1:
            result = [_gf2_times(odd, c) for c in result]
        odd = _gf2_square(odd)
        n >>= 1
    return result


def _crc_numpy(np, data):
    """CRC-32C of many equal lanes at once, combined: about 1 GB/s."""
    n = len(data)
    lanes = 1 << 12 if n < 1 << 26 else 1 << 15
    step = n // lanes
    if step < 64:
        return _crc_bytes(data)
    body = np.frombuffer(data, dtype=np.uint8, count=lanes * step)
    cols = np.ascontiguousarray(body.reshape(lanes, step).T)
    table = np.array(_TABLE, dtype=np.uint32)
    c = np.full(lanes, 0xFFFFFFFF, dtype=np.uint32)
    for i in range(step):
        c = table[(c ^ cols[i]) & 0xFF] ^ (c >> 8)
    c ^= 0xFFFFFFFF
    m = _shift_operator(step)
    # Tables for m*v, 8 bits of v at a time.
    parts = [[_gf2_times(m, b << (8 * k)) for b in range(256)] for k in range(4)]
    crc = 0
    for lane in c.tolist():
        crc = (parts[0][crc & 0xFF] ^ parts[1][crc >> 8 & 0xFF] ^ parts[2][crc >> 16 & 0xFF]
               ^ parts[3][crc >> 24]) ^ lane
    tail = data[lanes * step:]
    if tail:
        m = _shift_operator(len(tail))
        crc = _gf2_times(m, crc) ^ _crc_bytes(tail)
    return crc


def crc32c(data):
    """The CRC-32C (Castagnoli) of data, as .pfm files use it."""
    data = memoryview(data).cast("B")
    for mod, fn in (("crc32c", "crc32c"), ("google_crc32c", "value")):
        try:
            lib = __import__(mod)
            return getattr(lib, fn)(bytes(data))
        except (ImportError, AttributeError):
            pass
    np = _numpy()
    if np is not None and len(data) >= 1 << 16:
        return _crc_numpy(np, data)
    return _crc_bytes(data)


# ---- exact orientation ----

_ORIENT_BOUND = (7 + 56 * 2.0 ** -53) * 2.0 ** -53


def _orient_exact(a, b, c, d):
    fa = [Fraction(x) - Fraction(y) for x, y in zip(b, a)]
    fb = [Fraction(x) - Fraction(y) for x, y in zip(c, a)]
    fc = [Fraction(x) - Fraction(y) for x, y in zip(d, a)]
    det = (fa[0] * (fb[1] * fc[2] - fb[2] * fc[1]) - fa[1] * (fb[0] * fc[2] - fb[2] * fc[0])
           + fa[2] * (fb[0] * fc[1] - fb[1] * fc[0]))
    return (det > 0) - (det < 0)


def _orient_filter(a, b, c, d):
    """The sign of (b-a)x(c-a).(d-a) if the float filter decides it, else None."""
    adx, bdx, cdx = a[0] - d[0], c[0] - d[0], b[0] - d[0]
    ady, bdy, cdy = a[1] - d[1], c[1] - d[1], b[1] - d[1]
    adz, bdz, cdz = a[2] - d[2], c[2] - d[2], b[2] - d[2]
    bc, cb, ca, ac, ab, ba = bdx * cdy, cdx * bdy, cdx * ady, adx * cdy, adx * bdy, bdx * ady
    det = adz * (bc - cb) + bdz * (ca - ac) + cdz * (ab - ba)
    perm = ((abs(bc) + abs(cb)) * abs(adz) + (abs(ca) + abs(ac)) * abs(bdz)
            + (abs(ab) + abs(ba)) * abs(cdz))
    bound = _ORIENT_BOUND * perm
    if det > bound:
        return 1
    if -det > bound:
        return -1
    if perm == 0:
        return 0
    return None


def _orient(a, b, c, d):
    s = _orient_filter(a, b, c, d)
    return _orient_exact(a, b, c, d) if s is None else s


# ---- reading ----

def _u16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def _u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def _u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


def _f64(b, o):
    return struct.unpack_from("<d", b, o)[0]


def _finite(v):
    return v - v == 0


class _Reader:
    def __init__(self, data, name, verify_crc, np):
        self.d = memoryview(data).cast("B")
        self.name = name
        self.verify_crc = verify_crc
        self.np = np

    def fail(self, kind, msg):
        raise PFMError(kind, "%s: %s" % (self.name, msg) if self.name else msg)

    # arrays, from a section's bytes
    def reals(self, sec, f32, shape=3):
        d, np = self.d[sec[2]:sec[2] + sec[3]], self.np
        if np is not None:
            a = np.frombuffer(d, dtype="<f4" if f32 else "<f8")
            a = a.astype(np.float64) if f32 or sys.byteorder != "little" else a
            return a.reshape(-1, shape) if shape > 1 else a
        a = array.array("f" if f32 else "d", bytes(d))
        if sys.byteorder != "little":
            a.byteswap()
        return array.array("d", a) if f32 else a

    def ints(self, sec, code, shape=1):
        d, np = self.d[sec[2]:sec[2] + sec[3]], self.np
        if np is not None:
            a = np.frombuffer(d, dtype={"I": "<u4", "i": "<i4", "B": "u1"}[code])
            a = a.astype(a.dtype.newbyteorder("=")) if sys.byteorder != "little" else a
            return a.reshape(-1, shape) if shape > 1 else a
        a = array.array(code, bytes(d))
        if a.itemsize not in (1, 4):
            self.fail("corrupt", "this Python's array type %r is not 4 bytes" % code)
        if sys.byteorder != "little" and a.itemsize > 1:
            a.byteswap()
        return a

    def read(self):
        d, size, np = self.d, len(self.d), self.np
        if bytes(d[:8]) != _MAGIC[:min(size, 8)]:
            self.fail("not-pfm", "not a .pfm file (bad magic)")
        if size >= 12 and _u16(d, 8) != 1:
            self.fail("version", "file is version %d.%d, this reader reads 1.x" % (_u16(d, 8), _u16(d, 10)))
        if size < _HEADER:
            self.fail("corrupt", "truncated: %d bytes, shorter than the fixed header" % size)
        m = Mesh()
        m.major, m.minor = 1, _u16(d, 10)
        hsize, count = _u32(d, 16), _u32(d, 20)
        if hsize < _HEADER or hsize % 8:
            self.fail("corrupt", "header size %d is invalid" % hsize)
        if hsize > size or count > (size - hsize) // _ENTRY:
            self.fail("corrupt", "truncated: the section table extends past the end of the file")
        table_end = hsize + count * _ENTRY
        if self.verify_crc:
            got = crc32c(bytes(d[:12]) + bytes(d[16:table_end]))
            if got != _u32(d, 12):
                self.fail("checksum", "CRC-32C mismatch in the header and section table: stored %#010x, computed %#010x"
                          % (_u32(d, 12), got))
        nv, nt, nb = _u64(d, 24), _u64(d, 32), _u64(d, 40)
        encoding = _u32(d, 48)
        m.mapping = _u32(d, 52)
        m.modulus, m.pressure_cap, m.dissipation, m.friction, m.length_unit = struct.unpack_from("<5d", d, 56)
        m.bbox = struct.unpack_from("<6d", d, 96)
        m.source_sha256 = bytes(d[144:176])
        if encoding > 1:
            self.fail("corrupt", "unknown value encoding %d" % encoding)
        m.float32 = encoding == 1
        rs = 4 if m.float32 else 8

        secs = {}
        spans = []
        for i in range(count):
            o = hsize + i * _ENTRY
            sid, crc, off, length = struct.unpack_from("<IIQQ", d, o)
            name = _NAMES.get(sid, "unknown")
            if off % 8 or off < table_end:
                self.fail("corrupt", "section %d (%s): offset %d is unaligned or inside the header" % (sid, name, off))
            if off > size or length > size - off:
                self.fail("corrupt", "truncated: section %d (%s) extends past the end of the file" % (sid, name))
            if sid in secs:
                self.fail("corrupt", "section %d (%s) appears twice" % (sid, name))
            secs[sid] = (sid, crc, off, length)
            spans.append((off, length, sid))
        spans.sort()
        for (o1, l1, s1), (o2, _, s2) in zip(spans, spans[1:]):
            if o1 + l1 > o2:
                self.fail("corrupt", "sections %d and %d overlap" % (s1, s2))
        if self.verify_crc:
            for sid, crc, off, length in secs.values():
                got = crc32c(d[off:off + length])
                if got != crc:
                    self.fail("checksum", "CRC-32C mismatch in section %d (%s): stored %#010x, computed %#010x"
                              % (sid, _NAMES.get(sid, "unknown"), crc, got))
        if nv > 0x7FFFFFFF or nt == 0 or nt > 1 << 28 or nb > 4 * nt:
            self.fail("corrupt", "counts out of range: %d vertices, %d tets, %d boundary triangles" % (nv, nt, nb))
        want = ((1, 3 * rs * nv, False), (2, 16 * nt, False), (3, rs * nv, False), (4, 3 * rs * nv, True),
                (5, nv, False), (6, 4 * nb, False), (11, 4 * nt, True))
        for sid, length, optional in want:
            if sid not in secs:
                if not optional:
                    self.fail("corrupt", "required section %d (%s) is missing" % (sid, _NAMES[sid]))
            elif secs[sid][3] != length:
                self.fail("corrupt", "section %d (%s) is %d bytes, want %d" % (sid, _NAMES[sid], secs[sid][3], length))
        bvh = [sid in secs for sid in (9, 10, 11)]
        nn = 0
        if any(bvh):
            if not all(bvh):
                self.fail("corrupt", "BVH: sections 9, 10 and 11 must all be present or all absent")
            lb, ln = secs[9][3], secs[10][3]
            if lb % 48 or ln % 8 or lb // 48 != ln // 8 or lb == 0:
                self.fail("corrupt", "BVH: box and node sections do not describe the same whole nodes")
            nn = ln // 8
        m.num_vertices, m.num_tets, m.num_boundary = nv, nt, nb

        if not (_finite(m.modulus) and m.modulus > 0):
            self.fail("invalid", "modulus E = %r Pa: must be positive and finite" % m.modulus)
        if not ((m.mapping == LINEAR and m.pressure_cap == 0)
                or (m.mapping == LOG and _finite(m.pressure_cap) and m.pressure_cap > m.modulus)):
            self.fail("invalid", "pressure mapping %d with cap %r Pa: unknown mapping or bad cap" % (m.mapping, m.pressure_cap))
        for what, v in (("dissipation", m.dissipation), ("friction", m.friction), ("length unit", m.length_unit)):
            if not (_finite(v) and v >= 0):
                self.fail("invalid", "%s %r: must be finite and not negative" % (what, v))

        m.positions = self.reals(secs[1], m.float32)
        m.tets = self.ints(secs[2], "I", 4)
        m.epsilon = self.reals(secs[3], m.float32, 1)
        if 4 in secs:
            m.gradient = self.reals(secs[4], m.float32)
        m.tags = self.ints(secs[5], "B")
        for sid, attr in ((7, "build_params"), (8, "build_report")):
            if sid in secs:
                _, _, off, length = secs[sid]
                text = bytes(d[off:off + length]).decode("utf-8", "replace")
                try:
                    json.loads(text)
                except ValueError:
                    self.fail("invalid", "section %d (%s) is not valid JSON" % (sid, _NAMES[sid]))
                setattr(m, attr, text)
        if nn:
            m.bvh_bounds = self.reals(secs[9], False, 6)
            m.bvh_nodes = self.ints(secs[10], "i", 2)
            m.bvh_items = self.ints(secs[11], "I")
        if np is not None:
            self.check_numpy(m, nn)
        else:
            self.check_plain(m, nn)
        refs = self.ints(secs[6], "I")
        self.expand_boundary(m, refs)
        if m.gradient is None:
            m.gradient = self.recompute_gradient(m)
            m.gradient_recomputed = True
        return m

    def check_plain(self, m, nn):
        nv = m.num_vertices
        p, e = m.positions, m.epsilon
        for i, v in enumerate(p):
            if not _finite(v):
                self.fail("invalid", "vertex %d: position %r is not finite" % (i // 3, v))
        for i, v in enumerate(e):
            if not 0 <= v <= 1:
                self.fail("invalid", "vertex %d: epsilon %r is outside [0, 1]" % (i, v))
        if m.gradient is not None:
            for i, v in enumerate(m.gradient):
                if not _finite(v):
                    self.fail("invalid", "vertex %d: gradient %r is not finite" % (i // 3, v))
        for i, v in enumerate(m.tags):
            if v > 2:
                self.fail("invalid", "vertex %d: tag %d is not 0, 1 or 2" % (i, v))
        tets = m.tets
        for t in range(m.num_tets):
            q = tets[4 * t:4 * t + 4]
            for v in q:
                if v >= nv:
                    self.fail("invalid", "tet %d: vertex index %d out of range [0, %d)" % (t, v, nv))
            pts = [p[3 * v:3 * v + 3] for v in q]
            if _orient(*pts) <= 0:
                self.fail("invalid", "tet %d (vertices %d %d %d %d): volume is not positive" % ((t,) + tuple(q)))
        if nn:
            self.check_bvh(m, nn, lambda t: [p[3 * v:3 * v + 3] for v in tets[4 * t:4 * t + 4]],
                           lambda i: m.bvh_bounds[6 * i:6 * i + 6],
                           lambda i: (m.bvh_nodes[2 * i], m.bvh_nodes[2 * i + 1]), m.bvh_items)
        self.check_bbox(m, [p[k::3] for k in range(3)])

    def check_numpy(self, m, nn):
        np = self.np
        p, e, nv = m.positions, m.epsilon, m.num_vertices

        def first(mask):
            return int(np.argmax(mask))

        bad = ~np.isfinite(p).all(axis=1)
        if bad.any():
            self.fail("invalid", "vertex %d: position is not finite" % first(bad))
        bad = ~((e >= 0) & (e <= 1))
        if bad.any():
            i = first(bad)
            self.fail("invalid", "vertex %d: epsilon %r is outside [0, 1]" % (i, float(e[i])))
        if m.gradient is not None:
            bad = ~np.isfinite(m.gradient).all(axis=1)
            if bad.any():
                self.fail("invalid", "vertex %d: gradient is not finite" % first(bad))
        bad = m.tags > 2
        if bad.any():
            i = first(bad)
            self.fail("invalid", "vertex %d: tag %d is not 0, 1 or 2" % (i, m.tags[i]))
        bad = (m.tets >= nv).any(axis=1)
        if bad.any():
            t = first(bad)
            v = int(m.tets[t][m.tets[t] >= nv][0])
            self.fail("invalid", "tet %d: vertex index %d out of range [0, %d)" % (t, v, nv))
        # The float filter, vectorized exactly as in _orient_filter; the
        # undecided tets go to exact arithmetic.
        a, b, c, d = (p[m.tets[:, k]] for k in range(4))
        ad, bd, cd = a - d, c - d, b - d
        bc, cb = bd[:, 0] * cd[:, 1], cd[:, 0] * bd[:, 1]
        ca, ac = cd[:, 0] * ad[:, 1], ad[:, 0] * cd[:, 1]
        ab, ba = ad[:, 0] * bd[:, 1], bd[:, 0] * ad[:, 1]
        det = ad[:, 2] * (bc - cb) + bd[:, 2] * (ca - ac) + cd[:, 2] * (ab - ba)
        perm = ((np.abs(bc) + np.abs(cb)) * np.abs(ad[:, 2]) + (np.abs(ca) + np.abs(ac)) * np.abs(bd[:, 2])
                + (np.abs(ab) + np.abs(ba)) * np.abs(cd[:, 2]))
        bound = _ORIENT_BOUND * perm
        sign = np.where(det > bound, 1, np.where(-det > bound, -1, 2))
        sign[(sign == 2) & (perm == 0)] = 0
        for t in np.nonzero(sign == 2)[0].tolist():
            sign[t] = _orient_exact(*(tuple(p[v].tolist()) for v in m.tets[t].tolist()))
        bad = sign <= 0
        if bad.any():
            t = first(bad)
            self.fail("invalid", "tet %d (vertices %d %d %d %d): volume is not positive" % ((t,) + tuple(m.tets[t].tolist())))
        if nn:
            self.check_bvh_numpy(m, nn)
        got = tuple(p.min(axis=0).tolist()) + tuple(p.max(axis=0).tolist())
        if got != tuple(m.bbox):
            self.fail("invalid", "header bounding box %r differs from the positions' %r" % (tuple(m.bbox), got))

    def check_bvh_numpy(self, m, nn):
        """check_bvh's rules, vectorized; the first failure in index order
        of each rule is reported."""
        np, nt = self.np, m.num_tets
        bounds, first, count = m.bvh_bounds, m.bvh_nodes[:, 0].astype(np.int64), m.bvh_nodes[:, 1].astype(np.int64)
        idx = np.arange(nn)

        def fail_at(mask, msg):
            if mask.any():
                self.fail("invalid", msg % int(np.argmax(mask)))

        fail_at(~(np.isfinite(bounds).all(axis=1) & (bounds[:, :3] <= bounds[:, 3:]).all(axis=1)),
                "BVH node %d: box is not finite with min <= max")
        fail_at(count < 0, "BVH node %d: negative count")
        inner = count == 0
        fail_at(inner & ((first <= idx + 1) | (first >= nn)), "BVH node %d: right child out of order or range")
        children = np.concatenate([idx[inner] + 1, first[inner]])
        parents = np.bincount(children, minlength=nn)
        fail_at(parents[1:] != 1, "BVH node %d: not the child of exactly one node")
        if parents[0]:
            self.fail("invalid", "BVH node 0: the root is a child")
        depth = np.full(nn, -1)
        depth[0] = 0
        level = np.array([0])
        for d in range(64):
            level = level[inner[level]]
            if level.size == 0:
                break
            if d + 1 > 63:
                self.fail("invalid", "BVH node %d: deeper than 63 levels" % int(level[0]))
            level = np.concatenate([level + 1, first[level]])
            depth[level] = d + 1
        leaves = idx[~inner]
        starts = np.concatenate([[0], np.cumsum(count[leaves])[:-1]])
        bad = (first[leaves] != starts) | (starts + count[leaves] > nt)
        if bad.any():
            self.fail("invalid", "BVH leaf %d: items do not continue the previous leaf's" % int(leaves[np.argmax(bad)]))
        if count[leaves].sum() != nt:
            self.fail("invalid", "BVH: leaves hold %d items of %d" % (int(count[leaves].sum()), nt))
        items = m.bvh_items.astype(np.int64)
        fail_at(items >= nt, "BVH item %d: tet out of range")
        fail_at(np.bincount(items, minlength=nt) != 1, "BVH: tet %d is not listed exactly once")
        par = idx[inner]
        for ch in (par + 1, first[inner]):
            bad = (bounds[ch, :3] < bounds[par, :3]).any(axis=1) | (bounds[ch, 3:] > bounds[par, 3:]).any(axis=1)
            if bad.any():
                self.fail("invalid", "BVH node %d: box does not contain a child's" % int(par[np.argmax(bad)]))
        leaf_of = np.repeat(leaves, count[leaves])
        step = 1 << 18
        for lo in range(0, nt, step):
            box = bounds[leaf_of[lo:lo + step]][:, None, :]
            pts = m.positions[m.tets[items[lo:lo + step]]]
            bad = ((pts < box[:, :, :3]) | (pts > box[:, :, 3:])).any(axis=(1, 2))
            if bad.any():
                j = lo + int(np.argmax(bad))
                self.fail("invalid", "BVH leaf %d: box does not contain tet %d" % (int(leaf_of[j]), int(items[j])))

    def check_bvh(self, m, nn, tet_points, box, node, items):
        nt = m.num_tets
        depth = [0] * nn
        has_parent = [False] * nn
        nxt = 0
        for i in range(nn):
            bx = box(i)
            if not all(_finite(v) for v in bx) or not all(bx[k] <= bx[3 + k] for k in range(3)):
                self.fail("invalid", "BVH node %d: box is not finite with min <= max" % i)
            first, cnt = node(i)
            if i > 0 and not has_parent[i]:
                self.fail("invalid", "BVH node %d: no parent" % i)
            if cnt < 0:
                self.fail("invalid", "BVH node %d: negative count" % i)
            if cnt > 0:
                if first != nxt or cnt > nt - first:
                    self.fail("invalid", "BVH leaf %d: items do not continue the previous leaf's" % i)
                nxt += cnt
                continue
            if first <= i + 1 or first >= nn:
                self.fail("invalid", "BVH node %d: right child %d out of order or range" % (i, first))
            if depth[i] + 1 >= 64:
                self.fail("invalid", "BVH node %d: deeper than 63 levels" % i)
            for ch in (i + 1, first):
                if has_parent[ch]:
                    self.fail("invalid", "BVH node %d: a child has two parents" % i)
                has_parent[ch], depth[ch] = True, depth[i] + 1
        if nxt != nt:
            self.fail("invalid", "BVH: leaves hold %d items of %d" % (nxt, nt))
        seen = bytearray(nt)
        for i, it in enumerate(items):
            if it >= nt or seen[it]:
                self.fail("invalid", "BVH item %d: tet %d out of range or listed twice" % (i, it))
            seen[it] = 1
        for i in range(nn):
            bx = box(i)
            first, cnt = node(i)
            if cnt == 0:
                for ch in (i + 1, first):
                    cb = box(ch)
                    if any(cb[k] < bx[k] or cb[3 + k] > bx[3 + k] for k in range(3)):
                        self.fail("invalid", "BVH node %d: box does not contain child %d's" % (i, ch))
                continue
            for j in range(first, first + cnt):
                for pt in tet_points(items[j]):
                    if any(pt[k] < bx[k] or pt[k] > bx[3 + k] for k in range(3)):
                        self.fail("invalid", "BVH leaf %d: box does not contain tet %d" % (i, items[j]))

    def check_bbox(self, m, coords):
        got = tuple(min(c) for c in coords) + tuple(max(c) for c in coords)
        if got != tuple(m.bbox):
            self.fail("invalid", "header bounding box %r differs from the positions' %r" % (tuple(m.bbox), got))

    def expand_boundary(self, m, refs):
        nt, np = m.num_tets, self.np
        if np is not None:
            refs = np.asarray(refs, dtype=np.int64)
            t, r, k = refs >> 4, refs >> 2 & 3, refs & 3
            bad = (t >= nt) | (r > 2)
            if bad.any():
                i = int(np.argmax(bad))
                self.fail("corrupt", "boundary triangle %d: bad face reference %#x" % (i, int(refs[i])))
            faces = np.array(_FACES, dtype=np.int64)
            cols = faces[k[:, None], (r[:, None] + np.arange(3)) % 3]
            m.boundary = m.tets[t[:, None], cols].astype(np.uint32).reshape(-1, 3)
            return
        tets = m.tets
        out = array.array("I")
        for i, ref in enumerate(refs):
            t, r, k = ref >> 4, ref >> 2 & 3, ref & 3
            if t >= nt or r > 2:
                self.fail("corrupt", "boundary triangle %d: bad face reference %#x" % (i, ref))
            f = _FACES[k]
            out.extend(tets[4 * t + f[(r + j) % 3]] for j in range(3))
        m.boundary = out

    def recompute_gradient(self, m):
        """docs/pfm.md's gradient, operation by operation, in float64."""
        np, nv = self.np, m.num_vertices
        if np is not None:
            p, e, tets = m.positions, m.epsilon, m.tets.astype(np.int64)
            p0, p1, p2, p3 = (p[tets[:, k]] for k in range(4))
            a, b, c = p1 - p0, p2 - p0, p3 - p0
            d1, d2, d3 = ((e[tets[:, k]] - e[tets[:, 0]])[:, None] for k in (1, 2, 3))

            def cross(u, w):
                return np.stack([u[:, 1] * w[:, 2] - u[:, 2] * w[:, 1], u[:, 2] * w[:, 0] - u[:, 0] * w[:, 2],
                                 u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0]], axis=1)

            bc, ca, ab = cross(b, c), cross(c, a), cross(a, b)
            s = (d1 * bc + d2 * ca) + d3 * ab
            w = (a[:, 0] * bc[:, 0] + a[:, 1] * bc[:, 1]) + a[:, 2] * bc[:, 2]
            g = np.zeros((nv, 3))
            wsum = np.zeros(nv)
            # ufunc.at adds in index order: tet by tet, vertex by vertex.
            np.add.at(g, tets.ravel(), np.repeat(s, 4, axis=0))
            np.add.at(wsum, tets.ravel(), np.repeat(w, 4))
            pos = wsum > 0
            g[pos] /= wsum[pos][:, None]
            bad = ~np.isfinite(g).all(axis=1)
            if bad.any():
                self.fail("invalid", "vertex %d: recomputed gradient is not finite" % int(np.argmax(bad)))
            return g
        p, e, tets = m.positions, m.epsilon, m.tets
        g = [0.0] * (3 * nv)
        wsum = [0.0] * nv
        for t in range(m.num_tets):
            i0, i1, i2, i3 = tets[4 * t:4 * t + 4]
            ax, ay, az = p[3 * i1] - p[3 * i0], p[3 * i1 + 1] - p[3 * i0 + 1], p[3 * i1 + 2] - p[3 * i0 + 2]
            bx, by, bz = p[3 * i2] - p[3 * i0], p[3 * i2 + 1] - p[3 * i0 + 1], p[3 * i2 + 2] - p[3 * i0 + 2]
            cx, cy, cz = p[3 * i3] - p[3 * i0], p[3 * i3 + 1] - p[3 * i0 + 1], p[3 * i3 + 2] - p[3 * i0 + 2]
            d1, d2, d3 = e[i1] - e[i0], e[i2] - e[i0], e[i3] - e[i0]
            bcx, bcy, bcz = by * cz - bz * cy, bz * cx - bx * cz, bx * cy - by * cx
            cax, cay, caz = cy * az - cz * ay, cz * ax - cx * az, cx * ay - cy * ax
            abx, aby, abz = ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
            sx = (d1 * bcx + d2 * cax) + d3 * abx
            sy = (d1 * bcy + d2 * cay) + d3 * aby
            sz = (d1 * bcz + d2 * caz) + d3 * abz
            w = (ax * bcx + ay * bcy) + az * bcz
            for v in (i0, i1, i2, i3):
                g[3 * v] += sx
                g[3 * v + 1] += sy
                g[3 * v + 2] += sz
                wsum[v] += w
        for v in range(nv):
            if wsum[v] > 0:
                for k in range(3):
                    g[3 * v + k] /= wsum[v]
            for k in range(3):
                if not _finite(g[3 * v + k]):
                    self.fail("invalid", "vertex %d: recomputed gradient is not finite" % v)
        return array.array("d", g)


def read_bytes(data, verify_crc=True, name=None):
    """Check and decode a .pfm file held in data (bytes-like)."""
    return _Reader(data, name, verify_crc, _numpy()).read()


def read(path, verify_crc=True):
    """Read and check the .pfm file at path. verify_crc=False skips the
    CRCs (trusted files only); every other check still runs."""
    with open(path, "rb") as f:
        data = f.read()
    return _Reader(data, str(path), verify_crc, _numpy()).read()


# ---- command line ----

def _flat(a):
    if hasattr(a, "ravel"):
        return a.ravel().tolist()
    return list(a)


def _dump(m, out):
    def line(name, values):
        out.write(name + "".join(" " + v for v in values) + "\n")

    def reals(name, values):
        line(name, (repr(float(v)) for v in _flat(values)))

    def ints(name, values):
        line(name, (str(int(v)) for v in _flat(values)))

    line("version", [str(m.major), str(m.minor)])
    line("float32", [str(int(m.float32))])
    ints("counts", [m.num_vertices, m.num_tets, m.num_boundary])
    ints("mapping", [m.mapping])
    reals("constants", [m.modulus, m.pressure_cap, m.dissipation, m.friction, m.length_unit])
    reals("bbox", m.bbox)
    line("sha256", [m.source_sha256.hex()])
    reals("positions", m.positions)
    ints("tets", m.tets)
    reals("epsilon", m.epsilon)
    reals("gradient", m.gradient)
    ints("tags", m.tags)
    ints("boundary", m.boundary)
    if m.build_params is not None:
        line("build_params", [m.build_params.encode("utf-8").hex()])
    if m.build_report is not None:
        line("build_report", [m.build_report.encode("utf-8").hex()])
    if m.bvh_bounds is not None:
        reals("bvh_bounds", m.bvh_bounds)
        ints("bvh_nodes", m.bvh_nodes)
        ints("bvh_items", m.bvh_items)
    eps = (0, 0.125, 0.5, 0.9, 0.99, 0.999999, 1)
    line("pressure", (repr(float(x)) for e in eps for x in (e, m.pressure(e))))


def main(argv):
    args = argv[1:]
    dump = "--dump" in args
    verify = "--skip-crc" not in args
    files = [a for a in args if not a.startswith("--")]
    if not files:
        sys.stderr.write("usage: pfm.py [--dump] [--skip-crc] FILE...\n")
        return 2
    failed = 0
    for path in files:
        if dump:
            print("file " + path)
        try:
            m = read(path, verify_crc=verify)
        except (PFMError, OSError) as e:
            sys.stderr.write("%s\n" % e)
            if dump:
                print("error %s" % e)
            failed = 1
            continue
        if dump:
            _dump(m, sys.stdout)
            continue
        print("%s: pfm %d.%d, %s: %d vertices, %d tets, %d boundary triangles"
              % (path, m.major, m.minor, "float32" if m.float32 else "float64", m.num_vertices, m.num_tets,
                 m.num_boundary))
        print("E = %g Pa, %s mapping, dissipation %g s/m, friction %g"
              % (m.modulus, "log" if m.mapping == LOG else "linear", m.dissipation, m.friction))
        print("bbox %s m, BVH %s" % (m.bbox, "yes" if m.bvh_bounds is not None else "no"))
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv))
