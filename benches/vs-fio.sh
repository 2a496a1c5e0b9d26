#!/usr/bin/env bash
# roundup side by side with fio: the same jobs on the same targets in one run, alternating,
# with the ratios roundup/fio of IOPS, QD1 mean latency and CPU time per I/O.
#
#   benches/vs-fio.sh [--runtime SECONDS] [--rounds N] [--targets file,zram,loop] [--jobs ID,...] [--out FILE]
#
# Jobs: 4 KiB random read and write at QD32 and QD1 reads, 128 KiB sequential reads at QD1,
# 4 KiB random reads at QD4096 and QD32768 (fio's deepest ring), and 4 KiB random read and
# write at QD32 × 4 threads (a ring each; fio: numjobs=4); the
# `-fixed` jobs register buffers and file in both tools, `-pinned` also pins the threads. The
# mean depth column is IOPS × mean latency (Little's law) for both tools; the device's depth
# and latency are what the block layer counted (roundup's manifest `device`, over the
# measured part; fio's "Disk stats", in_queue over its runtime). roundup's labs
# (its results: the samples it spills while a job runs) go to /dev/shm, off the disk under
# test (--labs DIR).
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
