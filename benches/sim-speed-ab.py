#!/usr/bin/env python3
"""Before and after a change to the SSD model: two builds of roundup, each with its own
drive files, on the simulator's speed test (benches/speed.yaml: 2 million 4 KiB random
writes at QD3) on one core, alternated run by run with the order flipped every round, so
that both see the same moments of this shared machine. Each run's CPU time (user and
system, both of its threads, from the kernel's accounting of the child) is the measure,
and each round's after / before ratio is the result: the median and range of the ratios
per drive and kind of samples kept. A ratio of 1.10 is a tenth fewer simulated I/Os per
second.

    benches/sim-speed-ab.py BEFORE_BIN BEFORE_DRIVES_DIR AFTER_BIN AFTER_DRIVES_DIR
        [--rounds N] [--drive ID ...] [--work DIR] [--instructions [--count N]]

The anchor is the before build itself, measured beside the after build in the same run.

With --instructions, each build runs the test once under valgrind's callgrind instead, and
the measure is the instructions it executes: the same on every run, where this VM's CPU
time moves by a fifth from run to run (a change of a few percent cannot be told from the
noise by time alone). An instruction is not a cycle (a division, an atomic operation or a
cache miss costs many), so the two measures go together: the count says what changed, the
time whether it mattered. --count N runs N writes instead of the suite's 2 million.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# The writes of benches/speed.yaml, which --count replaces.
SUITE_COUNT = 2_000_000


def cpu_seconds(binary, lab):
    """Runs `binary run` in `lab` on core 0; returns its CPU time (user + system)."""
    shutil.rmtree(os.path.join(lab, "results"), ignore_errors=True)
    # Its messages to a file, not a pipe nobody reads while it runs.
    with tempfile.TemporaryFile() as err:
        child = subprocess.Popen(
            ["taskset", "-c", "0", binary, "run"],
            cwd=lab,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        _, status, usage = os.wait4(child.pid, 0)
        if status != 0:
            err.seek(0)
            sys.exit(f"{binary} run failed in {lab}: {err.read().decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime


def instructions(binary, lab):
    """Runs `binary run` in `lab` under callgrind; returns the instructions it executed."""
    shutil.rmtree(os.path.join(lab, "results"), ignore_errors=True)
    out = os.path.join(lab, "callgrind.out")
    r = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "run", "-q"],
        cwd=lab,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if os.path.exists(out):
        os.remove(out)
    if r.returncode != 0:
        sys.exit(f"{binary} run under valgrind failed in {lab}: {r.stderr}")
    for line in r.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1].strip())
    sys.exit(f"no instruction count in valgrind's output: {r.stderr}")


def lab(work, name, drives_dir, drive, samples, count=None):
    """A lab with the speed suite (keeping `samples`, of `count` writes if given) and one
    drive file."""
    path = os.path.join(work, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(os.path.join(path, "suites"))
    os.makedirs(os.path.join(path, "drives"))
    with open(os.path.join(HERE, "speed.yaml")) as f:
        suite = f.read().replace(
            "    metric: iops\n", f"    metric: iops\n    samples: {samples}\n"
        )
    if count is not None:
        line = f"    count: {SUITE_COUNT}\n"
        if line not in suite:
            sys.exit(f"benches/speed.yaml no longer has its count of {SUITE_COUNT} to replace")
        suite = suite.replace(line, f"    count: {count}\n")
    with open(os.path.join(path, "suites", "speed.yaml"), "w") as f:
        f.write(suite)
    shutil.copy(os.path.join(drives_dir, f"{drive}.yaml"), os.path.join(path, "drives"))
    return path


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("before_bin")
    a.add_argument("before_drives")
    a.add_argument("after_bin")
    a.add_argument("after_drives")
    a.add_argument("--rounds", type=int, default=10)
    a.add_argument("--drive", action="append")
    a.add_argument("--work", default="/tmp/roundup-sim-speed-ab")
    a.add_argument("--instructions", action="store_true")
    a.add_argument("--count", type=int)
    args = a.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (apt-get install valgrind)")
    if args.count is not None and not args.instructions:
        sys.exit("--count goes with --instructions (the time runs keep the suite's count)")
    drives = args.drive or ["intel-x25m-g2-160", "ocz-vertex-le-100"]
    for binary in [args.before_bin, args.after_bin]:
        if not os.access(binary, os.X_OK):
            sys.exit(f"{binary}: not an executable (build roundup first)")
    for folder in [args.before_drives, args.after_drives]:
        for drive in drives:
            if not os.path.isfile(os.path.join(folder, f"{drive}.yaml")):
                sys.exit(f"{folder}: no drive file {drive}.yaml")
    for samples in ["histogram", "raw"]:
        for drive in drives:
            before = lab(args.work, "before", args.before_drives, drive, samples, args.count)
            after = lab(args.work, "after", args.after_drives, drive, samples, args.count)
            if args.instructions:
                b = instructions(args.before_bin, before)
                f = instructions(args.after_bin, after)
                writes = args.count or SUITE_COUNT
                print(
                    f"{drive}, samples: {samples}, {writes:,} writes: instructions "
                    f"{b / 1e9:.4f} G before, {f / 1e9:.4f} G after "
                    f"({b / writes:,.0f} and {f / writes:,.0f} a write); after / before {f / b:.4f}"
                )
                continue
            runs = {"before": [], "after": []}
            for r in range(args.rounds):
                order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
                for which in order:
                    binary = args.before_bin if which == "before" else args.after_bin
                    path = before if which == "before" else after
                    runs[which].append(cpu_seconds(binary, path))
            ratios = sorted(x / y for x, y in zip(runs["after"], runs["before"]))
            # The best run of each too: on a quiet machine it is the steadiest figure (the
            # noise only ever adds time), where a busy one moves every ratio.
            best = {k: min(v) for k, v in runs.items()}
            print(
                f"{drive}, samples: {samples}, {args.rounds} rounds: CPU time median "
                f"{statistics.median(runs['before']):.2f} s before, "
                f"{statistics.median(runs['after']):.2f} s after; after / before "
                f"median {statistics.median(ratios):.3f} "
                f"(range {ratios[0]:.2f}-{ratios[-1]:.2f}); best runs "
                f"{best['before']:.3f} and {best['after']:.3f} s "
                f"({best['after'] / best['before']:.3f})"
            )


if __name__ == "__main__":
    main()
