#!/bin/sh
# A "what if" sweep of 60 simulated drive variants of the Intel X25-M G2 (dies per channel ×
# spare area × the controller's time per write), run once on one machine and as three
# shards (`run --shard K/3`, three processes at once), the shards merged (`roundup merge`)
# and both rendered: prints the times and whether results and site are byte-identical.
#
#   benches/shard-sweep.sh [path/to/roundup]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
roundup=${1:-${CARGO_TARGET_DIR:-$here/target}/release/roundup}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mklab() {
    mkdir -p "$1/suites" "$1/drives" "$1/commentary"
    cat > "$1/suites/sweep.yaml" <<'EOF'
name: sweep
title: What if? X25-M G2 variants
seed: 2026
tests:
  - {id: random-write-4k, title: 4KB Random Write (QD3), operation: write, pattern: random, block_size: 4KiB, span: 8GB, queue_depth: 3, duration: 1s, metric: mb_per_s}
  - {id: sequential-write-128k, title: 128KB Sequential Write, operation: write, pattern: sequential, block_size: 128KiB, span: full, queue_depth: 1, duration: 1s, metric: mb_per_s}
  - {id: random-read-4k, title: 4KB Random Read (QD3), operation: read, pattern: random, block_size: 4KiB, span: 8GB, queue_depth: 3, duration: 500ms, metric: mb_per_s}
EOF
    for dies in 1 2 3 4 5; do
        for spare in 4 7 15 28; do
            for w in 60 120 180; do
                id="x25m-g2-d${dies}-s${spare}-w${w}"
                raw=$(awk "BEGIN { printf \"%.1fGB\", 160 * (1 + $spare / 100) }")
                sed -e "s/^id: .*/id: $id/" \
                    -e "s/^model: .*/model: X25-M G2 ($dies dies a channel, $spare% spare)/" \
                    -e "s/^firmware: .*/firmware: W$w/" \
                    -e "s/^  dies_per_channel: .*/  dies_per_channel: $dies/" \
                    -e "s/^  raw_capacity: .*/  raw_capacity: $raw/" \
                    -e "s/^  write_overhead: .*/  write_overhead: ${w}us/" \
                    "$here/drives/intel-x25m-g2-160.yaml" > "$1/drives/$id.yaml"
            done
        done
    done
}

now() { date +%s.%N; }
for lab in one s1 s2 s3 merged; do mklab "$work/$lab"; done
echo "drives: $(ls "$work/one/drives" | wc -l)"

t0=$(now)
"$roundup" --lab "$work/one" run -q
t1=$(now)
for k in 1 2 3; do "$roundup" --lab "$work/s$k" run -q --shard "$k/3" & done
wait
t2=$(now)
"$roundup" -q --lab "$work/merged" merge "$work/s1/results" "$work/s2/results" "$work/s3/results"
t3=$(now)
"$roundup" --lab "$work/one" render -q
"$roundup" --lab "$work/merged" render -q
awk "BEGIN { printf \"one run %.1f s; three shards at once %.1f s; merge %.1f s\n\", $t1 - $t0, $t2 - $t1, $t3 - $t2 }"
for k in 1 2 3; do echo "shard $k/3: $(ls "$work/s$k/results" | wc -l) drives"; done
for part in results site; do
    if diff -r "$work/one/$part" "$work/merged/$part" > /dev/null; then
        echo "$part: byte-identical ($(find "$work/one/$part" -type f | wc -l) files)"
    else
        echo "$part: DIFFERENT"
        exit 1
    fi
done
