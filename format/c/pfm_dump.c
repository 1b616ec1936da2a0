/* pfm_dump: read .pfm files with pfm.h and print every value each holds,
 * after a line "file PATH", one array per line, in the text form format's
 * Go tests compare with the Go reader:
 *
 *     pfm_dump [-skip-crc] FILE...
 *
 * Reals print with 17 significant digits, which round-trip exactly. For a
 * bad file it prints "error MESSAGE" instead, and the message to stderr;
 * it exits 1 if any file was bad. */
#define PFM_IMPLEMENTATION
#include "pfm.h"

#include <stdio.h>
#include <string.h>

static void reals(const char *name, const double *v, size_t n) {
    size_t i;
    printf("%s", name);
    for (i = 0; i < n; i++) printf(" %.17g", v[i]);
    printf("\n");
}

static void ints(const char *name, const uint32_t *v, size_t n) {
    size_t i;
    printf("%s", name);
    for (i = 0; i < n; i++) printf(" %lu", (unsigned long)v[i]);
    printf("\n");
}

static void text(const char *name, const char *s, size_t n) {
    size_t i;
    printf("%s ", name);
    for (i = 0; i < n; i++) printf("%02x", (unsigned char)s[i]);
    printf("\n");
}

static void dump(const pfm_mesh *mesh) {
    static const double eps[] = {0, 0.125, 0.5, 0.9, 0.99, 0.999999, 1};
    const pfm_mesh m = *mesh;
    size_t k;
    int i;
    printf("version %u %u\n", m.major, m.minor);
    printf("float32 %d\n", m.float32);
    printf("counts %lu %lu %lu\n", (unsigned long)m.num_vertices, (unsigned long)m.num_tets, (unsigned long)m.num_boundary);
    printf("mapping %lu\n", (unsigned long)m.mapping);
    printf("constants %.17g %.17g %.17g %.17g %.17g\n", m.modulus, m.pressure_cap, m.dissipation, m.friction, m.length_unit);
    reals("bbox", m.bbox, 6);
    printf("sha256 ");
    for (i = 0; i < 32; i++) printf("%02x", m.source_sha256[i]);
    printf("\n");
    reals("positions", m.positions, 3 * (size_t)m.num_vertices);
    ints("tets", m.tets, 4 * (size_t)m.num_tets);
    reals("epsilon", m.epsilon, m.num_vertices);
    reals("gradient", m.gradient, 3 * (size_t)m.num_vertices);
    printf("tags");
    for (k = 0; k < m.num_vertices; k++) printf(" %u", m.tags[k]);
    printf("\n");
    ints("boundary", m.boundary, 3 * (size_t)m.num_boundary);
    if (m.build_params) text("build_params", m.build_params, m.build_params_len);
    if (m.build_report) text("build_report", m.build_report, m.build_report_len);
    if (m.bvh_num_nodes > 0) {
        reals("bvh_bounds", m.bvh_bounds, 6 * (size_t)m.bvh_num_nodes);
        ints("bvh_nodes", (const uint32_t *)m.bvh_nodes, 2 * (size_t)m.bvh_num_nodes);
        ints("bvh_items", m.bvh_items, m.num_tets);
    }
    printf("pressure");
    for (k = 0; k < sizeof eps / sizeof *eps; k++) printf(" %.17g %.17g", eps[k], pfm_pressure(&m, eps[k]));
    printf("\n");
}

int main(int argc, char **argv) {
    pfm_mesh m;
    char err[512];
    int flags = 0, i, first = 1, failed = 0;
    if (argc > 1 && strcmp(argv[1], "-skip-crc") == 0) {
        flags = PFM_SKIP_CRC;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: pfm_dump [-skip-crc] FILE...\n");
        return 2;
    }
    for (i = first; i < argc; i++) {
        printf("file %s\n", argv[i]);
        if (pfm_read_file(argv[i], flags, &m, err, sizeof err) != PFM_OK) {
            fprintf(stderr, "%s\n", err);
            printf("error %s\n", err);
            failed = 1;
            continue;
        }
        dump(&m);
        pfm_free(&m);
    }
    return failed;
}
