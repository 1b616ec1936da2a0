#!/usr/bin/env bash
# Compare the laplace package's solver with SciPy on the same matrix: a
# ~1M-vertex tet mesh (jittered Kuhn cube with a rigid core) is assembled by
# laplace.ReducedSystem and written out; then, RUNS times and interleaved so
# that both see the same machine load, laplace.SolveSystem solves it
# (AMG-preconditioned CG, and Jacobi-CG as a baseline) and SciPy solves it
# with Jacobi-preconditioned scipy.sparse.linalg.cg (SciPy has no AMG), all
# to the relative residual 1e-10. Prints medians and ratios.
# Usage: bench/laplace/run.sh [vertices]   (default 1000000; RUNS=k, default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-1000000}"
runs="${RUNS:-5}"
py=/usr/bin/python3 # Debian's interpreter, which python3-scipy installs into
if ! "$py" -c 'import scipy' 2>/dev/null; then
	apt-get update -qq && apt-get install -y -qq python3-scipy >/dev/null
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/system" ./bench/laplace/system
echo "== system"
"$dir/system" write -n "$n" -out "$dir"
load0="$(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
	"$dir/system" solve -dir "$dir" >>"$dir/go.jsonl"
	"$py" bench/laplace/scipy_cg.py "$dir" >>"$dir/scipy.jsonl"
done
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg) (at the start: $load0)"
"$py" - "$dir" <<'PY'
import json, statistics, sys
d = sys.argv[1]
meta = json.load(open(f"{d}/meta.json"))
go = [json.loads(l) for l in open(f"{d}/go.jsonl")]
sc = [json.loads(l) for l in open(f"{d}/scipy.jsonl")]
med = lambda rows, k: statistics.median(r[k] for r in rows)
print(f"unknowns {meta['unknowns']}, nnz {meta['nnz']}, tets {meta['tets']}; assembly {meta['assemble_s']:.3f} s; medians of {len(go)} interleaved runs")
amg, jac, scj = med(go, 'amg_solve_s'), med(go, 'jacobi_solve_s'), med(sc, 'jacobi_cg_s')
print(f"laplace AMG-CG    {amg:8.3f} s (setup {med(go, 'amg_setup_s'):.3f} + CG {med(go, 'amg_cg_s'):.3f}), {med(go, 'amg_iterations'):.0f} iterations; CPU {med(go, 'amg_cpu_s'):.3f} s")
print(f"laplace Jacobi-CG {jac:8.3f} s, {med(go, 'jacobi_iterations'):.0f} iterations; CPU {med(go, 'jacobi_cpu_s'):.3f} s")
print(f"SciPy Jacobi-CG   {scj:8.3f} s, {med(sc, 'jacobi_cg_iterations'):.0f} iterations; CPU {med(sc, 'jacobi_cg_cpu_s'):.3f} s; SciPy SpMV {med(sc, 'spmv_ns_per_nnz'):.2f} ns/nnz")
print(f"ratio SciPy Jacobi-CG / laplace AMG-CG:    {scj / amg:.1f}")
print(f"ratio SciPy Jacobi-CG / laplace Jacobi-CG: {scj / jac:.2f}")
print(f"ratios of CPU time: {med(sc, 'jacobi_cg_cpu_s') / med(go, 'amg_cpu_s'):.1f} (AMG), {med(sc, 'jacobi_cg_cpu_s') / med(go, 'jacobi_cpu_s'):.2f} (Jacobi)")
PY
