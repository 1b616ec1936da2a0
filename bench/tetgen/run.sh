#!/bin/sh
# Runs pfmesh's exact mesher (tetgen.Build, through bench/tetgen/driver)
# beside TetGen (-pq1.414, Debian package tetgen) and gmsh's HXT mesher on
# one thread (Debian package gmsh) on the same surfaces: an icosphere with
# a volume bound giving about 1M tets, and watertight corpus models (with
# no volume bound, and merged with one giving about 1M tets).
# TetGen merges coplanar input facets unless given -M, so each corpus model
# runs twice: as given (tetgen.Build's default, which keeps every input
# triangle, beside TetGen -pMq1.414 and gmsh) and merged (the driver's
# -merge-coplanar, as pfmesh build does by default, beside TetGen -pq1.414,
# the issue's command).
# Prints, per input and mesher, tets, median wall seconds of RUNS runs,
# tets/s, the smallest dihedral angle (pfmesh and TetGen, measured by
# tetmesh.MeasureQuality on both outputs), peak resident memory per tet
# (largest over the runs; target for pfmesh: at most 400 B/tet) and pfmesh's
# time ratio to TetGen (target: at most 0.5), and a row for the Delaunay
# tetrahedralization of 1M random points beside TetGen's (points/s in the
# tets/s column). The machine is shared: compare ratios from one run.
#
#	bench/tetgen/run.sh                 # RUNS=3, A=8e-6 (about 986k tets)
#	RUNS=1 A=4e-5 bench/tetgen/run.sh   # quicker, about 100k tets
set -eu
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-3}
A=${A:-8e-6}
command -v tetgen >/dev/null || apt-get install -y tetgen >/dev/null
command -v gmsh >/dev/null || apt-get install -y gmsh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/driver" ./bench/tetgen/driver
"$tmp/driver" sphere 4 "$tmp/sphere.stl"
corpus=${CORPUS:-../shared/corpus}

# "seconds kilobytes": the median wall time and the largest peak resident
# set of RUNS runs of a command.
wall() {
	: >"$tmp/times"
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f "%e %M" -o "$tmp/one" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
		cat "$tmp/one" >>"$tmp/times"
	done
	sort -g "$tmp/times" | awk '{a[NR]=$1; if ($2 > m) m = $2} END {print a[int((NR+1)/2)], m}'
}

printf '%-40s %-7s %9s %8s %9s %7s %6s %6s\n' input mesher tets seconds tets/s min_dih B/tet ratio
# bench name file volume-bound tetgen-switches pfmesh-flag: volume-bound ""
# for none; gmsh runs too where pfmesh-flag is "" (it has no switch to merge
# coplanar facets).
bench() {
	name=$1 file=$2 a=$3 tgsw=$4 popt=$5
	aopt=""
	[ -n "$a" ] && aopt="-a $a" && tgsw="${tgsw}a$a"
	/usr/bin/time -f "%M" -o "$tmp/mem" "$tmp/driver" mesh "$file" -q 1.414 $aopt $popt -runs "$RUNS" >"$tmp/out"
	set -- $(cat "$tmp/out") $(cat "$tmp/mem")
	pt=$1 ps=$2 pd=$3 pm=$4
	"$tmp/driver" convert "$file" "$tmp/in"
	set -- $(wall tetgen -${tgsw}Q "$tmp/in.smesh")
	ts=$1 tm=$2
	set -- $("$tmp/driver" quality "$tmp/in.1")
	tt=$1 td=$2
	awk -v n="$name" -v pt="$pt" -v ps="$ps" -v pd="$pd" -v pm="$pm" -v tt="$tt" -v ts="$ts" -v td="$td" -v tm="$tm" 'BEGIN {
		printf "%-40s %-7s %9d %8.2f %9.0f %7.2f %6.0f %6.2f\n", n, "pfmesh", pt, ps, pt/ps, pd, 1024*pm/pt, ps/ts
		printf "%-40s %-7s %9d %8.2f %9.0f %7.2f %6.0f\n", n, "tetgen", tt, ts, tt/ts, td, 1024*tm/tt
	}'
	[ -z "$popt" ] || return 0
	printf 'Merge "%s";\nSurface Loop(1) = Surface{:};\nVolume(1) = {1};\n' "$tmp/in.stl" >"$tmp/in.geo"
	# gmsh has no volume bound: under one, its largest element size is
	# the edge of a regular tet of volume a/2, a refined mesh's mean tet
	# (without it HXT meshes the icosphere in 43 k tets, no rate to compare).
	gsize=""
	[ -n "$a" ] && gsize="-clmax $(awk -v a="$a" 'BEGIN { print (6 * sqrt(2) * a / 2) ^ (1 / 3) }')"
	set -- $(wall gmsh -3 -algo hxt -nt 1 $gsize "$tmp/in.geo" -format msh2 -o "$tmp/out.msh")
	gs=$1 gm=$2
	set -- $("$tmp/driver" quality "$tmp/out.msh")
	gt=$1 gd=$2
	awk -v n="$name" -v gt="$gt" -v gs="$gs" -v gd="$gd" -v gm="$gm" 'BEGIN {
		printf "%-40s %-7s %9d %8.2f %9.0f %7.2f %6.0f\n", n, "gmsh", gt, gs, gt/gs, gd, (gt > 0 ? 1024*gm/gt : 0)
	}'
}
bench "icosphere (a=$A)" "$tmp/sphere.stl" "$A" pq1.414 ""

# Delaunay of 1M random points (issue 5's target: 2 s): BenchmarkDelaunay
# against TetGen's own "Delaunay seconds" (-V; -NEF writes no mesh) on
# points of the same distribution, uniform in the unit cube (awk's, not the
# benchmark's generator; the medians of RUNS runs each).
go test -c -o "$tmp/tetgen.test" ./tetgen
awk -v n=1000000 'BEGIN { srand(1); print n, 3, 0, 0
	for (i = 1; i <= n; i++) printf "%d %.17g %.17g %.17g\n", i, rand(), rand(), rand() }' >"$tmp/r.node"
: >"$tmp/pd"
: >"$tmp/td"
for _ in $(seq "$RUNS"); do
	"$tmp/tetgen.test" -test.run XXX -test.bench 'BenchmarkDelaunay/n=1e\+06' -test.benchtime 1x |
		awk '/ns\/op/ { print $3 / 1e9 }' >>"$tmp/pd"
	tetgen -VNEF "$tmp/r.node" | awk '/^Delaunay seconds/ { print $3 }' >>"$tmp/td"
done
median() { sort -g "$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
awk -v ps="$(median "$tmp/pd")" -v ts="$(median "$tmp/td")" 'BEGIN {
	printf "%-40s %-7s %9s %8.2f %9.0f %7s %6s %6.2f\n", "delaunay, 1M random points", "pfmesh", "-", ps, 1e6/ps, "-", "-", ps/ts
	printf "%-40s %-7s %9s %8.2f %9.0f\n", "delaunay, 1M random points", "tetgen", "-", ts, 1e6/ts
}'

# The CAD parts of issue 5's "2x faster than TetGen" (occt_propeller takes
# pfmesh about a minute a run): point CORPUS at a directory holding only
# the models wanted to run fewer.
for f in bunny_npm.obj gmsh_lever.stl plb_aneurysm.stl netgen_hinge.stl occt_propeller.stl \
	cura_pbr3d_g1_buildplate.stl stlmodels_gearwheel.bin.stl; do
	if [ -f "$corpus/$f" ]; then
		bench "$f" "$corpus/$f" "" pMq1.414 ""
		bench "$f -merge-coplanar" "$corpus/$f" "" pq1.414 -merge-coplanar
	fi
done

# Issue 5's "quality mesh of about 1M tets" of the CAD parts: merged,
# beside TetGen -pq1.414a, with the volume bound 2.5·V/10⁶ (V the body's
# volume, as pfmesh inspect prints it), which gives each mesher about a
# million tets.
for fa in cura_pbr3d_g1_buildplate.stl:0.49 stlmodels_gearwheel.bin.stl:0.0223 gmsh_lever.stl:0.256 \
	plb_aneurysm.stl:0.012 occt_propeller.stl:4.88; do
	f=${fa%%:*} a=${fa#*:}
	if [ -f "$corpus/$f" ]; then
		bench "$f -merge-coplanar a=$a" "$corpus/$f" "$a" pq1.414 -merge-coplanar
	fi
done
