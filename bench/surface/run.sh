#!/bin/sh
# Times pfmesh's surface intake (read + weld + orient + diagnose, including
# the exact self-intersection search) against admesh checking the same
# binary STL: a closed torus of N triangles (default 1e6). Prints the
# median wall time, CPU time (user + system) and peak memory of RUNS runs
# (default 5) of each, and the ratios. On a shared machine compare the CPU
# times: wall time then depends on the other load. Installs admesh (Debian
# package) if it is missing.
#
#	bench/surface/run.sh            # N=1000000 RUNS=5
#	N=100000 RUNS=9 bench/surface/run.sh
set -eu
cd "$(dirname "$0")/../.."
N=${N:-1000000}
RUNS=${RUNS:-5}
command -v admesh >/dev/null || apt-get install -y admesh >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/pipeline" ./bench/surface/pipeline
"$tmp/pipeline" -n "$N" -write "$tmp/torus.stl"

# measure NAME CMD...: RUNS runs; prints "NAME wall_s peak_kB cpu_s",
# each the median.
measure() {
	name=$1
	shift
	: >"$tmp/times"
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f "%e %M %U %S" -o "$tmp/one" "$@" >/dev/null 2>&1
		awk '{print $1, $2, $3 + $4}' "$tmp/one" >>"$tmp/times"
	done
	median() { cut -d' ' -f"$1" "$tmp/times" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
	echo "$name $(median 1) $(median 2) $(median 3)"
}

{
	measure pfmesh "$tmp/pipeline" "$tmp/torus.stl"
	# admesh's exact edge matching and normal-direction check and fix:
	# the same work as pfmesh's weld and orientation, without diagnosis.
	measure admesh-check admesh --exact --normal-directions "$tmp/torus.stl"
	# admesh with no options: every check and repair it has.
	measure admesh-all admesh "$tmp/torus.stl"
} >"$tmp/results"

tri=$(echo "$N" | awk '{printf "%d", $1}')
awk -v n="$tri" '
	{
		t[$1] = $2; m[$1] = $3; c[$1] = $4
		printf "%-13s wall %7.3f s  cpu %7.3f s  peak %7.1f MB  %4.0f B/triangle\n", $1, $2, $4, $3/1024, $3*1024/n
	}
	END {
		split("admesh-check admesh-all", peers, " ")
		for (i = 1; i <= 2; i++) {
			p = peers[i]
			printf "pfmesh/%-12s wall %.2f  cpu %.2f  memory %.2f\n", p, t["pfmesh"]/t[p], c["pfmesh"]/c[p], m["pfmesh"]/m[p]
		}
	}' "$tmp/results"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
