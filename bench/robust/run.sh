#!/bin/sh
# Robust mesher benchmark: pfmesh's stuffing.Build (BenchmarkBuild, a ~1M-tet
# mesh of the corpus aneurysm) against TetGen on the same dirty corpus files.
# TetGen needs a valid PLC, so on dirty input it is expected to refuse; the
# script records what it does and how long it takes. Run from the module
# root: sh bench/robust/run.sh
set -u
command -v tetgen >/dev/null || apt-get install -y tetgen >/dev/null
corpus=${PFMESH_CORPUS:-../shared/corpus}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== pfmesh robust (go test -bench BenchmarkBuild, median of 5)"
go test -run XXX -bench 'BenchmarkBuild' -benchtime 1x -count 5 ./internal/stuffing/ | grep -E '^Benchmark'

echo "== tetgen -pq1.414 on the same files (STL as read)"
for f in plb_aneurysm.stl assimp_sphereWithHole.stl openscad-testing_issue1580-back-to-back.stl yade_baraban.stl occt_propeller.stl; do
	cp "$corpus/$f" "$tmp/in.stl"
	start=$(date +%s.%N)
	out=$(timeout 300 tetgen -pq1.414Q "$tmp/in.stl" 2>&1)
	rc=$?
	end=$(date +%s.%N)
	tets=0
	[ -f "$tmp/in.1.ele" ] && tets=$(head -1 "$tmp/in.1.ele" | awk '{print $1}')
	printf '%-45s exit %3d  %6.2fs  tets %s  %s\n' "$f" "$rc" "$(echo "$end - $start" | bc)" "$tets" \
		"$(echo "$out" | grep -iE 'error|intersect|abort|fail' | head -1 | cut -c1-80)"
	rm -f "$tmp"/in.1.*
done
