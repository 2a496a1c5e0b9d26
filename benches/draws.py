#!/usr/bin/env python3
"""A figure over many draws: one suite on one simulated drive, run again with its seed set
to 1, 2, ..., N (each in a fresh lab in a temporary folder; nothing of the lab is written),
and the figure of each draw, their median and their range.

A review's longest wait is one draw of the real drive; the model's is one draw of its own
(a job's offsets come from a stream seeded by the suite's seed, its name and the test's;
the drive's own streams, bit errors and sense times, from its id, the same in every draw),
and a single draw can land anywhere in the model's spread. A parameter fitted to such a
figure is fitted to the median of many draws, not to one (docs/simulated-drives.md, "A
block's pages in order").

    benches/draws.py ROUNDUP_BIN DRIVE_FILE SUITE_FILE [--draws N] [--metric M]
        [--repeats max|first|mean] [--vary KEY=V1,V2,...]

SUITE_FILE is a suite whose `seed:` line is replaced; M a column of `roundup summary
--csv` (default lat_max_us); a draw's figure is the test's repeats' largest (default),
first or mean. Every test of the suite must be on that drive; with several tests, each is
listed. `--vary full=0.986,0.989` sets the drive file's `full:` line to each value in turn
(a sweep of one parameter, a line for each value).
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


# The suite's seed line, which each draw replaces.
SEED = re.compile(r"^seed: *\d+ *$", re.M)


def fmt(v):
    """Four significant digits, no exponent."""
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def draws(a, drive, drive_id, suite, name):
    """{(test, variant): [the figure of each draw]} of the drive file's text `drive`."""
    figures = {}
    with tempfile.TemporaryDirectory(prefix="roundup-draws-") as tmp:
        for seed in range(1, a.draws + 1):
            lab = os.path.join(tmp, str(seed))
            os.makedirs(os.path.join(lab, "drives"))
            os.makedirs(os.path.join(lab, "suites"))
            # The lab names a file by its id (a drive) or name (a suite).
            with open(os.path.join(lab, "drives", drive_id + ".yaml"), "w") as f:
                f.write(drive)
            with open(os.path.join(lab, "suites", name + ".yaml"), "w") as f:
                f.write(SEED.sub(f"seed: {seed}", suite))
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
    return figures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("drive_file")
    ap.add_argument("suite_file")
    ap.add_argument("--draws", type=int, default=12)
    ap.add_argument("--metric", default="lat_max_us")
    ap.add_argument("--repeats", choices=["max", "first", "mean"], default="max")
    ap.add_argument("--vary", help="KEY=V1,V2,...: the drive file's KEY line set to each value")
    a = ap.parse_args()
    with open(a.suite_file) as f:
        suite = f.read()
    with open(a.drive_file) as f:
        drive = f.read()
    if not SEED.search(suite):
        sys.exit(f"{a.suite_file}: no `seed: N` line to replace")
    name = re.search(r"^name: *(\S+) *$", suite, re.M)
    drive_id = re.search(r"^id: *(\S+) *$", drive, re.M)
    if not name or not drive_id:
        sys.exit("the suite needs a `name:` line and the drive file an `id:` line")
    files = [("", drive)]
    if a.vary:
        key, _, values = a.vary.partition("=")
        line = re.compile(rf"^( *){re.escape(key)}:.*$", re.M)
        if not values or not line.search(drive):
            sys.exit(f"--vary {a.vary}: expected KEY=V1,V2,... and a `{key}:` line in {a.drive_file}")
        files = [
            (f"{key}: {v}: ", line.sub(lambda m, v=v: f"{m[1]}{key}: {v}", drive, count=1))
            for v in values.split(",")
        ]
    for label, text in files:
        for (test, variant), values in sorted(draws(a, text, drive_id[1], suite, name[1]).items()):
            s = sorted(values)
            print(
                f"{label}{test}/{variant}: {a.metric}, {a.repeats} of the repeats, {len(s)} draws: "
                + " ".join(fmt(v) for v in s)
                + f"; median {fmt(statistics.median(s))}, range {fmt(s[0])} to {fmt(s[-1])}",
                flush=True,
            )


if __name__ == "__main__":
    main()
