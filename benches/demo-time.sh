#!/bin/sh
# The demo against fio's `null` engine (issue 30): `roundup demo` on a fresh copy of the
# example lab, alternated ROUNDS times with the anchor of benches/sim-speed.sh (fio's
# `null` engine, 2 million 4 KiB random writes at QD3 on one core: the CPU an I/O costs fio
# when it does no I/O). This VM's speed varies from day to day by more than the goal's
# margin (fio's `null` engine 3.96 M I/Os per second the day issue 30 was written, 1.5 M
# on others), so beside each demo's wall time it prints the demo in the anchor's units:
# wall time × the anchor's I/Os per second of the same round (the mean of the runs before
# and after), and that as seconds at the speed of the issue's day (÷ 3.96 M). Also the
# demo's CPU time, peak memory (GNU time), results and site sizes.
#
#   benches/demo-time.sh [WORK_DIR]      (default /tmp/roundup-demo-time)
#   ROUNDS=N (default 2); DEMO_ARGS="--memory 2GiB" (passed to `roundup demo`)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/roundup-demo-time}
. "$here/benches/roundup-bin.sh"
rounds=${ROUNDS:-2}
need_gnu_time
command -v fio >/dev/null || { echo "needs fio: apt-get install fio" >&2; exit 1; }
. "$here/benches/fio-null.sh"
rm -rf "$work" && mkdir -p "$work"
out="$work/rounds.txt"
: > "$out"
before=$(fio_null)
for r in $(seq "$rounds"); do
    lab="$work/lab"
    rm -rf "$lab" && mkdir -p "$lab"
    cp -r "$here/suites" "$here/drives" "$here/commentary" "$here/review.yaml" "$lab/"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$bin" demo -q --lab "$lab" ${DEMO_ARGS:-} >/dev/null
    after=$(fio_null)
    results=$(du -sb "$lab/results" | cut -f1)
    site=$(du -sb "$lab/site" | cut -f1)
    echo "$r $before $after $results $site $(cat "$work/time.txt")" >> "$out"
    before=$after
done
python3 - "$out" <<'PY'
import statistics, sys
ISSUE_DAY = 3.96e6  # fio null I/Os per second the day issue 30 measured the demo
rows = [l.split() for l in open(sys.argv[1])]
print("round  demo wall s  CPU s  peak MiB  results MB  site MB  fio null M IO/s  "
      "demo in M null I/Os  s at the issue's day's speed")
units = []
for r, before, after, results, site, wall, user, sys_, peak in rows:
    anchor = (float(before) + float(after)) / 2
    u = float(wall) * anchor
    units.append(u)
    print(f"{r:>5}  {float(wall):11.1f}  {float(user) + float(sys_):5.1f}  "
          f"{int(peak) / 1024:8.0f}  {int(results) / 1e6:10.0f}  {int(site) / 1e6:7.0f}  "
          f"{anchor / 1e6:15.2f}  {u / 1e6:19.0f}  {u / ISSUE_DAY:28.1f}")
m = statistics.median(units)
print(f"median: {m / 1e6:.0f} M null I/Os, {m / ISSUE_DAY:.1f} s at 3.96 M/s "
      f"(the goal: 60 s there, {60 * ISSUE_DAY / 1e6:.0f} M)")
PY
