#!/usr/bin/env python3
"""Relations a reviewer reads off the charts, checked on every simulated drive of the lab.

Runs block-size and queue-depth sweeps of sequential and random reads and writes on each
SSD of drives/, and each hard disk with `--disks` (a copy of the lab in a temporary folder;
nothing of the lab is written)
and lists every relation out of order, beyond a tolerance:

- at one queue depth, larger transfers move no less data a second;
- at one transfer size, a deeper queue moves no less data a second;
- at one size and depth, a stream of reads reads no slower than scattered reads;
- at one depth, on the same span freshly written, compressible data writes no slower than
  incompressible (at random and in a stream), 4 KiB writes aligned to 4 KiB no slower than
  ones aligned to 512 B, random reads and writes over 1 GiB no slower than over 8 GiB,
  random reads of a span never written (purged) no slower than of one written, and random
  writes on a purged span no slower than on one written;
- with `--families`, on the capacity families of drives/ (files that differ only in dies
  and capacities): at one test, size and depth, a larger capacity moves no less data a
  second than a smaller one (every family's spec sheet orders its capacities so).

No drive does otherwise, so a relation out of order is a fault of the model or a mechanism
to explain (docs/simulated-drives.md: the read-ahead and the write buffer were found so).
Each job is short (`--seconds`), so a drive whose buffer takes in a large share of a run
can part a relation by a few per cent: read those against a longer run before calling
them faults.

    benches/model-relations.py ROUNDUP_BIN [--lab DIR] [--drive ID ...] [--seconds S]
        [--tolerance T] [--keep DIR] [--disks] [--all] [--families]

Exit status 1 when a relation is out of order, 0 when none is.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SIZES = ["4KiB", "16KiB", "64KiB", "256KiB", "1MiB"]
DEPTHS = [1, 4, 32]
# Capacity families: drive files that differ from each other only in dies and capacities
# (docs/simulated-drives.md, "Capacity siblings" and "The NVMe era"), smallest first.
FAMILIES = [
    ["intel-x25m-g2-80", "intel-x25m-g2-160"],
    ["crucial-c300-128", "crucial-c300-256"],
    ["crucial-m4-64", "crucial-m4-128", "crucial-m4-256"],
    ["samsung-970-evo-250gb", "samsung-970-evo-500gb", "samsung-970-evo-1tb"],
    ["samsung-970-evo-plus-250gb", "samsung-970-evo-plus-500gb", "samsung-970-evo-plus-1tb"],
]


def suite(seconds):
    """The sweeps: sequential writes on a purged drive, the reads over 8 GiB written first,
    random writes over the same 8 GiB."""
    common = (
        f"span: 8GiB, queue_depth: 1, duration: {seconds}s, data: incompressible, "
        "samples: histogram, metric: mb_per_s, "
        f"variants: {{block_size: [{', '.join(SIZES)}], queue_depth: {DEPTHS}}}"
    )
    tests = [
        ("seq-write", "write", "sequential", "precondition: {purge: true}, "),
        ("seq-read", "read", "sequential", "precondition: {fill: 1}, "),
        ("rnd-read", "read", "random", ""),
        ("rnd-write", "write", "random", ""),
    ]
    lines = ["name: relations", "title: relations", "seed: 1", "tests:"]
    for id_, op, pattern, pre in tests:
        lines.append(
            f"  - {{id: {id_}, title: {id_}, operation: {op}, pattern: {pattern}, "
            f"block_size: 4KiB, {pre}{common}}}"
        )
    # Pairs that differ in one thing, each variant from the same state: its span purged
    # and written once just before it (or only purged: nothing there to read, everything
    # free to write).
    pairs = f"queue_depth: 1, duration: {seconds}s, samples: histogram, metric: mb_per_s"
    written = "precondition: {purge: true, fill: 1}"
    qd = f"queue_depth: {DEPTHS}"
    tests = [
        ("rnd-write-data", f"operation: write, pattern: random, block_size: 4KiB, span: 8GiB, "
         f"variants: {{data: [compressible, incompressible], {qd}}}", written),
        ("seq-write-data", f"operation: write, pattern: sequential, block_size: 128KiB, "
         f"span: 8GiB, variants: {{data: [compressible, incompressible], {qd}}}", written),
        ("rnd-write-align", f"operation: write, pattern: random, block_size: 4KiB, span: 8GiB, "
         f"data: incompressible, variants: {{align: [512B, 4KiB], {qd}}}", written),
    ]
    spans = [(op, name, span, written) for op in ["read", "write"]
             for name, span in [("8g", "8GiB"), ("1g", "1GiB")]]
    spans += [(op, "purged", "8GiB", "precondition: {purge: true}") for op in ["read", "write"]]
    for op, name, span, pre in spans:
        tests.append((f"rnd-{op}-{name}", f"operation: {op}, pattern: random, "
                      f"block_size: 4KiB, span: {span}, data: incompressible, "
                      f"variants: {{{qd}}}", pre))
    for id_, rest, pre in tests:
        lines.append(f"  - {{id: {id_}, title: {id_}, {rest}, {pairs}, {pre}}}")
    return "\n".join(lines) + "\n"


def kib(text):
    """The size of a variant name's `bs-…` part, in KiB (None without one)."""
    m = re.search(r"bs-(\d+)([km])", text)
    return m and int(m.group(1)) * (1024 if m.group(2) == "m" else 1)


def kind(text):
    """A variant name's data or alignment part (`compressible`, `512b`; None without)."""
    m = re.search(r"(?:data|align)-([a-z0-9]+)", text)
    return m and m.group(1)


def depth(text):
    return int(re.search(r"qd-(\d+)", text).group(1))


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("roundup")
    a.add_argument("--lab", default=os.path.join(os.path.dirname(__file__), ".."))
    a.add_argument("--drive", action="append", help="only these drives (repeatable)")
    a.add_argument("--seconds", type=float, default=2.0, help="each job's length")
    a.add_argument("--tolerance", type=float, default=0.03, help="share allowed below")
    a.add_argument("--keep", help="run in this folder and keep it (else a temporary one)")
    a.add_argument(
        "--disks",
        action="store_true",
        help="the simulated hard disks too (their write cache takes a large share of a "
        "short job at depth)",
    )
    a.add_argument(
        "--all",
        action="store_true",
        help="the used drives and the block-mapped ones too (their state moves from job to "
        "job, so their sweeps part by the order the jobs ran in)",
    )
    a.add_argument(
        "--families",
        action="store_true",
        help="only the capacity families, and check that a larger capacity is no slower",
    )
    args = a.parse_args()
    if args.families:
        args.drive = [d for f in FAMILIES for d in f]

    work = args.keep or tempfile.mkdtemp(prefix="relations-")
    os.makedirs(os.path.join(work, "drives"), exist_ok=True)
    os.makedirs(os.path.join(work, "suites"), exist_ok=True)
    drives_dir = os.path.join(args.lab, "drives")
    drives = []
    for name in sorted(os.listdir(drives_dir)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(drives_dir, name)) as f:
            text = f.read()
        id_ = name[: -len(".yaml")]
        stateful = "\n  ftl: block" in text or re.search(r"\n  (history|full):", text)
        simulated = "\nssd:\n" in text or (args.disks and "\nhdd:\n" in text)
        if not simulated or (stateful and not args.all and not args.drive):
            continue
        if not args.drive or id_ in args.drive:
            drives.append(id_)
            with open(os.path.join(work, "drives", name), "w") as f:
                f.write(text)
    if not drives:
        sys.exit("no simulated drive matches")
    with open(os.path.join(work, "suites", "relations.yaml"), "w") as f:
        f.write(suite(args.seconds))

    run = subprocess.run([args.roundup, "--lab", work, "run", "-q"], capture_output=True)
    if run.returncode != 0:
        sys.exit(run.stderr.decode())
    out = subprocess.run(
        [args.roundup, "--lab", work, "summary", "--json"], capture_output=True, check=True
    )
    mbps = {}
    pair = {}
    for r in json.loads(out.stdout):
        v = r["variant"]
        if kib(v) is not None:
            mbps[(r["drive"], r["test"], kib(v), depth(v))] = r["mb_per_s"]
        else:
            pair[(r["drive"], r["test"], kind(v), depth(v))] = r["mb_per_s"]
    if not args.keep:
        shutil.rmtree(work)

    sizes = sorted({k[2] for k in mbps})
    depths = sorted({k[3] for k in mbps})
    found = []

    def below(what, low, high, of=mbps):
        if of[high] < (1 - args.tolerance) * of[low]:
            found.append(f"{what}: {of[low]:.0f} -> {of[high]:.0f} MB/s")

    for d in drives:
        for t in ["seq-write", "seq-read", "rnd-read", "rnd-write"]:
            for q in depths:
                for s1, s2 in zip(sizes, sizes[1:]):
                    below(f"{d} {t} QD{q}: {s1} KiB -> {s2} KiB", (d, t, s1, q), (d, t, s2, q))
            for s in sizes:
                for q1, q2 in zip(depths, depths[1:]):
                    below(f"{d} {t} {s} KiB: QD{q1} -> QD{q2}", (d, t, s, q1), (d, t, s, q2))
        for s in sizes:
            for q in depths:
                below(f"{d} {s} KiB QD{q}: random -> sequential read", (d, "rnd-read", s, q), (d, "seq-read", s, q))
        for q in depths:
            for t, worse, better in [
                ("rnd-write-data", "incompressible", "compressible"),
                ("seq-write-data", "incompressible", "compressible"),
                ("rnd-write-align", "512b", "4k"),
            ]:
                below(f"{d} {t} QD{q}: {worse} -> {better}", (d, t, worse, q), (d, t, better, q), pair)
            for op in ["read", "write"]:
                below(f"{d} 4 KiB random {op} QD{q}: 8 GiB -> 1 GiB span", (d, f"rnd-{op}-8g", None, q),
                      (d, f"rnd-{op}-1g", None, q), pair)
                below(f"{d} 4 KiB random {op} QD{q}: written -> purged span", (d, f"rnd-{op}-8g", None, q),
                      (d, f"rnd-{op}-purged", None, q), pair)

    if args.families:
        tests = ["seq-write", "seq-read", "rnd-read", "rnd-write"]
        for family in FAMILIES:
            for small, large in zip(family, family[1:]):
                for t in tests:
                    for s in sizes:
                        for q in depths:
                            below(
                                f"{t} {s} KiB QD{q}: {small} -> {large}",
                                (small, t, s, q),
                                (large, t, s, q),
                            )

    for line in found:
        print(line)
    print(f"{len(drives)} drives, {len(mbps) + len(pair)} jobs: {len(found)} relations out of order "
          f"(tolerance {args.tolerance:.0%}, {args.seconds:g} s a job)")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
