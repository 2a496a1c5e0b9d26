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
        [--rounds N] [--drive ID ...] [--work DIR]

The anchor is the before build itself, measured beside the after build in the same run.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


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


def lab(work, name, drives_dir, drive, samples):
    """A lab with the speed suite (keeping `samples`) and one drive file."""
    path = os.path.join(work, name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(os.path.join(path, "suites"))
    os.makedirs(os.path.join(path, "drives"))
    with open(os.path.join(HERE, "speed.yaml")) as f:
        suite = f.read().replace(
            "    metric: iops\n", f"    metric: iops\n    samples: {samples}\n"
        )
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
    args = a.parse_args()
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
            before = lab(args.work, "before", args.before_drives, drive, samples)
            after = lab(args.work, "after", args.after_drives, drive, samples)
            runs = {"before": [], "after": []}
            for r in range(args.rounds):
                order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
                for which in order:
                    binary = args.before_bin if which == "before" else args.after_bin
                    path = before if which == "before" else after
                    runs[which].append(cpu_seconds(binary, path))
            ratios = sorted(x / y for x, y in zip(runs["after"], runs["before"]))
            print(
                f"{drive}, samples: {samples}, {args.rounds} rounds: CPU time median "
                f"{statistics.median(runs['before']):.2f} s before, "
                f"{statistics.median(runs['after']):.2f} s after; after / before "
                f"median {statistics.median(ratios):.3f} "
                f"(range {ratios[0]:.2f}-{ratios[-1]:.2f})"
            )


if __name__ == "__main__":
    main()
