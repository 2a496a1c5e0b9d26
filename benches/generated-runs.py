#!/usr/bin/env python3
"""Generated runs: whole runs of roundup on inputs no suite of the lab has, to find where a
run panics, hangs or stalls rather than where a parser does (tests/generated_input.rs covers
the parsers).

Three kinds of case, each in a lab of its own in a temporary folder (nothing of the lab is
written):
- a shipped drive file with one to three of its values replaced by another of the same
  kind (a duration by 0 ns or 1000 h, a size by 1 B or 1 TiB, a count by 0 or 4294967295,
  a share by 1e-300), run on a short suite of four tests;
- a shipped drive with one generated test: a random choice of every key of the suite
  format (docs/lab-format.md) among values that are each valid alone, most combinations
  of which the preflight must refuse or the run must carry out;
- a file of 64 or 256 MiB in the case's folder, a real drive on a random engine, with one
  generated test (real I/O, O_DIRECT), its work bounded by the machine's time; with
  `--device DEV`, half of them on that block device instead, named for destruction; with
  `--bench`, half of the files' cases through an `fio --server` on 127.0.0.1 (a bench).
A quarter of the generated tests, on either kind of drive, replay a small generated trace
(blkparse, fio's iolog or MSR's CSV, trims and flushes too) with random replay keys.
With `--repro N`, N cases more check reproducibility: two or three shipped simulated
drives and a suite of two to four generated tests the preflight takes, run whole, again in
a fresh copy, in two shards merged, with one job's results removed and `--resume`d, and
with one test selected (`--test`): each must store the first run's results byte for byte,
and the rerun and the merged shards must render its site byte for byte.

A case passes when roundup exits 0 (then its site is rendered and its summary printed in
each format too) or 1 with an error, in
`--timeout` seconds. A panic (exit 101 or "panicked"), any other exit or a timeout is
listed with the input that caused it and kept in `--keep`. A run that takes more than
`--slow` seconds is listed too: some are heavy workloads by their own numbers (a pass of a
whole drive in 512 B requests), and the list says which to read.

    benches/generated-runs.py ROUNDUP_BIN [--lab DIR] [--seed N] [--cases N]
        [--timeout S] [--slow S] [--keep DIR] [--device /dev/zram0] [--bench] [--repro N]

Exit status 1 when a case panicked, exited otherwise or timed out; 0 when none did.
First found with it (2026-12-05): QD4 of 2 GiB writes on a simulated drive took 70 s and
4.2 GB, zstd measuring 16 blocks of 2 GiB for their compressibility (now the first 4 MiB
of each), and a simulated drive that reads no byte written was refused buffers it never
gets (docs/performance.md, docs/lab-format.md). The real files' cases found: 65,535 in
flight made no io_uring ring (the kernel's hold 32,768), `auto` fell back to psync, and
psync's thread a slot aborted the process (now the ring takes any depth, and psync over
4,096 in flight, or registered buffers over the kernel's 16,384 a ring, are refused
before any I/O: docs/lab-format.md).
"""
import argparse
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

DRIVE_SUITE = """name: gen
title: gen
seed: 3
tests:
  - {id: w, title: w, operation: write, pattern: random, block_size: 4KiB, span: 256MiB, queue_depth: 4, duration: 0.2s, samples: histogram, metric: mb_per_s}
  - {id: s, title: s, operation: write, pattern: sequential, block_size: 128KiB, span: 256MiB, queue_depth: 2, duration: 0.2s, samples: histogram, metric: mb_per_s}
  - {id: r, title: r, operation: read, pattern: random, block_size: 4KiB, span: 256MiB, queue_depth: 4, duration: 0.2s, samples: histogram, metric: mb_per_s}
  - {id: m, title: m, operation: {read: 70, write: 30}, pattern: random, block_size: 16KiB, span: 256MiB, queue_depth: 8, duration: 0.2s, samples: histogram, metric: mb_per_s}
"""


def same_kind(rng, old):
    """Another value of the kind of `old` (a duration, rate, size, count or number)."""
    if re.fullmatch(r"[\d.]+(ns|us|ms|s|m|h)", old):
        return rng.choice(["0ns", "1ns", "1us", "100us", "10ms", "1s", "1h", "1000h"])
    if re.fullmatch(r"[\d.]+[KMGT]?i?B/s", old):
        return rng.choice(["0MB/s", "1B/s", "1kB/s", "1MB/s", "100000MB/s", "1e9MB/s"])
    if re.fullmatch(r"[\d.]+[KMGT]?i?B", old):
        return rng.choice(["0B", "1B", "512B", "3KiB", "4KiB", "1MiB", "64MiB", "1GiB", "1TiB"])
    if re.fullmatch(r"\d+", old):
        return rng.choice(["0", "1", "2", "3", "7", "64", "1000000", "4294967295"])
    if re.fullmatch(r"[\d.e+-]+", old):
        return rng.choice(["0", "1", "1e-300", "1e300", "0.999999", "2", "5e-324"])
    if old in ("true", "false"):
        return rng.choice(["true", "false"])
    return rng.choice(["0", "-1", '""', "[]", "{}", "NaN"])


def mutated_drive(rng, text):
    """The drive file with one to three values replaced; what was replaced."""
    lines = text.split("\n")
    places = [k for k, l in enumerate(lines) if re.match(r"^\s*\w+:\s*[^\s#]", l)]
    changes = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        k = rng.choice(places)
        found = list(re.finditer(r"(\w+):\s*([^,}\s#\[{]+)", lines[k]))
        if not found:
            continue
        m = rng.choice(found)
        new = same_kind(rng, m.group(2))
        lines[k] = lines[k][: m.start(2)] + new + lines[k][m.end(2):]
        changes.append(f"line {k + 1}: {m.group(1)}: {m.group(2)} -> {new}")
    return "\n".join(lines), changes


# Block sizes a generated test draws, with their smallest and largest request in bytes.
BLOCKS = [("512B", 512, 512), ("4KiB", 4 << 10, 4 << 10), ("128KiB", 128 << 10, 128 << 10),
          ("1MiB", 1 << 20, 1 << 20), ("4MiB", 4 << 20, 4 << 20),
          ("64MiB", 64 << 20, 64 << 20), ("2GiB", 2 << 30, 2 << 30),
          ("{4KiB: 30, 16KiB: 11, 32KiB: 22}", 4 << 10, 32 << 10),
          ("{512B: 1, 1MiB: 1}", 512, 1 << 20)]
SPANS = [("4KiB", 4 << 10), ("1MiB", 1 << 20), ("64MiB", 64 << 20), ("1GiB", 1 << 30),
         ("4GiB", 4 << 30), ("full", None)]


def generated_test(rng, real=False):
    """One test of random keys, each value valid alone. Its work is bounded so that a run
    that takes long is a fault, not the test's own size: at most 1 GiB in flight (threads ×
    depth × the largest block), a `count` of at most 16 GiB, passes of at most 2 million
    requests, and a whole drive (`span: full`) neither filled first nor covered in passes.
    On a real file (`real`) time is the machine's: blocks of at most 64 MiB, spans within
    the file, at most 100 requests counted or 65,536 a pass, waits between repeats of at
    most 0.1 s, and a rate or a burst only over a duration."""
    pick = rng.choice
    block, smallest, largest = pick(BLOCKS[:6] + BLOCKS[7:] if real else BLOCKS)
    span, span_bytes = pick(SPANS[:3] + SPANS[5:] if real else SPANS)
    threads = pick([1, 1, 2, 4, 16])
    depths = [d for d in [1, 2, 3, 32, 256, 65535] if threads * d * largest <= 1 << 30]
    t = {
        "id": "t",
        "title": "t",
        "operation": pick(["read", "write", "{read: 70, write: 30}", "{read: 1, write: 99}"]),
        "pattern": pick(["random", "sequential"]),
        "block_size": block,
        "span": span,
        "queue_depth": pick(depths or [1]),
        "threads": threads,
        "samples": pick(["raw", "histogram", "both"]),
        "metric": pick(["iops", "mb_per_s", "lat_mean_us", "lat_p99_us", "lat_max_us"]),
    }
    end = rng.random()
    if end < 0.5:
        t["duration"] = pick(["1ns", "1ms", "0.1s", "0.3s"])
    elif end < 0.8:
        t["count"] = pick([c for c in [1, 10, 100, 2000]
                           if c * largest <= 16 << 30 and (c <= 100 or not real)])
    elif span_bytes and span_bytes // smallest <= (1 << 16 if real else 1 << 20):
        t["passes"] = pick([1, 2])
    else:
        t["duration"] = "0.1s"
    optional = [
        ("align", ["512B", "4KiB", "1MiB", "1536B"]),
        ("warmup", ["0.1s", "1s"]),
        ("rate", ["100 IOPS", "50000 IOPS", "1MB/s", "1e9 IOPS"]),
        ("repeats", [1, 2, 3]),
        ("of_repeats", ["mean", "best"]),
        ("interval", ["0s", "1s", "1h"]),
        ("host_latency", ["0s", "40us", "1s"]),
        ("data", ["incompressible", "compressible", "zeros"]),
        ("compressible_fraction", ["0%", "25%", "100%"]),
        ("precondition", ["{purge: true}", "{purge: true, fill: 1}", "{fill: 2}"]
         if t["span"] != "full" else ["{purge: true}"]),
        ("steady_state", ["{max_rounds: 6, window: 5}", "{max_rounds: 1, window: 1}"]),
        ("burst", ["{size: 1MiB, duty_cycle: 20%}", "{size: 4KiB, duty_cycle: 1%}"]),
    ]
    if real:
        optional += [("engine", ["auto", "io_uring", "psync", "fio"]),
                     ("io_uring", ["{fixed_buffers: true}", "{fixed_files: true}",
                                   "{fixed_buffers: true, fixed_files: true}"]),
                     ("cpus", ["[0]", "[0, 1]", "[1, 0, 1]"])]
        optional = [(k, ["0s", "0.1s"] if k == "interval" else v) for k, v in optional
                    if k not in ("rate", "burst") or "duration" in t]
    for key, values in optional:
        if rng.random() < 0.25:
            t[key] = pick(values)
    dims = [("queue_depth", "[1, 4, 32]"), ("block_size", "[4KiB, 128KiB]"),
            ("threads", "[1, 4]"), ("writes", "[0%, 50%, 100%]"),
            ("data", "[compressible, incompressible]"), ("align", "[512B, 4KiB]"),
            ("rate", "[1000 IOPS, 2000 IOPS]")]
    if real and "duration" not in t:
        dims.pop()
    chosen = dict((k, v) for k, v in dims if rng.random() < 0.12)
    # The most in flight over the variants, within the bound.
    most = (max(threads, 4 if "threads" in chosen else 0)
            * max(t["queue_depth"], 32 if "queue_depth" in chosen else 0)
            * max(largest, 128 << 10 if "block_size" in chosen else 0))
    if most > 1 << 30:
        for k in ["queue_depth", "block_size", "threads"]:
            chosen.pop(k, None)
    if chosen:
        t["variants"] = "{" + ", ".join(f"{k}: {v}" for k, v in chosen.items()) + "}"
    return "{" + ", ".join(f"{k}: {v}" for k, v in t.items()) + "}"


def generated_trace(rng):
    """A small trace in one of three recorders' formats: its file name and text. Requests
    at times within half a second, anywhere from the first sector to 2^50 bytes (aligned
    or not), 512 B to 4 MiB, with trims and flushes where the format has them."""
    fmt = rng.choice(["blkparse", "fio3", "msr"])
    lines, t = [], 0
    for i in range(rng.choice([1, 2, 10, 300])):
        t += rng.choice([0, 1000, 100_000, 5_000_000])
        t = min(t, 500_000_000)
        op = rng.choice(["R", "W", "W", "R", "D", "F"] if fmt != "msr" else ["R", "W"])
        sector = rng.choice([0, 1, 7, 8, rng.randrange(1 << 17), rng.randrange(1 << 41)])
        sectors = rng.choice([1, 8, 256, 8192])
        if fmt == "blkparse":
            rwbs = {"R": "R", "W": "W", "D": "D", "F": "FN"}[op]
            where = "" if op == "F" else f" {sector} + {sectors}"
            lines.append(f"8,0 0 {i + 1} {t // 10**9}.{t % 10**9:09d} 77 D {rwbs}{where} [p]")
        elif fmt == "fio3":
            action = {"R": "read", "W": "write", "D": "trim", "F": "sync"}[op]
            where = "" if op == "F" else f" {sector * 512} {sectors * 512}"
            lines.append(f"{t // 1000}.{t % 1000:03d} /dev/sdb {action}{where}")
        else:
            word = "Read" if op == "R" else "Write"
            lines.append(f"{128_166_372_000_000_000 + t // 100},hm,1,{word},{sector * 512},"
                         f"{sectors * 512},10")
    head = {"blkparse": [], "fio3": ["fio version 3 iolog"],
            "msr": ["Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"]}[fmt]
    return f"t.{fmt}", "\n".join(head + lines) + "\n"


def generated_replay(rng, trace):
    """A replay test of `trace` (a file of the case's lab, or a generated profile's) with
    random keys, each valid alone."""
    pick = rng.choice
    t = {"id": "t", "title": "t", "kind": "replay", "trace": trace,
         "mode": pick(["as_fast_as_possible", "timed"]),
         "queue_depth": pick([1, 3, 32, 256]),
         "span": pick(["4KiB", "1MiB", "64MiB", "full"]),
         "metric": pick(["iops", "mb_per_s", "lat_mean_us"])}
    optional = [("time_scale", ["0.5", "1.0", "1000"]), ("max_idle", ["0s", "25ms"]),
                ("remap", ["modulo", "scale"]), ("data", ["compressible", "zeros"]),
                ("repeats", [1, 2]), ("samples", ["raw", "histogram", "both"]),
                ("precondition", ["{purge: true}", "{fill: 1}"]),
                ("variants", ["{data: [compressible, incompressible]}",
                              "{queue_depth: [1, 32]}"])]
    for key, values in optional:
        if rng.random() < 0.3:
            t[key] = pick(values)
    return "{" + ", ".join(f"{k}: {v}" for k, v in t.items()) + "}"


def roundup_in(roundup, lab, args, timeout):
    """`roundup --lab LAB ARGS -q`: exit status (None on a timeout) and stderr's end."""
    try:
        p = subprocess.run([roundup, "--lab", lab] + args + ["-q"], capture_output=True,
                           timeout=timeout)
        return p.returncode, p.stderr.decode(errors="replace")[-800:]
    except subprocess.TimeoutExpired:
        return None, ""


def tree(folder):
    """Every file under `folder`, by its path there: its bytes."""
    out = {}
    for root, _, names in os.walk(folder):
        for n in names:
            path = os.path.join(root, n)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = f.read()
    return out


def differences(a, b, only=None):
    """Where two trees differ (at most three paths named), within `only` if given."""
    keys = set(a) | set(b)
    if only is not None:
        keys = {k for k in keys if only(k)}
    bad = sorted(k for k in keys if a.get(k) != b.get(k))
    return [] if not bad else [f"{len(bad)} files differ, e.g. " + ", ".join(bad[:3])]


def repro_case(rng, roundup, work, drives_dir, simulated, timeout):
    """One reproducibility case: two or three shipped simulated drives and a suite of two to
    four generated tests (a replay among them at times). The lab is run whole, then again in
    a fresh copy, in two shards merged, with one job's results removed and `--resume`d,
    and with one test selected (`--test`): the results (and the rerun's and the merged
    shards' sites) must be byte-identical to the first run's, as docs/scale-out.md promises
    for simulated drives. Returns what was generated, the first run's exit status and the
    differences found (each a line)."""
    drives = rng.sample(simulated, rng.choice([2, 3]))
    tests, files = [], {}
    seed = rng.randrange(1 << 32)
    suite = ""

    def lab(name):
        path = os.path.join(work, name)
        os.makedirs(os.path.join(path, "drives"))
        os.makedirs(os.path.join(path, "suites"))
        for d in drives:
            shutil.copy(os.path.join(drives_dir, d), os.path.join(path, "drives", d))
        with open(os.path.join(path, "suites", "gen.yaml"), "w") as f:
            f.write(suite)
        for n, text in files.items():
            with open(os.path.join(path, n), "w") as f:
                f.write(text)
        return path

    # Tests the preflight takes (most generated ones it refuses), two to four of them.
    wanted, attempts = rng.choice([2, 3, 4]), 0
    while len(tests) < wanted and attempts < 40:
        attempts += 1
        k = len(tests)
        if rng.random() < 0.2:
            name, trace = generated_trace(rng)
            files[name] = trace
            t = generated_replay(rng, name)
        else:
            t = generated_test(rng)
        t = t.replace("id: t, title: t", f"id: t{k}, title: t{k}", 1)
        suite = f"name: gen\ntitle: gen\nseed: {seed}\ntests:\n  - {t}\n"
        trial = lab(f"trial{attempts}")
        code, _ = roundup_in(roundup, trial, ["run", "--dry-run"], timeout)
        shutil.rmtree(trial)
        if code == 0:
            tests.append(t)
    suite = f"name: gen\ntitle: gen\nseed: {seed}\ntests:\n" + "".join(
        f"  - {t}\n" for t in tests)
    what = [", ".join(drives)] + tests
    if not tests:
        return what, 1, "no generated test passed the preflight", []
    first = lab("first")
    code, err = roundup_in(roundup, first, ["run"], timeout)
    if code != 0:
        return what, code, err, []
    code, err = roundup_in(roundup, first, ["render"], timeout)
    if code != 0:
        return what, code, err, []
    results, site = tree(os.path.join(first, "results")), tree(os.path.join(first, "site"))
    found = []

    def check(label, path, with_site=True, only=None):
        diff = differences(results, tree(os.path.join(path, "results")), only)
        if with_site and not diff:
            code, err = roundup_in(roundup, path, ["render"], timeout)
            if code != 0:
                diff = [f"render exit {code}: {err.strip()}"]
            else:
                diff = differences(site, tree(os.path.join(path, "site")))
        found.extend(f"{label}: {d}" for d in diff)

    again = lab("again")
    code, err = roundup_in(roundup, again, ["run"], timeout)
    if code != 0:
        found.append(f"again: exit {code}: {err.strip()}")
    else:
        check("again", again)
    merged = lab("merged")
    shards = []
    for k in (1, 2):
        shard = lab(f"shard{k}")
        code, err = roundup_in(roundup, shard, ["run", "--shard", f"{k}/2"], timeout)
        if code != 0:
            found.append(f"shard {k}/2: exit {code}: {err.strip()}")
        shards.append(os.path.join(shard, "results"))
    shards = [s for s in shards if os.path.isdir(s)]
    code, err = roundup_in(roundup, merged, ["merge"] + shards, timeout)
    if code != 0:
        found.append(f"merge: exit {code}: {err.strip()}")
    else:
        check("shards merged", merged)
    jobs = sorted({os.path.dirname(k) for k in results})
    if jobs and not found:
        gone = rng.choice(jobs)
        shutil.rmtree(os.path.join(again, "results", gone))
        code, err = roundup_in(roundup, again, ["run", "--resume"], timeout)
        if code != 0:
            found.append(f"resume without {gone}: exit {code}: {err.strip()}")
        else:
            check(f"resume without {gone}", again, with_site=False)
    k = rng.randrange(len(tests))
    one = lab("one")
    code, err = roundup_in(roundup, one, ["run", "--test", f"t{k}"], timeout)
    if code != 0:
        found.append(f"--test t{k}: exit {code}: {err.strip()}")
    else:
        check(f"--test t{k}", one, with_site=False,
              only=lambda p: f"/suite=gen/test=t{k}/" in "/" + p)
        extra = [p for p in tree(os.path.join(one, "results"))
                 if f"/suite=gen/test=t{k}/" not in "/" + p]
        if extra:
            found.append(f"--test t{k}: stored other tests' files, e.g. {extra[0]}")
    return what, 0, "", found


def run_case(roundup, work, timeout):
    """Runs the lab in `work` (and renders it when the run succeeds): exit status (None on
    a timeout), the end of stderr, seconds taken."""
    start = time.monotonic()
    try:
        p = subprocess.run([roundup, "--lab", work, "run", "-q"], capture_output=True,
                           timeout=timeout)
        code, err = p.returncode, p.stderr.decode(errors="replace")
        # What a reviewer does next with the results: the site, and the summary each way.
        for then in [["render"], ["summary"], ["summary", "--json"], ["summary", "--csv"],
                     ["summary", "--markdown"]]:
            if code != 0:
                break
            p = subprocess.run([roundup, "--lab", work] + then + ["-q"], capture_output=True,
                               timeout=timeout)
            code, err = p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        code, err = None, ""
    return code, err[-800:], time.monotonic() - start


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("roundup")
    a.add_argument("--lab", default=os.path.join(os.path.dirname(__file__), ".."))
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--cases", type=int, default=200, help="cases of each kind")
    a.add_argument("--timeout", type=float, default=60.0)
    a.add_argument("--slow", type=float, default=15.0)
    a.add_argument("--bench", action="store_true",
                   help="half the real files' cases through an `fio --server` on 127.0.0.1 "
                   "(started and stopped here)")
    a.add_argument("--repro", type=int, default=0,
                   help="reproducibility cases besides (each runs its lab six times)")
    a.add_argument("--keep", help="keep each failing case's lab here")
    a.add_argument("--device", help="a block device to destroy: half the real cases run on "
                   "it (its kernel name as destroy_data), e.g. /dev/zram0 with a disksize set")
    args = a.parse_args()
    rng = random.Random(args.seed)
    drives_dir = os.path.join(args.lab, "drives")
    drives = sorted(f for f in os.listdir(drives_dir) if f.endswith(".yaml"))
    simulated = [f for f in drives
                 if re.search(r"\n(ssd|hdd|sim):\n", open(os.path.join(drives_dir, f)).read())]
    tally = {}
    bench, server = None, None
    if args.bench:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            bench = sock.getsockname()[1]
        server = subprocess.Popen(["fio", f"--server=ip:127.0.0.1,{bench}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", bench), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
    try:
        run_all(args, rng, drives_dir, simulated, tally, bench)
    finally:
        if server:
            os.killpg(server.pid, 9)
            server.wait()
    failed = tally.pop("failed", 0)
    counts = ", ".join(f"{k}: {v}" for k, v in sorted(tally.items()))
    print(f"{3 * args.cases + args.repro} cases ({counts}): {failed} failed")
    sys.exit(1 if failed else 0)


def run_all(args, rng, drives_dir, simulated, tally, bench):
    """Every case, in order; the failures counted in `tally["failed"]`."""
    failed = 0
    with tempfile.TemporaryDirectory(prefix="generated-runs-") as tmp:
        for case in range(3 * args.cases):
            work = os.path.join(tmp, f"case-{case}")
            os.makedirs(work)
            drive = rng.choice(simulated)
            text = open(os.path.join(drives_dir, drive)).read()
            if case % 3 == 0:
                text, what = mutated_drive(rng, text)
                suite = DRIVE_SUITE
            else:
                real = case % 3 == 2
                if real:
                    engine = rng.choice(["auto", "io_uring", "psync", "fio"])
                    if args.device and rng.random() < 0.5:
                        drive = "device.yaml"
                        name = os.path.basename(args.device)
                        text = (f"id: device\nvendor: gen\nmodel: a device\ncapacity: 1GB\n"
                                f"path: {args.device}\ndestroy_data: {name}\n"
                                f"engine: {engine}\n")
                    else:
                        drive = "file.yaml"
                        size = rng.choice(["64MiB", "256MiB"])
                        text = (f"id: file\nvendor: gen\nmodel: a file\ncapacity: {size}\n"
                                f"path: {os.path.join(work, 'file.bin')}\nsize: {size}\n"
                                f"engine: {engine}\n")
                        if bench and rng.random() < 0.5:
                            text += f"bench: 127.0.0.1:{bench}\n"
                if rng.random() < 0.25:
                    name, trace = generated_trace(rng)
                    with open(os.path.join(work, name), "w") as f:
                        f.write(trace)
                    what = [generated_replay(rng, name), trace[:300]]
                else:
                    what = [generated_test(rng, real)]
                seed = rng.randrange(1 << 32)
                suite = f"name: gen\ntitle: gen\nseed: {seed}\ntests:\n  - {what[0]}\n"
            os.makedirs(os.path.join(work, "drives"), exist_ok=True)
            os.makedirs(os.path.join(work, "suites"))
            with open(os.path.join(work, "drives", drive), "w") as f:
                f.write(text)
            with open(os.path.join(work, "suites", "gen.yaml"), "w") as f:
                f.write(suite)
            code, err, took = run_case(args.roundup, work, args.timeout)
            kind = "timeout" if code is None else f"exit {code}"
            tally[kind] = tally.get(kind, 0) + 1
            bad = code not in (0, 1) or "panicked" in err
            if bad or took > args.slow:
                print(f"{'FAILED' if bad else 'slow'} ({kind}, {took:.1f} s): case {case}, "
                      f"{drive}: {'; '.join(what)}\n{err.strip()}\n", flush=True)
            if bad:
                failed += 1
                if args.keep:
                    shutil.copytree(work, os.path.join(args.keep, f"case-{case}"))
            shutil.rmtree(work)
        for case in range(args.repro):
            work = os.path.join(tmp, f"repro-{case}")
            os.makedirs(work)
            start = time.monotonic()
            what, code, err, found = repro_case(rng, args.roundup, work, drives_dir,
                                                simulated, args.timeout)
            took = time.monotonic() - start
            kind = "timeout" if code is None else f"repro exit {code}"
            tally[kind] = tally.get(kind, 0) + 1
            bad = code not in (0, 1) or "panicked" in err or found
            if bad or took > 6 * args.slow:
                print(f"{'FAILED' if bad else 'slow'} ({kind}, {took:.1f} s): repro {case}: "
                      + "; ".join(what) + "\n" + err.strip() + "\n"
                      + "\n".join(found) + "\n", flush=True)
            if bad:
                failed += 1
                if args.keep:
                    shutil.copytree(work, os.path.join(args.keep, f"repro-{case}"))
            shutil.rmtree(work)
    tally["failed"] = failed


if __name__ == "__main__":
    main()
