#!/bin/sh
# Load time of a 998,250-tet pressure-field mesh: pfmesh's checked .pfm
# loaders against VTK's readers (the ones ParaView and Drake use) on the
# same mesh as .vtu (binary appended) and legacy ASCII .vtk, in the same
# run. Prints medians of 5 and the ratios. Needs root for apt-get.
set -eu
cd "$(dirname "$0")/../.."
if ! python3 -c 'import vtk' 2>/dev/null; then
    apt-get install -y python3-vtk9 >/dev/null
fi
PY=python3
python3 -c 'import vtk' 2>/dev/null || PY=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
PFMESH_BENCH_OUT=$dir go test ./format -run '^TestBenchFiles$' -count=1 >/dev/null
ls -l "$dir" | awk 'NR > 1 { printf "%-10s %10d bytes\n", $9, $5 }'

go test ./format -run XXX -bench 'OpenPFM/tets=1e6|ReadPFM/tets=1e6' -benchtime 10x -count 5 > "$dir/go.txt"
"$PY" - "$dir" > "$dir/vtk.txt" <<'PYEOF'
import sys, time, statistics, vtk
d = sys.argv[1]
for name, make in (("box.vtu", vtk.vtkXMLUnstructuredGridReader), ("box.vtk", vtk.vtkUnstructuredGridReader)):
    runs = []
    for _ in range(5 if name.endswith("vtu") else 3):
        r = make()
        r.SetFileName(d + "/" + name)
        if name.endswith("vtk"):
            r.ReadAllScalarsOn(); r.ReadAllVectorsOn(); r.ReadAllFieldsOn()
        t = time.perf_counter()
        r.Update()
        runs.append(time.perf_counter() - t)
        assert r.GetOutput().GetNumberOfCells() == 998250
    print(name, statistics.median(runs) * 1000)
PYEOF
awk '
FNR == NR && /^Benchmark/ { b = $1; sub(/-[0-9]+$/, "", b); v[b] = v[b] " " $3 / 1e6; c[b] = c[b] " " $(NF-1); next }
FNR != NR { vtk[$1] = $2 }
function median(s,   a, k, i, j, t) { k = split(s, a, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
END {
    for (b in v) printf "%-40s median %8.1f ms wall, %6.1f ms CPU\n", b, median(v[b]), median(c[b])
    full = median(v["BenchmarkOpenPFM/tets=1e6"])
    printf "%-40s median %8.1f ms\n", "VTK XML reader, box.vtu", vtk["box.vtu"]
    printf "%-40s median %8.1f ms\n", "VTK legacy reader, box.vtk (ASCII)", vtk["box.vtk"]
    printf "ratio vtu/pfm %.1f, vtk/pfm %.1f (OpenPFM with every check and CRC)\n", vtk["box.vtu"] / full, vtk["box.vtk"] / full
}' "$dir/go.txt" "$dir/vtk.txt"
