#!/bin/sh
# Speed of the simulated SSD (issue 4): simulated I/Os per second of wall time on one core,
# raw samples written (and again with a histogram kept instead), for 2 million 4 KiB random writes at QD3 on a page-mapped drive
# (Intel X25-M G2) and on a compressing one with incompressible data (OCZ Vertex LE), each
# run alternated with the anchor: fio's `null` engine doing the same 2 million 4 KiB random
# writes at QD3 on the same core (the CPU an I/O costs fio when it does no I/O at all);
# then the full anandtech-2010 and bit-tech-2009 suites on the whole lab of drives/.
#
#   benches/sim-speed.sh [WORK_DIR]          (default /tmp/roundup-sim-speed)
#   RUNS=N (speed runs per drive, default 5), LAB=0 (skip the full suites)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/roundup-sim-speed}
. "$here/benches/roundup-bin.sh"
rm -rf "$work" && mkdir -p "$work/one/suites" "$work/one/drives"
# Each drive five times (this VM's CPU time varies by a fifth from run to run): the best
# and the median.
runs=${RUNS:-5}
. "$here/benches/fio-null.sh"
cp "$here/benches/speed.yaml" "$work/speed.yaml"
for keep in raw histogram; do
# Each I/O's row written (`samples: raw`, the default), or a histogram (what fio keeps).
sed "s/    metric: iops/    metric: iops\n    samples: $keep/" "$work/speed.yaml" > "$work/one/suites/speed.yaml"
for d in intel-x25m-g2-160 ocz-vertex-le-100; do
    rm -rf "$work/one/drives/"*
    cp "$here/drives/$d.yaml" "$work/one/drives/"
    times=""
    fio=""
    for _ in $(seq "$runs"); do
        rm -rf "$work/one/results"
        start=$(date +%s.%N)
        (cd "$work/one" && taskset -c 0 "$bin" run >/dev/null)
        end=$(date +%s.%N)
        times="$times $(python3 -c "import sys; print(float(sys.argv[2])-float(sys.argv[1]))" "$start" "$end")"
        fio="$fio $(fio_null)"
    done
    python3 -c "
import statistics, sys
t = sorted(float(x) for x in sys.argv[1].split())
f = sorted(float(x) for x in sys.argv[2].split())
best, med = t[0], statistics.median(t)
line = f'$d, samples: $keep: 2,000,000 I/Os on one core, {len(t)} runs: best {best:.2f} s ({2e6/best:,.0f} simulated I/Os per second), median {med:.2f} s ({2e6/med:,.0f})'
if f[-1] > 0:
    fmed = statistics.median(f)
    line += f'; fio null alternated: median {fmed:,.0f} I/Os per second, simulator/fio {2e6/med/fmed:.2f} (medians)'
print(line)
" "$times" "$fio"
done
done
[ "${LAB:-1}" = 0 ] && exit 0   # LAB=0: the speed runs only
mkdir -p "$work/lab" && cp -r "$here/suites" "$here/drives" "$work/lab/"
start=$(date +%s.%N)
(cd "$work/lab" && "$bin" run --suite anandtech-2010 --suite bit-tech-2009 >/dev/null)
end=$(date +%s.%N)
python3 -c "import sys; print(f'full anandtech-2010 and bit-tech-2009 on the lab ({sys.argv[3]} drives): {float(sys.argv[2])-float(sys.argv[1]):.0f} s')" "$start" "$end" "$(ls "$here/drives" | wc -l)"
