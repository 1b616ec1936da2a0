#!/bin/sh
# Default builds: `pfmesh build MODEL -E 1MPa` (medial core, flat faces
# merged, the whole pipeline: check, core, mesh, solve, write) on every
# corpus model, beside TetGen -pq1.414 meshing the same surface with a
# volume bound of 2.5·V/N, N pfmesh's tets (a comparable count where its
# quality refinement does not add more: both counts are printed) — the
# first step of a hand-made pipeline, which still lacks the field.
# Prints, per model, the path pfmesh took, tets, wall and user-CPU seconds
# (medians of RUNS runs), peak resident memory per tet, the smallest
# dihedral angle overall and off the core (where ε varies), then TetGen's
# tets, wall seconds, smallest angle, and the ratio of pfmesh's whole build
# to TetGen's mesh alone. TetGen refuses the dirty models (open,
# self-intersecting: it aborts or writes no tets), which pfmesh takes on its
# robust path: "-" there.
# Needs python3 (to read inspect --json). The machine is shared: compare
# ratios from one run.
#
#	bench/build/run.sh                          # every corpus model, RUNS=1
#	RUNS=3 MODELS="netgen_hinge.stl bunny_npm.obj" bench/build/run.sh
set -eu
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-1}
corpus=${CORPUS:-../shared/corpus}
MODELS=${MODELS:-$(awk -F'\t' 'NR > 1 { print $1 }' "$corpus/MANIFEST.tsv")}
command -v tetgen >/dev/null || apt-get install -y tetgen >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pfmesh" ./cmd/pfmesh
go build -o "$tmp/driver" ./bench/tetgen/driver

# "wall user kilobytes": the median wall and user seconds and the largest
# peak resident set of RUNS runs of a command; nothing when it fails (its
# stderr is then in $tmp/err).
runs() {
	: >"$tmp/times"
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f "%e %U %M" -o "$tmp/one" "$@" >/dev/null 2>"$tmp/err" || return 0
		cat "$tmp/one" >>"$tmp/times"
	done
	echo "$(median 1) $(median 2) $(sort -g -k3 "$tmp/times" | tail -1 | cut -d' ' -f3)"
}

# median N: the median of column N of the runs' times.
median() {
	cut -d' ' -f"$1" "$tmp/times" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR+1)/2)] }'
}

printf '%-44s %-6s %8s %7s %7s %6s %6s %7s | %-6s %8s %7s %6s %6s\n' \
	model path tets wall cpu B/tet min off-core tetgen tets wall min ratio
for f in $MODELS; do
	set -- $(runs "$tmp/pfmesh" build "$corpus/$f" -E 1MPa -o "$tmp/out.pfm" --quiet)
	if [ $# -eq 0 ]; then
		printf '%-44s build failed: %s\n' "$f" "$(grep -v 'exit status' "$tmp/err" | head -1)"
		continue
	fi
	pw=$1 pu=$2 pm=$3
	set -- $("$tmp/pfmesh" inspect "$tmp/out.pfm" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
m = d["mesh"]
print(d["build_report"]["mesher"], m["tets"], m["volume_m3"], m["quality"]["min_dihedral_deg"], m["quality_off_core"]["min_dihedral_deg"])')
	path=$1 pt=$2 vol=$3 pmin=$4 poff=$5
	tt=- tw=- tmin=- ratio=-
	if "$tmp/driver" convert "$corpus/$f" "$tmp/in" 2>/dev/null; then
		a=$(awk -v v="$vol" -v n="$pt" 'BEGIN { printf "%.6g", 2.5 * v / n }')
		rm -f "$tmp"/in.1.*
		set -- $(runs timeout 600 tetgen -pq1.414a"$a"Q "$tmp/in.smesh")
		if [ $# -gt 0 ] && [ -f "$tmp/in.1.ele" ]; then
			tw=$1
			set -- $("$tmp/driver" quality "$tmp/in.1")
			tt=$1 tmin=$2
			ratio=$(awk -v p="$pw" -v t="$tw" 'BEGIN { printf "%.2f", p / t }')
		fi
	fi
	awk -v f="$f" -v path="$path" -v pt="$pt" -v pw="$pw" -v pu="$pu" -v pm="$pm" -v pmin="$pmin" -v poff="$poff" \
		-v tt="$tt" -v tw="$tw" -v tmin="$tmin" -v r="$ratio" 'BEGIN {
		printf "%-44s %-6s %8d %7.2f %7.2f %6.0f %6.1f %7.1f | %-6s %8s %7s %6s %6s\n",
			f, path, pt, pw, pu, 1024 * pm / pt, pmin, poff, "", tt, tw, tmin, r }'
done
