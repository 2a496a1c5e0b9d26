#!/usr/bin/env python3
"""A figure over many draws: one suite on one simulated drive, run again with its seed set
to 1, 2, ..., N (each in a fresh lab in a temporary folder; nothing of the lab is written),
and the figure of each draw, their median and their range.

A review's longest wait is one draw of the real drive; the model's is one draw of its own
(a job's offsets, bit errors and sense times come from seeded streams), and a single draw
can land anywhere in the model's spread. A parameter fitted to such a figure is fitted to
the median of many draws, not to one (docs/simulated-drives.md, "A block's pages in order").

    benches/draws.py ROUNDUP_BIN DRIVE_FILE SUITE_FILE [--draws N] [--metric M]
        [--repeats max|first|mean]

DRIVE_FILE is a drive file (edited copies make a sweep of one parameter); SUITE_FILE a
suite whose `seed:` line is replaced; M a column of `roundup summary --csv` (default
lat_max_us); a draw's figure is the test's repeats' largest (default), first or mean.
Every test of the suite must be on that drive; with several tests, each is listed.
"""

import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile


def fmt(v):
    """Four significant digits, no exponent."""
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("drive_file")
    ap.add_argument("suite_file")
    ap.add_argument("--draws", type=int, default=12)
    ap.add_argument("--metric", default="lat_max_us")
    ap.add_argument("--repeats", choices=["max", "first", "mean"], default="max")
    a = ap.parse_args()
    with open(a.suite_file) as f:
        suite = f.read()
    if not re.search(r"^seed: *\d+ *$", suite, re.M):
        sys.exit(f"{a.suite_file}: no `seed: N` line to replace")
    # The lab names a file by its id (a drive) or name (a suite).
    name = re.search(r"^name: *(\S+) *$", suite, re.M)
    with open(a.drive_file) as f:
        drive_id = re.search(r"^id: *(\S+) *$", f.read(), re.M)
    if not name or not drive_id:
        sys.exit("the suite needs a `name:` line and the drive file an `id:` line")
    figures = {}
    with tempfile.TemporaryDirectory(prefix="roundup-draws-") as tmp:
        for seed in range(1, a.draws + 1):
            lab = os.path.join(tmp, str(seed))
            os.makedirs(os.path.join(lab, "drives"))
            os.makedirs(os.path.join(lab, "suites"))
            shutil.copy(a.drive_file, os.path.join(lab, "drives", drive_id[1] + ".yaml"))
            with open(os.path.join(lab, "suites", name[1] + ".yaml"), "w") as f:
                f.write(re.sub(r"^seed: *\d+ *$", f"seed: {seed}", suite, flags=re.M))
            run = subprocess.run([a.bin, "--lab", lab, "run", "-q"], capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"seed {seed}: roundup run failed:\n{run.stderr}")
            out = subprocess.run(
                [a.bin, "--lab", lab, "summary", "--csv"], capture_output=True, text=True, check=True
            ).stdout
            by_test = {}
            for r in csv.DictReader(out.splitlines()):
                key = (r["test"], r["variant"])
                by_test.setdefault(key, []).append((int(r["repeat"]), float(r[a.metric])))
            for key, values in sorted(by_test.items()):
                values = [v for _, v in sorted(values)]
                figure = {
                    "max": max(values),
                    "first": values[0],
                    "mean": statistics.fmean(values),
                }[a.repeats]
                figures.setdefault(key, []).append(figure)
            shutil.rmtree(lab)
    for (test, variant), values in sorted(figures.items()):
        s = sorted(values)
        print(
            f"{test}/{variant}: {a.metric}, {a.repeats} of the repeats, {len(s)} draws: "
            + " ".join(fmt(v) for v in s)
            + f"; median {fmt(statistics.median(s))}, range {fmt(s[0])} to {fmt(s[-1])}"
        )


if __name__ == "__main__":
    main()
