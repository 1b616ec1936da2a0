#!/usr/bin/env bash
# Time the contact evaluator against tet count, and its BVH build.
# Two compliant balls of radius 3 (ε = 1 − r/R), centres 5 apart (overlap
# 1), B turned by (0.1, 0.2, 0.3) rad: contact surface and wrench per call,
# one goroutine, steady state (allocation-free). Prints, per size, the
# median over runs of wall time and of thread CPU time (on a shared,
# loaded machine the CPU time is the better measure of the work), and the
# ratio to the issue's 1 ms target (4k tets) and to Drake's published
# 60 ms for its similar ellipsoid–sphere medium-overlap case. No peer tool
# for hydroelastic contact is packaged by Debian, so Drake's figure is
# quoted, not measured here.
# Usage: bench/contact/run.sh [count]   (default 5 runs per size)
set -euo pipefail
cd "$(dirname "$0")/../.."
count="${1:-5}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
go test ./contact -run '^$' -bench 'Spheres|BodyBuild' -benchtime 1s -count "$count" >"$out"

# median of the values in field f of lines matching a benchmark name
awk -v target=1 -v drake=60 '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
/^BenchmarkSpheres\// {
	split($1, p, "="); sub(/-[0-9]+$/, "", p[2]); k = p[2] + 0
	if (!(k in seen)) { seen[k] = 1; order[++ns] = k }
	nw[k]++; wall[k, nw[k]] = $3 / 1e6
	for (i = 4; i < NF; i++) {
		if ($(i+1) == "cpu-ns/op") cpu[k, nw[k]] = $i / 1e6
		if ($(i+1) == "polygons") poly[k] = $i
		if ($(i+1) == "pairs") pairs[k] = $i
	}
}
/^BenchmarkBodyBuild\/tree\// {
	split($1, p, "="); sub(/-[0-9]+$/, "", p[2]); k = p[2] + 0
	if (!(k in bseen)) { bseen[k] = 1; border[++nb] = k }
	nbw[k]++; bwall[k, nbw[k]] = $3 / 1e6
	for (i = 4; i < NF; i++) if ($(i+1) == "tets/cpu-s") brate[k, nbw[k]] = $i / 1e6
}
END {
	printf "%-9s %9s %8s %12s %12s %14s\n", "tets", "polygons", "pairs", "wall ms", "cpu ms", "cpu us/polygon"
	for (s = 1; s <= ns; s++) {
		k = order[s]; n = nw[k]
		for (i = 1; i <= n; i++) { w[i] = wall[k, i]; c[i] = cpu[k, i] }
		mw = median(w, n); mc = median(c, n)
		printf "%-9d %9d %8d %12.3f %12.3f %14.2f\n", k, poly[k], pairs[k], mw, mc, 1000 * mc / poly[k]
		if (k > 3000 && k < 6000) { t4 = mc; k4 = k }
	}
	if (k4) printf "\n%d tets: %.3f ms CPU = %.2f x the 1 ms target; Drake (published, ~4k tets) 60 ms = %.0f x this\n", k4, t4, t4 / target, drake / t4
	printf "\nBVH build (tet boxes + bvh.BuildMorton), target >= 5 M tets/s\n"
	printf "%-9s %12s %16s\n", "tets", "wall ms", "M tets/cpu-s"
	for (s = 1; s <= nb; s++) {
		k = border[s]; n = nbw[k]
		for (i = 1; i <= n; i++) { w[i] = bwall[k, i]; c[i] = brate[k, i] }
		printf "%-9d %12.3f %16.2f\n", k, median(w, n), median(c, n)
	}
}' "$out"
