/* pfm.h — a reader for .pfm pressure-field mesh files, format version 1.x
 * (pfmesh docs/pfm.md). C99, no dependencies beyond the C library.
 *
 * In exactly one C file of your program:
 *
 *     #define PFM_IMPLEMENTATION
 *     #include "pfm.h"
 *
 * and include "pfm.h" plainly elsewhere. Link with -lm.
 *
 *     pfm_mesh m;
 *     char err[256];
 *     if (pfm_read_file("part.pfm", 0, &m, err, sizeof err) != PFM_OK) {
 *         fprintf(stderr, "%s\n", err);
 *         return 1;
 *     }
 *     ... m.positions[3*v], m.tets[4*t], m.epsilon[v], pfm_pressure(&m, m.epsilon[v]) ...
 *     pfm_free(&m);
 *
 * The reader treats its input as hostile: it checks every CRC (unless
 * PFM_SKIP_CRC), every length against the file's size before allocating,
 * every index against its range, every real for NaN/Inf, and every tet's
 * orientation exactly; a file that fails any check is refused with a
 * message saying which and where, never read past its end. Allocation is
 * a small multiple of the file's size.
 *
 * Reals are returned as double whatever the file stores. A file without a
 * gradient section (float32 files) gets the gradient recomputed exactly as
 * docs/pfm.md specifies. Exactness needs IEEE double arithmetic without
 * extended precision or contracted multiply-adds: this header turns
 * contraction off where the compiler honours the standard pragma (GCC in
 * -std=c99 mode does not contract anyway; in GNU mode pass
 * -ffp-contract=off).
 */
#ifndef PFM_H
#define PFM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result codes. */
enum {
    PFM_OK = 0,
    PFM_ERR_IO,       /* the file could not be read */
    PFM_ERR_NOT_PFM,  /* wrong magic */
    PFM_ERR_VERSION,  /* another major version */
    PFM_ERR_CORRUPT,  /* structure: truncated, bad offsets, lengths, references */
    PFM_ERR_CHECKSUM, /* a CRC-32C does not match */
    PFM_ERR_INVALID,  /* contents: indices, NaN/Inf, orientation, ranges */
    PFM_ERR_NOMEM
};

/* Flags for pfm_read_*. */
enum { PFM_SKIP_CRC = 1 }; /* trusted files only: skip CRCs, keep every other check */

/* Pressure mappings and vertex tags. */
enum { PFM_LINEAR = 0, PFM_LOG = 1 };
enum { PFM_INTERIOR = 0, PFM_BOUNDARY = 1, PFM_CORE = 2 };

typedef struct pfm_mesh {
    uint16_t major, minor;
    int float32;        /* reals were stored as float32 */
    int gradient_recomputed;
    uint32_t num_vertices, num_tets, num_boundary;
    uint32_t mapping;   /* PFM_LINEAR or PFM_LOG */
    double modulus;     /* E, Pa */
    double pressure_cap;/* Pa; log mapping only */
    double dissipation; /* s/m */
    double friction;
    double length_unit; /* source surface unit in metres; 0 if unknown */
    double bbox[6];     /* min x, y, z, max x, y, z */
    uint8_t source_sha256[32];
    double *positions;  /* x, y, z per vertex, metres */
    uint32_t *tets;     /* 4 per tet, positively oriented */
    double *epsilon;    /* per vertex, in [0, 1] */
    double *gradient;   /* 3 per vertex, 1/m */
    uint8_t *tags;      /* per vertex: PFM_INTERIOR, PFM_BOUNDARY, PFM_CORE */
    uint32_t *boundary; /* 3 per outward boundary triangle */
    char *build_params; /* NUL-terminated JSON text, or NULL */
    size_t build_params_len;
    char *build_report;
    size_t build_report_len;
    uint32_t bvh_num_nodes; /* 0 if the file has no BVH */
    double *bvh_bounds;     /* 6 per node */
    int32_t *bvh_nodes;     /* 2 per node: first, count */
    uint32_t *bvh_items;    /* num_tets */
} pfm_mesh;

/* pfm_read_file reads and checks the file at path into *mesh. On failure
 * it returns a PFM_ERR_* code, writes a message naming the file into err
 * (if err_size > 0) and leaves *mesh empty. */
int pfm_read_file(const char *path, int flags, pfm_mesh *mesh, char *err, size_t err_size);

/* pfm_read_memory is pfm_read_file for a file already in memory. */
int pfm_read_memory(const void *data, size_t size, int flags, pfm_mesh *mesh, char *err, size_t err_size);

/* pfm_free releases a mesh's arrays and empties it. */
void pfm_free(pfm_mesh *mesh);

/* pfm_pressure returns p0 = E·g(eps) in pascals (docs/pfm.md, Pressure). */
double pfm_pressure(const pfm_mesh *mesh, double eps);

#ifdef __cplusplus
}
#endif
#endif /* PFM_H */

#ifdef PFM_IMPLEMENTATION
#ifndef PFM_IMPLEMENTATION_DONE
#define PFM_IMPLEMENTATION_DONE

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != -1
#error "pfm.h needs double arithmetic without extended precision (e.g. -msse2 -mfpmath=sse)"
#endif

typedef struct {
    const uint8_t *data;
    uint64_t size;
    char *err;
    size_t err_size;
    const char *name; /* for messages, or NULL */
    uint32_t crc_table[8 * 256];
} pfm__ctx;

static int pfm__fail(pfm__ctx *c, int code, const char *fmt, ...) {
    if (c->err && c->err_size > 0) {
        size_t n = 0;
        va_list ap;
        if (c->name) {
            int k = snprintf(c->err, c->err_size, "%s: ", c->name);
            n = k < 0 ? 0 : (size_t)k < c->err_size ? (size_t)k : c->err_size - 1;
        }
        va_start(ap, fmt);
        vsnprintf(c->err + n, c->err_size - n, fmt, ap);
        va_end(ap);
    }
    return code;
}

static uint16_t pfm__u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t pfm__u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t pfm__u64(const uint8_t *p) { return (uint64_t)pfm__u32(p) | (uint64_t)pfm__u32(p + 4) << 32; }
static double pfm__f64(const uint8_t *p) {
    uint64_t u = pfm__u64(p);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static double pfm__f32(const uint8_t *p) {
    uint32_t u = pfm__u32(p);
    float f;
    memcpy(&f, &u, 4);
    return (double)f;
}

/* CRC-32C, slicing by 8: table k advances the CRC over a byte followed by k zero bytes. */
static void pfm__crc_init(uint32_t *t) {
    uint32_t i, k;
    for (i = 0; i < 256; i++) {
        uint32_t c = i;
        for (k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        t[i] = c;
    }
    for (k = 1; k < 8; k++)
        for (i = 0; i < 256; i++) t[256 * k + i] = (t[256 * (k - 1) + i] >> 8) ^ t[t[256 * (k - 1) + i] & 0xFF];
}
/* pfm__crc continues crc (0 to start) over n bytes: crc(A+B) = pfm__crc(crc(A), B). */
static uint32_t pfm__crc(const uint32_t *t, uint32_t crc, const uint8_t *p, uint64_t n) {
    uint32_t c = crc ^ 0xFFFFFFFFu;
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo = c ^ pfm__u32(p), hi = pfm__u32(p + 4);
        c = t[7 * 256 + (lo & 0xFF)] ^ t[6 * 256 + (lo >> 8 & 0xFF)] ^ t[5 * 256 + (lo >> 16 & 0xFF)] ^ t[4 * 256 + (lo >> 24)] ^
            t[3 * 256 + (hi & 0xFF)] ^ t[2 * 256 + (hi >> 8 & 0xFF)] ^ t[256 + (hi >> 16 & 0xFF)] ^ t[hi >> 24];
    }
    while (n--) c = t[(c ^ *p++) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/* ---- exact orientation: float filter, then expansion arithmetic ---- */

static void pfm__two_sum(double a, double b, double *x, double *y) {
    double s = a + b, bv = s - a, av = s - bv;
    *x = s;
    *y = (a - av) + (b - bv);
}
static void pfm__two_diff(double a, double b, double *x, double *y) {
    double s = a - b, bv = a - s, av = s + bv;
    *x = s;
    *y = (a - av) + (bv - b);
}
static void pfm__split(double a, double *hi, double *lo) {
    double c = 134217729.0 * a, big = c - a; /* 2^27 + 1 */
    *hi = c - big;
    *lo = a - *hi;
}
static void pfm__two_prod(double a, double b, double *x, double *y) {
    double ah, al, bh, bl, err;
    *x = a * b;
    pfm__split(a, &ah, &al);
    pfm__split(b, &bh, &bl);
    err = *x - ah * bh;
    err -= al * bh;
    err -= ah * bl;
    *y = al * bl - err;
}
/* h = e + b; e nonoverlapping, increasing magnitude; returns length elen+1. */
static int pfm__grow(int elen, const double *e, double b, double *h) {
    int i;
    double q = b;
    for (i = 0; i < elen; i++) pfm__two_sum(q, e[i], &q, &h[i]);
    h[elen] = q;
    return elen + 1;
}
/* h = e·b; returns length 2·elen. */
static int pfm__scale(int elen, const double *e, double b, double *h) {
    int i, n = 0;
    double q, hi, lo, s;
    pfm__two_prod(e[0], b, &q, &h[n++]);
    for (i = 1; i < elen; i++) {
        pfm__two_prod(e[i], b, &hi, &lo);
        pfm__two_sum(q, lo, &s, &h[n++]);
        pfm__two_sum(hi, s, &q, &h[n++]);
    }
    h[n++] = q;
    return n;
}
/* h = e·f with f of length 2 or more; h needs 2·elen·flen entries. */
static int pfm__mul(int elen, const double *e, int flen, const double *f, double *h) {
    double t[64], acc[256], next[256];
    int j, k, n = 0, tn;
    for (j = 0; j < flen; j++) {
        tn = pfm__scale(elen, e, f[j], t);
        for (k = 0; k < tn; k++) {
            n = pfm__grow(n, acc, t[k], next);
            memcpy(acc, next, (size_t)n * sizeof *acc);
        }
    }
    memcpy(h, acc, (size_t)n * sizeof *h);
    return n;
}
static int pfm__orient_exact(const double *a, const double *b, const double *c, const double *d) {
    /* det[A; B; C] with A = a−d, B = c−d, C = b−d: the sign of
     * (b−a)×(c−a)·(d−a), as internal/geom.Orient3D computes it. */
    double r[3][3][2], p1[8], p2[32], sum[256], next[256];
    const double *rows[3];
    static const int perm[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}};
    int i, k, n = 0, m1, m2;
    rows[0] = a;
    rows[1] = c;
    rows[2] = b;
    for (i = 0; i < 3; i++)
        for (k = 0; k < 3; k++) {
            double x, y;
            pfm__two_diff(rows[i][k], d[k], &x, &y);
            r[i][k][0] = y; /* increasing magnitude */
            r[i][k][1] = x;
        }
    for (i = 0; i < 6; i++) {
        double neg[2];
        const double *z;
        m1 = pfm__mul(2, r[0][perm[i][0]], 2, r[1][perm[i][1]], p1);
        if (i < 3) {
            z = r[2][perm[i][2]];
        } else {
            neg[0] = -r[2][perm[i][2]][0];
            neg[1] = -r[2][perm[i][2]][1];
            z = neg;
        }
        m2 = pfm__mul(m1, p1, 2, z, p2);
        for (k = 0; k < m2; k++) {
            n = pfm__grow(n, sum, p2[k], next);
            memcpy(sum, next, (size_t)n * sizeof *sum);
        }
    }
    for (i = n - 1; i >= 0; i--)
        if (sum[i] != 0) return sum[i] > 0 ? 1 : -1;
    return 0;
}
/* pfm__orient returns the sign of (b−a)×(c−a)·(d−a), exactly. */
static int pfm__orient(const double *a, const double *b, const double *c, const double *d) {
    const double eps = DBL_EPSILON / 2, bound = (7 + 56 * eps) * eps;
    double adx = a[0] - d[0], bdx = c[0] - d[0], cdx = b[0] - d[0];
    double ady = a[1] - d[1], bdy = c[1] - d[1], cdy = b[1] - d[1];
    double adz = a[2] - d[2], bdz = c[2] - d[2], cdz = b[2] - d[2];
    double bc = bdx * cdy, cb = cdx * bdy, ca = cdx * ady, ac = adx * cdy, ab = adx * bdy, ba = bdx * ady;
    double det = adz * (bc - cb) + bdz * (ca - ac) + cdz * (ab - ba);
    double perm = (fabs(bc) + fabs(cb)) * fabs(adz) + (fabs(ca) + fabs(ac)) * fabs(bdz) + (fabs(ab) + fabs(ba)) * fabs(cdz);
    if (det > bound * perm) return 1;
    if (-det > bound * perm) return -1;
    if (perm == 0) return 0;
    return pfm__orient_exact(a, b, c, d);
}

/* ---- the file ---- */

enum {
    PFM__HEADER = 176,
    PFM__ENTRY = 24,
    PFM__POSITIONS = 1,
    PFM__TETS,
    PFM__EPSILON,
    PFM__GRADIENT,
    PFM__TAGS,
    PFM__BOUNDARY,
    PFM__PARAMS,
    PFM__REPORT,
    PFM__BVH_BOUNDS,
    PFM__BVH_NODES,
    PFM__BVH_ITEMS,
    PFM__KNOWN = 12
};

typedef struct {
    uint32_t id, crc;
    uint64_t offset, length;
} pfm__section;

static const char *pfm__name(uint32_t id) {
    static const char *names[] = {"unknown", "positions", "tets", "epsilon", "gradient", "tags", "boundary",
                                  "build-params", "build-report", "bvh-bounds", "bvh-nodes", "bvh-items"};
    return id < PFM__KNOWN ? names[id] : "unknown";
}

static int pfm__cmp_section(const void *x, const void *y) {
    const pfm__section *a = (const pfm__section *)x, *b = (const pfm__section *)y;
    if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
    if (a->length != b->length) return a->length < b->length ? -1 : 1;
    return 0;
}

static int pfm__cmp_id(const void *x, const void *y) {
    const pfm__section *a = (const pfm__section *)x, *b = (const pfm__section *)y;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int pfm__finite(double v) { return v - v == 0; }

static void *pfm__alloc(uint64_t n, size_t size) {
    if (n == 0) n = 1;
    if (n > SIZE_MAX / size) return NULL;
    return malloc((size_t)(n * size));
}

static int pfm__reals(pfm__ctx *c, const pfm__section *s, int f32, double **out) {
    uint64_t i, n = s->length / (f32 ? 4 : 8);
    const uint8_t *p = c->data + s->offset;
    double *v = (double *)pfm__alloc(n, sizeof *v);
    if (!v) return pfm__fail(c, PFM_ERR_NOMEM, "out of memory");
    for (i = 0; i < n; i++) v[i] = f32 ? pfm__f32(p + 4 * i) : pfm__f64(p + 8 * i);
    *out = v;
    return PFM_OK;
}

static int pfm__u32s(pfm__ctx *c, const pfm__section *s, uint32_t **out) {
    uint64_t i, n = s->length / 4;
    const uint8_t *p = c->data + s->offset;
    uint32_t *v = (uint32_t *)pfm__alloc(n, sizeof *v);
    if (!v) return pfm__fail(c, PFM_ERR_NOMEM, "out of memory");
    for (i = 0; i < n; i++) v[i] = pfm__u32(p + 4 * i);
    *out = v;
    return PFM_OK;
}

static int pfm__json(pfm__ctx *c, const pfm__section *s, char **out, size_t *len) {
    char *v = (char *)pfm__alloc(s->length + 1, 1);
    if (!v) return pfm__fail(c, PFM_ERR_NOMEM, "out of memory");
    memcpy(v, c->data + s->offset, (size_t)s->length);
    v[s->length] = 0;
    *out = v;
    *len = (size_t)s->length;
    return PFM_OK;
}

static const unsigned char pfm__faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

static int pfm__check_bvh(pfm__ctx *c, pfm_mesh *m) {
    uint32_t nn = m->bvh_num_nodes, nt = m->num_tets, i, a, next = 0;
    uint8_t *depth = NULL, *seen = NULL;
    int rc = PFM_OK;
    for (i = 0; i < 6 * nn; i++)
        if (!pfm__finite(m->bvh_bounds[i]))
            return pfm__fail(c, PFM_ERR_INVALID, "BVH node %u: box is not finite", (unsigned)(i / 6));
    for (i = 0; i < nn; i++)
        for (a = 0; a < 3; a++)
            if (!(m->bvh_bounds[6 * i + a] <= m->bvh_bounds[6 * i + 3 + a]))
                return pfm__fail(c, PFM_ERR_INVALID, "BVH node %u: box min exceeds max", (unsigned)i);
    depth = (uint8_t *)calloc(nn, 1);
    seen = (uint8_t *)calloc(nn > nt ? nn : nt, 1); /* first: has a parent; then: item seen */
    if (!depth || !seen) {
        rc = pfm__fail(c, PFM_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < nn && rc == PFM_OK; i++) {
        int64_t first = m->bvh_nodes[2 * i], count = m->bvh_nodes[2 * i + 1];
        if (i > 0 && !seen[i]) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "BVH node %u: no parent", (unsigned)i);
        } else if (count < 0) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "BVH node %u: negative count", (unsigned)i);
        } else if (count > 0) {
            if (first != (int64_t)next || count > (int64_t)nt - first)
                rc = pfm__fail(c, PFM_ERR_INVALID, "BVH leaf %u: items do not continue the previous leaf's", (unsigned)i);
            next += (uint32_t)count;
        } else if (first <= (int64_t)i + 1 || first >= (int64_t)nn) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "BVH node %u: right child %lld out of order or range", (unsigned)i,
                           (long long)first);
        } else if (depth[i] + 1 >= 64) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "BVH node %u: deeper than 63 levels", (unsigned)i);
        } else if (seen[i + 1] || seen[first]) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "BVH node %u: a child has two parents", (unsigned)i);
        } else {
            seen[i + 1] = seen[first] = 1;
            depth[i + 1] = depth[first] = (uint8_t)(depth[i] + 1);
        }
    }
    if (rc == PFM_OK && next != nt) rc = pfm__fail(c, PFM_ERR_INVALID, "BVH: leaves hold %u items of %u", next, nt);
    if (rc != PFM_OK) goto done;
    memset(seen, 0, nn > nt ? nn : nt);
    for (i = 0; i < nt; i++) {
        uint32_t it = m->bvh_items[i];
        if (it >= nt || seen[it]) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "BVH item %u: tet %u out of range or listed twice", (unsigned)i, (unsigned)it);
            goto done;
        }
        seen[it] = 1;
    }
    for (i = 0; i < nn; i++) {
        const double *box = m->bvh_bounds + 6 * i;
        int32_t first = m->bvh_nodes[2 * i], count = m->bvh_nodes[2 * i + 1], j;
        if (count == 0) {
            uint32_t ch[2], q;
            ch[0] = i + 1;
            ch[1] = (uint32_t)first;
            for (q = 0; q < 2; q++)
                for (a = 0; a < 3; a++)
                    if (m->bvh_bounds[6 * ch[q] + a] < box[a] || m->bvh_bounds[6 * ch[q] + 3 + a] > box[3 + a]) {
                        rc = pfm__fail(c, PFM_ERR_INVALID, "BVH node %u: box does not contain child %u's", (unsigned)i,
                                       (unsigned)ch[q]);
                        goto done;
                    }
            continue;
        }
        for (j = first; j < first + count; j++) {
            uint32_t t = m->bvh_items[j], k;
            for (k = 0; k < 4; k++)
                for (a = 0; a < 3; a++) {
                    double x = m->positions[3 * (size_t)m->tets[4 * (size_t)t + k] + a];
                    if (x < box[a] || x > box[3 + a]) {
                        rc = pfm__fail(c, PFM_ERR_INVALID, "BVH leaf %u: box does not contain tet %u", (unsigned)i,
                                       (unsigned)t);
                        goto done;
                    }
                }
        }
    }
done:
    free(depth);
    free(seen);
    return rc;
}

/* pfm__gradient recomputes ∇ε as docs/pfm.md specifies, operation by operation. */
static int pfm__gradient(pfm__ctx *c, pfm_mesh *m) {
    size_t nv = m->num_vertices, t, v;
    double *g = (double *)pfm__alloc(3 * (uint64_t)nv, sizeof *g), *w = (double *)pfm__alloc(nv, sizeof *w);
    const double *p = m->positions, *e = m->epsilon;
    if (!g || !w) {
        free(g);
        free(w);
        return pfm__fail(c, PFM_ERR_NOMEM, "out of memory");
    }
    memset(g, 0, 3 * nv * sizeof *g);
    memset(w, 0, nv * sizeof *w);
    for (t = 0; t < m->num_tets; t++) {
        const uint32_t *q = m->tets + 4 * t;
        const double *p0 = p + 3 * (size_t)q[0], *p1 = p + 3 * (size_t)q[1], *p2 = p + 3 * (size_t)q[2],
                     *p3 = p + 3 * (size_t)q[3];
        double ax = p1[0] - p0[0], ay = p1[1] - p0[1], az = p1[2] - p0[2];
        double bx = p2[0] - p0[0], by = p2[1] - p0[1], bz = p2[2] - p0[2];
        double cx = p3[0] - p0[0], cy = p3[1] - p0[1], cz = p3[2] - p0[2];
        double d1 = e[q[1]] - e[q[0]], d2 = e[q[2]] - e[q[0]], d3 = e[q[3]] - e[q[0]];
        double bcx = by * cz - bz * cy, bcy = bz * cx - bx * cz, bcz = bx * cy - by * cx;
        double cax = cy * az - cz * ay, cay = cz * ax - cx * az, caz = cx * ay - cy * ax;
        double abx = ay * bz - az * by, aby = az * bx - ax * bz, abz = ax * by - ay * bx;
        double sx = (d1 * bcx + d2 * cax) + d3 * abx;
        double sy = (d1 * bcy + d2 * cay) + d3 * aby;
        double sz = (d1 * bcz + d2 * caz) + d3 * abz;
        double vol6 = (ax * bcx + ay * bcy) + az * bcz;
        int k;
        for (k = 0; k < 4; k++) {
            size_t u = q[k];
            g[3 * u] += sx;
            g[3 * u + 1] += sy;
            g[3 * u + 2] += sz;
            w[u] += vol6;
        }
    }
    for (v = 0; v < nv; v++) {
        if (w[v] > 0) {
            g[3 * v] /= w[v];
            g[3 * v + 1] /= w[v];
            g[3 * v + 2] /= w[v];
        }
        if (!pfm__finite(g[3 * v]) || !pfm__finite(g[3 * v + 1]) || !pfm__finite(g[3 * v + 2])) {
            free(g);
            free(w);
            return pfm__fail(c, PFM_ERR_INVALID, "vertex %u: recomputed gradient is not finite", (unsigned)v);
        }
    }
    free(w);
    m->gradient = g;
    m->gradient_recomputed = 1;
    return PFM_OK;
}

static int pfm__decode(pfm__ctx *c, int flags, pfm_mesh *m) {
    static const uint8_t magic[8] = {0x89, 'P', 'F', 'M', '\r', '\n', 0x1a, '\n'};
    const uint8_t *d = c->data;
    uint64_t size = c->size, hsize, count, table_end, nv, nt, nb, i, rs;
    uint32_t encoding, k;
    pfm__section *secs = NULL, *sorted = NULL;
    int idx[PFM__KNOWN], rc = PFM_OK;

    if (size > 0 && memcmp(d, magic, size < 8 ? (size_t)size : 8) != 0) return pfm__fail(c, PFM_ERR_NOT_PFM, "not a .pfm file (bad magic)");
    if (size >= 12 && pfm__u16(d + 8) != 1)
        return pfm__fail(c, PFM_ERR_VERSION, "file is version %u.%u, this reader reads 1.x", pfm__u16(d + 8), pfm__u16(d + 10));
    if (size < PFM__HEADER)
        return pfm__fail(c, PFM_ERR_CORRUPT, "truncated: %llu bytes, shorter than the fixed header", (unsigned long long)size);
    m->major = 1;
    m->minor = pfm__u16(d + 10);
    hsize = pfm__u32(d + 16);
    count = pfm__u32(d + 20);
    if (hsize < PFM__HEADER || hsize % 8 != 0) return pfm__fail(c, PFM_ERR_CORRUPT, "header size %llu is invalid", (unsigned long long)hsize);
    if (hsize > size || count > (size - hsize) / PFM__ENTRY)
        return pfm__fail(c, PFM_ERR_CORRUPT, "truncated: the section table extends past the end of the file");
    table_end = hsize + count * PFM__ENTRY;
    if (!(flags & PFM_SKIP_CRC)) {
        uint32_t got = pfm__crc(c->crc_table, pfm__crc(c->crc_table, 0, d, 12), d + 16, table_end - 16);
        if (got != pfm__u32(d + 12))
            return pfm__fail(c, PFM_ERR_CHECKSUM, "CRC-32C mismatch in the header and section table: stored %#010x, computed %#010x",
                             pfm__u32(d + 12), got);
    }
    nv = pfm__u64(d + 24);
    nt = pfm__u64(d + 32);
    nb = pfm__u64(d + 40);
    encoding = pfm__u32(d + 48);
    m->mapping = pfm__u32(d + 52);
    m->modulus = pfm__f64(d + 56);
    m->pressure_cap = pfm__f64(d + 64);
    m->dissipation = pfm__f64(d + 72);
    m->friction = pfm__f64(d + 80);
    m->length_unit = pfm__f64(d + 88);
    for (k = 0; k < 6; k++) m->bbox[k] = pfm__f64(d + 96 + 8 * k);
    memcpy(m->source_sha256, d + 144, 32);
    if (encoding > 1) return pfm__fail(c, PFM_ERR_CORRUPT, "unknown value encoding %u", encoding);
    m->float32 = encoding == 1;
    rs = m->float32 ? 4 : 8;

    for (k = 0; k < PFM__KNOWN; k++) idx[k] = -1;
    secs = (pfm__section *)pfm__alloc(count, sizeof *secs);
    sorted = (pfm__section *)pfm__alloc(count, sizeof *sorted);
    if (!secs || !sorted) {
        rc = pfm__fail(c, PFM_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < count; i++) {
        const uint8_t *e = d + hsize + i * PFM__ENTRY;
        pfm__section *t = &secs[i];
        t->id = pfm__u32(e);
        t->crc = pfm__u32(e + 4);
        t->offset = pfm__u64(e + 8);
        t->length = pfm__u64(e + 16);
        if (t->offset % 8 != 0 || t->offset < table_end) {
            rc = pfm__fail(c, PFM_ERR_CORRUPT, "section %u (%s): offset %llu is unaligned or inside the header", t->id,
                           pfm__name(t->id), (unsigned long long)t->offset);
            goto done;
        }
        if (t->offset > size || t->length > size - t->offset) {
            rc = pfm__fail(c, PFM_ERR_CORRUPT, "truncated: section %u (%s) extends past the end of the file", t->id, pfm__name(t->id));
            goto done;
        }
        if (t->id < PFM__KNOWN) idx[t->id] = (int)i;
    }
    if (count > 0) memcpy(sorted, secs, (size_t)count * sizeof *secs);
    if (count > 1) qsort(sorted, (size_t)count, sizeof *sorted, pfm__cmp_id);
    for (i = 1; i < count; i++)
        if (sorted[i - 1].id == sorted[i].id) {
            rc = pfm__fail(c, PFM_ERR_CORRUPT, "section %u (%s) appears twice", sorted[i].id, pfm__name(sorted[i].id));
            goto done;
        }
    if (count > 1) qsort(sorted, (size_t)count, sizeof *sorted, pfm__cmp_section);
    for (i = 1; i < count; i++)
        if (sorted[i - 1].offset + sorted[i - 1].length > sorted[i].offset) {
            rc = pfm__fail(c, PFM_ERR_CORRUPT, "sections %u and %u overlap", sorted[i - 1].id, sorted[i].id);
            goto done;
        }
    if (!(flags & PFM_SKIP_CRC))
        for (i = 0; i < count; i++) {
            uint32_t got = pfm__crc(c->crc_table, 0, d + secs[i].offset, secs[i].length);
            if (got != secs[i].crc) {
                rc = pfm__fail(c, PFM_ERR_CHECKSUM, "CRC-32C mismatch in section %u (%s): stored %#010x, computed %#010x",
                               secs[i].id, pfm__name(secs[i].id), secs[i].crc, got);
                goto done;
            }
        }
    if (nv > 0x7FFFFFFFu || nt == 0 || nt > (1u << 28) || nb > 4 * nt) {
        rc = pfm__fail(c, PFM_ERR_CORRUPT, "counts out of range: %llu vertices, %llu tets, %llu boundary triangles",
                       (unsigned long long)nv, (unsigned long long)nt, (unsigned long long)nb);
        goto done;
    }
    {
        struct {
            uint32_t id;
            uint64_t length;
            int optional;
        } want[7];
        want[0].id = PFM__POSITIONS, want[0].length = 3 * rs * nv, want[0].optional = 0;
        want[1].id = PFM__TETS, want[1].length = 16 * nt, want[1].optional = 0;
        want[2].id = PFM__EPSILON, want[2].length = rs * nv, want[2].optional = 0;
        want[3].id = PFM__GRADIENT, want[3].length = 3 * rs * nv, want[3].optional = 1;
        want[4].id = PFM__TAGS, want[4].length = nv, want[4].optional = 0;
        want[5].id = PFM__BOUNDARY, want[5].length = 4 * nb, want[5].optional = 0;
        want[6].id = PFM__BVH_ITEMS, want[6].length = 4 * nt, want[6].optional = 1;
        for (k = 0; k < 7; k++) {
            int j = idx[want[k].id];
            if (j < 0 && !want[k].optional) {
                rc = pfm__fail(c, PFM_ERR_CORRUPT, "required section %u (%s) is missing", want[k].id, pfm__name(want[k].id));
                goto done;
            }
            if (j >= 0 && secs[j].length != want[k].length) {
                rc = pfm__fail(c, PFM_ERR_CORRUPT, "section %u (%s) is %llu bytes, want %llu", want[k].id, pfm__name(want[k].id),
                               (unsigned long long)secs[j].length, (unsigned long long)want[k].length);
                goto done;
            }
        }
    }
    {
        int nb9 = idx[PFM__BVH_BOUNDS] >= 0, nb10 = idx[PFM__BVH_NODES] >= 0, nb11 = idx[PFM__BVH_ITEMS] >= 0;
        if (nb9 != nb10 || nb9 != nb11) {
            rc = pfm__fail(c, PFM_ERR_CORRUPT, "BVH: sections 9, 10 and 11 must all be present or all absent");
            goto done;
        }
        if (nb9) {
            uint64_t lb = secs[idx[PFM__BVH_BOUNDS]].length, ln = secs[idx[PFM__BVH_NODES]].length;
            if (lb % 48 != 0 || ln % 8 != 0 || lb / 48 != ln / 8 || lb == 0) {
                rc = pfm__fail(c, PFM_ERR_CORRUPT, "BVH: box and node sections do not describe the same whole nodes");
                goto done;
            }
            m->bvh_num_nodes = (uint32_t)(ln / 8);
        }
    }
    m->num_vertices = (uint32_t)nv;
    m->num_tets = (uint32_t)nt;
    m->num_boundary = (uint32_t)nb;

    /* header constants */
    if (!pfm__finite(m->modulus) || m->modulus <= 0) {
        rc = pfm__fail(c, PFM_ERR_INVALID, "modulus E = %g Pa: must be positive and finite", m->modulus);
        goto done;
    }
    if (m->mapping == PFM_LINEAR ? m->pressure_cap != 0
        : m->mapping == PFM_LOG  ? !(pfm__finite(m->pressure_cap) && m->pressure_cap > m->modulus)
                                 : 1) {
        rc = pfm__fail(c, PFM_ERR_INVALID, "pressure mapping %u with cap %g Pa: unknown mapping or bad cap", m->mapping, m->pressure_cap);
        goto done;
    }
    if (!pfm__finite(m->dissipation) || m->dissipation < 0 || !pfm__finite(m->friction) || m->friction < 0 ||
        !pfm__finite(m->length_unit) || m->length_unit < 0) {
        rc = pfm__fail(c, PFM_ERR_INVALID, "dissipation, friction or length unit is negative or not finite");
        goto done;
    }

    /* arrays */
    if ((rc = pfm__reals(c, &secs[idx[PFM__POSITIONS]], m->float32, &m->positions)) != PFM_OK) goto done;
    if ((rc = pfm__u32s(c, &secs[idx[PFM__TETS]], &m->tets)) != PFM_OK) goto done;
    if ((rc = pfm__reals(c, &secs[idx[PFM__EPSILON]], m->float32, &m->epsilon)) != PFM_OK) goto done;
    if (idx[PFM__GRADIENT] >= 0 && (rc = pfm__reals(c, &secs[idx[PFM__GRADIENT]], m->float32, &m->gradient)) != PFM_OK) goto done;
    m->tags = (uint8_t *)pfm__alloc(nv, 1);
    if (!m->tags) {
        rc = pfm__fail(c, PFM_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (nv > 0) memcpy(m->tags, d + secs[idx[PFM__TAGS]].offset, (size_t)nv);
    if (idx[PFM__PARAMS] >= 0 && (rc = pfm__json(c, &secs[idx[PFM__PARAMS]], &m->build_params, &m->build_params_len)) != PFM_OK) goto done;
    if (idx[PFM__REPORT] >= 0 && (rc = pfm__json(c, &secs[idx[PFM__REPORT]], &m->build_report, &m->build_report_len)) != PFM_OK) goto done;
    if (m->bvh_num_nodes > 0) {
        uint32_t *nodes = NULL;
        if ((rc = pfm__reals(c, &secs[idx[PFM__BVH_BOUNDS]], 0, &m->bvh_bounds)) != PFM_OK) goto done;
        if ((rc = pfm__u32s(c, &secs[idx[PFM__BVH_NODES]], &nodes)) != PFM_OK) goto done;
        m->bvh_nodes = (int32_t *)nodes; /* two's complement: same bits */
        for (i = 0; i < 2 * (uint64_t)m->bvh_num_nodes; i++) m->bvh_nodes[i] = (int32_t)(nodes[i] <= 0x7FFFFFFFu ? (int32_t)nodes[i] : -1);
        if ((rc = pfm__u32s(c, &secs[idx[PFM__BVH_ITEMS]], &m->bvh_items)) != PFM_OK) goto done;
    }

    /* contents */
    for (i = 0; i < 3 * nv; i++)
        if (!pfm__finite(m->positions[i])) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "vertex %llu: position is not finite", (unsigned long long)(i / 3));
            goto done;
        }
    for (i = 0; i < nv; i++)
        if (!(m->epsilon[i] >= 0 && m->epsilon[i] <= 1)) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "vertex %llu: epsilon %g is outside [0, 1]", (unsigned long long)i, m->epsilon[i]);
            goto done;
        }
    if (m->gradient)
        for (i = 0; i < 3 * nv; i++)
            if (!pfm__finite(m->gradient[i])) {
                rc = pfm__fail(c, PFM_ERR_INVALID, "vertex %llu: gradient is not finite", (unsigned long long)(i / 3));
                goto done;
            }
    for (i = 0; i < nv; i++)
        if (m->tags[i] > 2) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "vertex %llu: tag %u is not 0, 1 or 2", (unsigned long long)i, m->tags[i]);
            goto done;
        }
    for (i = 0; i < nt; i++) {
        const uint32_t *q = m->tets + 4 * i;
        for (k = 0; k < 4; k++)
            if (q[k] >= nv) {
                rc = pfm__fail(c, PFM_ERR_INVALID, "tet %llu: vertex index %u out of range [0, %llu)", (unsigned long long)i, q[k],
                               (unsigned long long)nv);
                goto done;
            }
        if (pfm__orient(m->positions + 3 * (size_t)q[0], m->positions + 3 * (size_t)q[1], m->positions + 3 * (size_t)q[2],
                        m->positions + 3 * (size_t)q[3]) <= 0) {
            rc = pfm__fail(c, PFM_ERR_INVALID, "tet %llu (vertices %u %u %u %u): volume is not positive", (unsigned long long)i, q[0],
                           q[1], q[2], q[3]);
            goto done;
        }
    }
    if (m->bvh_num_nodes > 0 && (rc = pfm__check_bvh(c, m)) != PFM_OK) goto done;
    {
        const uint8_t *refs = d + secs[idx[PFM__BOUNDARY]].offset;
        m->boundary = (uint32_t *)pfm__alloc(3 * nb, sizeof *m->boundary);
        if (!m->boundary) {
            rc = pfm__fail(c, PFM_ERR_NOMEM, "out of memory");
            goto done;
        }
        for (i = 0; i < nb; i++) {
            uint32_t ref = pfm__u32(refs + 4 * i), t = ref >> 4, r = ref >> 2 & 3;
            const unsigned char *f = pfm__faces[ref & 3];
            if (t >= nt || r > 2) {
                rc = pfm__fail(c, PFM_ERR_CORRUPT, "boundary triangle %llu: bad face reference %#x", (unsigned long long)i, ref);
                goto done;
            }
            for (k = 0; k < 3; k++) m->boundary[3 * i + k] = m->tets[4 * (size_t)t + f[(r + k) % 3]];
        }
    }
    if (!m->gradient && (rc = pfm__gradient(c, m)) != PFM_OK) goto done;
    {
        double b[6];
        for (k = 0; k < 3; k++) b[k] = b[3 + k] = m->positions[k];
        for (i = 0; i < nv; i++)
            for (k = 0; k < 3; k++) {
                double x = m->positions[3 * i + k];
                if (x < b[k]) b[k] = x;
                if (x > b[3 + k]) b[3 + k] = x;
            }
        for (k = 0; k < 6; k++)
            if (nv > 0 && b[k] != m->bbox[k]) {
                rc = pfm__fail(c, PFM_ERR_INVALID, "header bounding box differs from the positions'");
                goto done;
            }
    }
done:
    free(secs);
    free(sorted);
    return rc;
}

void pfm_free(pfm_mesh *m) {
    free(m->positions);
    free(m->tets);
    free(m->epsilon);
    free(m->gradient);
    free(m->tags);
    free(m->boundary);
    free(m->build_params);
    free(m->build_report);
    free(m->bvh_bounds);
    free(m->bvh_nodes);
    free(m->bvh_items);
    memset(m, 0, sizeof *m);
}

static int pfm__read(const void *data, size_t size, int flags, pfm_mesh *m, char *err, size_t err_size, const char *name) {
    pfm__ctx *c = (pfm__ctx *)malloc(sizeof *c);
    int rc;
    memset(m, 0, sizeof *m);
    if (!c) {
        if (err && err_size) snprintf(err, err_size, "out of memory");
        return PFM_ERR_NOMEM;
    }
    c->data = (const uint8_t *)data;
    c->size = size;
    c->err = err;
    c->err_size = err_size;
    c->name = name;
    pfm__crc_init(c->crc_table);
    rc = pfm__decode(c, flags, m);
    if (rc != PFM_OK) pfm_free(m);
    free(c);
    return rc;
}

int pfm_read_memory(const void *data, size_t size, int flags, pfm_mesh *m, char *err, size_t err_size) {
    return pfm__read(data, size, flags, m, err, err_size, NULL);
}

int pfm_read_file(const char *path, int flags, pfm_mesh *m, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    int rc;
    memset(m, 0, sizeof *m);
    if (!f) {
        if (err && err_size) snprintf(err, err_size, "%s: cannot open", path);
        return PFM_ERR_IO;
    }
    /* Read to the end in growing chunks: the size is what is really there. */
    for (;;) {
        size_t got;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 1 << 16;
            uint8_t *nb = ncap > cap ? (uint8_t *)realloc(buf, ncap) : NULL;
            if (!nb) {
                free(buf);
                fclose(f);
                if (err && err_size) snprintf(err, err_size, "%s: out of memory", path);
                return PFM_ERR_NOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        if (err && err_size) snprintf(err, err_size, "%s: read error", path);
        return PFM_ERR_IO;
    }
    fclose(f);
    rc = pfm__read(buf, n, flags, m, err, err_size, path);
    free(buf);
    return rc;
}

double pfm_pressure(const pfm_mesh *m, double eps) {
    double e = m->modulus, cap = m->pressure_cap, r, q;
    if (m->mapping != PFM_LOG) return e * eps;
    r = 1 - eps;
    q = exp(1 - cap / e);
    if (r > q) return -e * log1p(-eps);
    if (q == 0) return cap;
    return cap - e * r / q;
}

#endif /* PFM_IMPLEMENTATION_DONE */
#endif /* PFM_IMPLEMENTATION */
