#!/bin/sh
# The render benchmark of issue 6: a lab of 20 simulated drives runs the full-length
# anandtech-2010 and bit-tech-2009 suites (about 100 million raw samples), then
# `roundup render` builds the site from nothing, and once more with nothing changed; then
# from nothing with `--png` (every chart exported as a PNG file too).
# Prints the sample count, each render's wall time and peak memory (GNU time).
#
#   benches/render-100m.sh [LAB_DIR]      (default /tmp/roundup-render-bench)
#
# Needs: a release build (cargo build --release), GNU time (/usr/bin/time), python3.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
lab=${1:-/tmp/roundup-render-bench}
. "$here/benches/roundup-bin.sh"
need_gnu_time

mkdir -p "$lab/drives"
cp -r "$here/suites" "$lab/"
# 20 drives from the example lab's simulated ones, their parameters varied so each has
# figures of its own: 5 Indilinx-like, 1 Intel-like, 14 disks.
i=0
drive() { # template, id suffix, sed expression
    i=$((i + 1))
    id="$1-$2"
    sed -e "s/^id: .*/id: $id/" -e "s/^model: \(.*\)/model: \1 ($2)/" -e "$3" \
        "$here/drives/$1.yaml" > "$lab/drives/$id.yaml"
}
for n in 1 2 3 4 5; do
    drive ocz-vertex-120 "v$n" "s/write_overhead: 370us/write_overhead: $((330 + n * 20))us/"
done
drive intel-x25m-g2-160 v1 "s/^firmware: .*/firmware: \"2CV102HD\"/"
for n in $(seq 1 14); do
    drive samsung-spinpoint-f1-1tb "v$n" "s/^firmware: .*/firmware: \"1AA01$n\"/"
done

cd "$lab"
if [ ! -d results ]; then
    echo "running the suites on $i drives (results are kept for the next run of this script)"
    "$bin" run --suite anandtech-2010 --suite bit-tech-2009 >/dev/null
fi
samples=$(python3 -c 'import json,glob; print(sum(json.load(open(f))["samples_rows"] for f in glob.glob("results/**/manifest.json", recursive=True)))')
jobs=$(find results -name manifest.json | wc -l)
echo "lab: $i drives, $jobs jobs, $samples raw samples, $(du -sh results | cut -f1) of Parquet"

timed() { # label, render arguments...
    label=$1; shift
    /usr/bin/time -f "%e %M" -o /tmp/roundup-render-time "$bin" render "$@" >/tmp/roundup-render-out
    read -r secs kb </tmp/roundup-render-time
    echo "render ($label): $secs s, peak $((kb / 1024)) MiB; $(tail -n 1 /tmp/roundup-render-out)"
}
rm -rf site
timed cold
timed unchanged
echo "site: $(find site -type f | wc -l) files, $(du -sh site | cut -f1)"
# Publishing: every chart exported as a PNG file too (resvg at 1200 px).
rm -rf site
timed "cold, --png" --png
echo "site with the PNG files: $(find site -type f | wc -l) files, $(du -sh site | cut -f1)"
