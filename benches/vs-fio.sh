#!/usr/bin/env bash
# roundup side by side with fio: the same jobs on the same targets in one run, alternating,
# with the ratios roundup/fio of IOPS, QD1 mean latency and CPU time per I/O.
#
#   benches/vs-fio.sh [--runtime SECONDS] [--rounds N] [--targets file,zram,loop] [--out FILE]
#
# Needs root (zram, loop devices, /dev/cpu_dma_latency), fio (apt-get install fio) and a
# release build. Both tools run with CPU idle states held off (/dev/cpu_dma_latency = 0, as
# latency benchmarks are run; --allow-idle turns that off). Everything it sets up (zram
# disksize, loop devices, files under /tmp/roundup-vs-fio) is reset at the end.

set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/roundup-target}"
cargo build --release --quiet
exec python3 benches/vs_fio.py --roundup "$CARGO_TARGET_DIR/release/roundup" "$@"
