#!/bin/sh
# CrystalDiskMark's default set through roundup and through fio, on the same real target,
# one after the other: `roundup run --suite crystaldiskmark-8` on drive ID of LAB, then fio
# with each test's parameters (block size, queue depth, threads, pattern, 1 GiB from the
# target's start, O_DIRECT, io_uring), RUNS runs of 5 s, the best kept as CDM keeps it.
# Prints each test's MB/s both ways and their ratio. fio's writes are fresh random bytes
# each (`--refill_buffers`), as roundup's and CrystalDiskMark's are: fio's default reuses
# one buffer it scrambles, which on zram ran at 556 MB/s against 1,417 with fresh bytes.
#
#   benches/cdm-vs-fio.sh LAB ID PATH     (PATH: the drive's file or device, as its drive file names it)
#   SKIP_RUN=1 ...                        (reuse the suite's results already in LAB)
#
# Needs: a release build, fio, python3. The drive is written (as the suite writes it).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
lab=$1 id=$2 path=$3
runs=${RUNS:-5}
. "$here/benches/roundup-bin.sh"
command -v fio >/dev/null || { echo "needs fio" >&2; exit 1; }
mkdir -p "$lab/suites"
cp "$here/suites/crystaldiskmark-8.yaml" "$lab/suites/"
[ -n "${SKIP_RUN:-}" ] || (cd "$lab" && "$bin" -q run --suite crystaldiskmark-8 --drive "$id" >/dev/null)
(cd "$lab" && "$bin" summary --json) > "$lab/cdm-summary.json"
out="$lab/cdm-fio.txt"
: > "$out"
for t in seq1m-q8t1:read:1M:8:1 seq1m-q1t1:read:1M:1:1 rnd4k-q32t1:randread:4k:32:1 rnd4k-q1t1:randread:4k:1:1 \
         seq1m-q8t1:write:1M:8:1 seq1m-q1t1:write:1M:1:1 rnd4k-q32t1:randwrite:4k:32:1 rnd4k-q1t1:randwrite:4k:1:1; do
    IFS=: read -r name rw bs qd jobs <<EOF
$t
EOF
    case $rw in *write) op=write fresh=--refill_buffers ;; *) op=read fresh= ;; esac
    for r in $(seq "$runs"); do
        fio --name=cdm --filename="$path" --offset=0 --size=1GiB --direct=1 --ioengine=io_uring \
            --rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$jobs" --group_reporting \
            --time_based --runtime=5 $fresh --output-format=json > "$lab/fio.json"
        python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0][sys.argv[2]]; print(sys.argv[3], j['bw_bytes']/1e6)" \
            "$lab/fio.json" "$op" "$name-$op" >> "$out"
    done
done
python3 - "$lab/cdm-summary.json" "$out" "$id" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["drive"] == sys.argv[3] and r["suite"] == "crystaldiskmark-8"]
fio = {}
for line in open(sys.argv[2]):
    name, mbs = line.split()
    fio[name] = max(fio.get(name, 0.0), float(mbs))
print(f"{'test':22} {'roundup MB/s':>13} {'fio MB/s':>10} {'roundup/fio':>12}")
for test in sorted(fio, key=lambda t: (t.endswith("write"), t)):
    ours = max(r["mb_per_s"] for r in rows if r["test"] == test)
    print(f"{test:22} {ours:13.1f} {fio[test]:10.1f} {ours / fio[test]:12.3f}")
PY
