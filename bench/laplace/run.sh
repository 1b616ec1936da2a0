#!/usr/bin/env bash
# Compare one Laplace solve of pfmesh's laplace package with SciPy on the
# same matrix: a ~1M-vertex tet mesh (jittered Kuhn cube with a rigid core)
# is solved by laplace.Solve (AMG-preconditioned CG, and Jacobi-CG as a
# baseline), its reduced system is exported, and SciPy solves the same
# system with Jacobi-preconditioned CG (scipy.sparse.linalg.cg; SciPy has
# no AMG) to the same relative residual 1e-10. Prints medians and ratios.
# Usage: bench/laplace/run.sh [vertices]   (default 1000000; RUNS=k solves per solver, default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
n="${1:-1000000}"
py=/usr/bin/python3 # Debian's interpreter, which python3-scipy installs into
if ! "$py" -c 'import scipy' 2>/dev/null; then
	apt-get update -qq && apt-get install -y -qq python3-scipy >/dev/null
fi
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
echo "== laplace.Solve (medians of ${RUNS:-5} runs)"
go run ./bench/laplace/export -n "$n" -runs "${RUNS:-5}" -out "$dir" | tee "$dir/go.json"
echo "== SciPy (medians)"
"$py" bench/laplace/scipy_cg.py "$dir" | tee "$dir/scipy.json"
"$py" - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
g = json.load(open(f"{d}/meta.json"))
s = json.load(open(f"{d}/scipy.json"))
print("== ratios (SciPy time / pfmesh time; > 1 means pfmesh is faster)")
print(f"unknowns {g['unknowns']}, nnz {g['nnz']}")
print(f"AMG-CG solve (setup + iterations) {g['amg_solve_s']:.3f} s, {g['amg_iterations']:.0f} iterations;"
      f" SciPy Jacobi-CG {s['jacobi_cg_s']:.3f} s, {s['jacobi_cg_iterations']} iterations:"
      f" ratio {s['jacobi_cg_s'] / g['amg_solve_s']:.1f}")
print(f"Jacobi-CG vs Jacobi-CG: pfmesh {g['jacobi_cg_s']:.3f} s ({g['jacobi_iterations']:.0f} it),"
      f" SciPy {s['jacobi_cg_s']:.3f} s ({s['jacobi_cg_iterations']} it): ratio {s['jacobi_cg_s'] / g['jacobi_cg_s']:.2f}")
print(f"assembly {g['amg_assemble_s']:.3f} s for {g['tets']} tets")
PY
