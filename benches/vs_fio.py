"""Driver of benches/vs-fio.sh: runs roundup and fio alternately on the same jobs and targets
and prints the ratios (roundup / fio). See vs-fio.sh for usage."""

import argparse
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

WORK = "/tmp/roundup-vs-fio"
SPAN = 1 << 30  # 1 GiB on every target

# (id, roundup operation, pattern, block size, queue depth, fio rw, bytes, threads[, options])
# options: "fixed" registers the buffers and the file (roundup's io_uring: {fixed_buffers,
# fixed_files}, fio's fixedbufs and registerfiles); "pinned" also pins the threads, one CPU
# each in turn (roundup's cpus: [0, 1], fio's cpus_allowed=0,1 with policy split).
JOBS = [
    ("randread-4k-qd32", "read", "random", "4KiB", 32, "randread", 4096, 1),
    ("randread-4k-qd1", "read", "random", "4KiB", 1, "randread", 4096, 1),
    ("randwrite-4k-qd32", "write", "random", "4KiB", 32, "randwrite", 4096, 1),
    ("seqread-128k-qd1", "read", "sequential", "128KiB", 1, "read", 131072, 1),
    # Four threads of QD32 each (a ring each in roundup, a job each in fio).
    ("randread-4k-qd32t4", "read", "random", "4KiB", 32, "randread", 4096, 4),
    ("randwrite-4k-qd32t4", "write", "random", "4KiB", 32, "randwrite", 4096, 4),
    ("randread-4k-qd32-fixed", "read", "random", "4KiB", 32, "randread", 4096, 1, "fixed"),
    ("randread-4k-qd32t4-fixed", "read", "random", "4KiB", 32, "randread", 4096, 4, "fixed"),
    ("randread-4k-qd32t4-pinned", "read", "random", "4KiB", 32, "randread", 4096, 4, "pinned"),
    # Deep queues: 4,096, and fio's deepest, 32,768 (its io_uring ring is the kernel's, at
    # most 32,768 entries; roundup's submits a deeper queue as its ring fills).
    ("randread-4k-qd4096", "read", "random", "4KiB", 4096, "randread", 4096, 1),
    ("randread-4k-qd32768", "read", "random", "4KiB", 32768, "randread", 4096, 1),
]


def options(job):
    return job[8] if len(job) > 8 else ""


ROUNDUP_OPTIONS = {
    "": "",
    "fixed": ", io_uring: {fixed_buffers: true, fixed_files: true}",
    "pinned": ", io_uring: {fixed_buffers: true, fixed_files: true}, cpus: [0, 1]",
}
FIO_OPTIONS = {
    "": [],
    "fixed": ["--fixedbufs=1", "--registerfiles=1"],
    "pinned": ["--fixedbufs=1", "--registerfiles=1", "--cpus_allowed=0,1",
               "--cpus_allowed_policy=split"],
}


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def timed(cmd):
    """Runs cmd; returns (stdout, CPU seconds (user + system) of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu


def fill(path):
    """Writes incompressible data over the span so reads hit real blocks."""
    sh("dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={SPAN >> 20}", "oflag=direct", "conv=notrunc")


def setup_targets(names):
    targets = {}
    cleanup = []
    os.makedirs(WORK, exist_ok=True)
    if "file" in names:
        targets["file"] = {"path": f"{WORK}/file.img", "size": "1GiB"}
    if "zram" in names:
        if os.path.exists("/sys/block/zram0"):
            with open("/sys/block/zram0/disksize") as f:
                if f.read().strip() != "0":
                    print("zram0 is in use; skipping it", file=sys.stderr)
                else:
                    with open("/sys/block/zram0/disksize", "w") as f:
                        f.write(str(SPAN))
                    cleanup.append(lambda: open("/sys/block/zram0/reset", "w").write("1"))
                    fill("/dev/zram0")
                    targets["zram"] = {"path": "/dev/zram0", "destroy": "zram0"}
        else:
            print("no /dev/zram0; skipping zram", file=sys.stderr)
    if "loop" in names:
        backing = f"{WORK}/loop-backing.img"
        with open(backing, "wb") as f:
            f.truncate(SPAN)
        p = sh("losetup", "-f", "--show", backing, check=False)
        if p.returncode == 0:
            dev = p.stdout.strip()
            cleanup.append(lambda dev=dev: sh("losetup", "-d", dev, check=False))
            fill(dev)
            targets["loop"] = {"path": dev, "destroy": dev.removeprefix("/dev/")}
        else:
            print(f"losetup refused ({p.stderr.strip()}); skipping loop", file=sys.stderr)
    return targets, cleanup


def make_lab(name, t, runtime, labs):
    lab = f"{labs}/lab-{name}"
    shutil.rmtree(lab, ignore_errors=True)
    os.makedirs(f"{lab}/suites")
    os.makedirs(f"{lab}/drives")
    tests = []
    for job in JOBS:
        jid, op, pattern, bs, qd, _, _, threads = job[:8]
        tests.append(
            f"  - {{id: {jid}, title: {jid}, operation: {op}, pattern: {pattern}, block_size: {bs}, "
            f"span: 1GiB, queue_depth: {qd}, threads: {threads}, duration: {runtime}s, metric: iops, "
            f"data: incompressible{ROUNDUP_OPTIONS[options(job)]}}}"
        )
    with open(f"{lab}/suites/bench.yaml", "w") as f:
        f.write("name: bench\ntitle: roundup vs fio\ntests:\n" + "\n".join(tests) + "\n")
    drive = f"id: {name}\nvendor: bench\nmodel: {name}\ncapacity: 1GiB\npath: {t['path']}\n"
    if "size" in t:
        drive += f"size: {t['size']}\n"
    with open(f"{lab}/drives/{name}.yaml", "w") as f:
        f.write(drive)
    return lab


def run_roundup(binary, lab, t, job, engine):
    cmd = [binary, "--lab", lab, "run", "--test", job[0], "--engine", engine]
    if "destroy" in t:
        cmd += ["--destroy-data", t["destroy"]]
    _, cpu = timed(cmd)
    out, _ = timed([binary, "--lab", lab, "summary", "--json", "--test", job[0]])
    row = json.loads(out)[0]
    # What the block layer counted over the measured part (absent where no block device is
    # under the target): the depth the device itself saw.
    manifests = glob.glob(f"{lab}/results/**/test={job[0]}/**/manifest.json", recursive=True)
    device = json.load(open(manifests[0]))["outcome"].get("device") if manifests else None
    return {"iops": row["iops"], "lat_us": row["lat_mean_us"], "ios": row["ios"], "cpu": cpu,
            "depth": row["iops"] * row["lat_mean_us"] / 1e6,
            "device_depth": device["depth"] if device else float("nan"),
            "device_lat_us": (device.get("mean_latency_us") or float("nan")) if device else float("nan")}


def run_fio(t, job, runtime, engine):
    jid, op, _, _, qd, rw, bs, threads = job[:8]
    cmd = [
        "fio", "--name", jid, "--filename", t["path"], "--direct=1", f"--ioengine={engine}",
        f"--rw={rw}", f"--bs={bs}", f"--iodepth={qd}", f"--size={SPAN}", "--time_based",
        f"--runtime={runtime}", "--norandommap", "--randrepeat=0", "--output-format=json",
        f"--numjobs={threads}", "--group_reporting", "--thread",
    ] + FIO_OPTIONS[options(job)]
    out, cpu = timed(cmd)
    j = json.loads(out)["jobs"][0]
    side = j["write"] if op == "write" else j["read"]
    lat_us = side["lat_ns"]["mean"] / 1e3
    # fio's own "Disk stats": the same kernel counters over its run (in_queue ms over the
    # run's ms), for the device under the target.
    disks = json.loads(out).get("disk_util") or [{}]
    d = disks[0]
    runtime_ms = side.get("runtime") or 0
    ios = d.get("read_ios", 0) + d.get("write_ios", 0)
    ticks = d.get("read_ticks", 0) + d.get("write_ticks", 0)
    return {"iops": side["iops"], "lat_us": lat_us, "ios": side["total_ios"], "cpu": cpu,
            "depth": side["iops"] * lat_us / 1e6,
            "device_depth": d["in_queue"] / runtime_ms if "in_queue" in d and runtime_ms else float("nan"),
            "device_lat_us": ticks / ios * 1e3 if ios else float("nan")}


def hold_cpu_latency():
    """Keeps every CPU out of deep idle states for the run (what tuned's latency-performance
    profile does): on a VM, waking a halted vCPU costs tens of microseconds and affects the
    two tools differently, which would measure the idle governor rather than the tools.
    Returns the open descriptor (the request lasts while it is open), or None."""
    try:
        fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
        os.write(fd, (0).to_bytes(4, "little"))
        return fd
    except OSError as e:
        print(f"note: cannot hold /dev/cpu_dma_latency ({e}); idle states stay enabled", file=sys.stderr)
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--roundup", required=True)
    ap.add_argument("--runtime", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--targets", default="file,zram,loop")
    ap.add_argument("--jobs", default=",".join(j[0] for j in JOBS), help="the job ids to run")
    ap.add_argument("--labs", default="/dev/shm/roundup-vs-fio" if os.path.isdir("/dev/shm") else WORK,
                    help="where roundup's labs (and results) go: off the disk under test")
    ap.add_argument("--engine", default="io_uring", choices=["io_uring", "psync"])
    ap.add_argument("--out", default=None, help="also write the table (Markdown) here")
    ap.add_argument("--allow-idle", action="store_true", help="do not hold /dev/cpu_dma_latency at 0")
    a = ap.parse_args()
    latency_fd = None if a.allow_idle else hold_cpu_latency()
    print(f"cpu idle states: {'enabled' if latency_fd is None else 'held off (/dev/cpu_dma_latency = 0)'}", flush=True)

    if os.geteuid() != 0:
        print("note: not root; zram and loop targets will be skipped", file=sys.stderr)
    targets, cleanup = setup_targets(a.targets.split(","))
    rows = []
    try:
        for name, t in targets.items():
            lab = make_lab(name, t, a.runtime, a.labs)
            for job in [j for j in JOBS if j[0] in a.jobs.split(",")]:
                r, f = [], []
                for _ in range(a.rounds):  # alternate, so drift hits both alike
                    r.append(run_roundup(a.roundup, lab, t, job, a.engine))
                    f.append(run_fio(t, job, a.runtime, "io_uring" if a.engine == "io_uring" else "psync"))
                med = lambda xs, k: statistics.median(x[k] for x in xs)
                cpu_r = statistics.median(x["cpu"] / x["ios"] * 1e6 for x in r)
                cpu_f = statistics.median(x["cpu"] / x["ios"] * 1e6 for x in f)
                iops_ratios = [x["iops"] / y["iops"] for x, y in zip(r, f)]
                rows.append({
                    "target": name, "job": job[0],
                    "roundup_iops": med(r, "iops"), "fio_iops": med(f, "iops"),
                    "iops_ratio": statistics.median(iops_ratios),
                    "iops_ratio_spread": max(iops_ratios) - min(iops_ratios),
                    "roundup_lat_us": med(r, "lat_us"), "fio_lat_us": med(f, "lat_us"),
                    "lat_ratio": med(r, "lat_us") / med(f, "lat_us"),
                    "roundup_cpu_us_per_io": cpu_r, "fio_cpu_us_per_io": cpu_f,
                    "cpu_ratio": cpu_r / cpu_f,
                    "roundup_depth": med(r, "depth"), "fio_depth": med(f, "depth"),
                    "roundup_device_depth": med(r, "device_depth"), "fio_device_depth": med(f, "device_depth"),
                    "roundup_device_lat_us": med(r, "device_lat_us"), "fio_device_lat_us": med(f, "device_lat_us"),
                })
                x = rows[-1]
                print(f"{name:5} {job[0]:18} IOPS {x['roundup_iops']:>9.0f} vs {x['fio_iops']:>9.0f} "
                      f"({x['iops_ratio']:.3f}, spread {x['iops_ratio_spread']:.3f})  mean lat {x['roundup_lat_us']:.1f} vs "
                      f"{x['fio_lat_us']:.1f} µs ({x['lat_ratio']:.3f})  CPU/IO {cpu_r:.2f} vs {cpu_f:.2f} µs "
                      f"({x['cpu_ratio']:.2f})  depth {x['roundup_depth']:.1f} vs {x['fio_depth']:.1f}, "
                      f"device's {x['roundup_device_depth']:.1f} vs {x['fio_device_depth']:.1f} "
                      f"({x['roundup_device_lat_us']:.0f} vs {x['fio_device_lat_us']:.0f} µs)", flush=True)
    finally:
        for c in reversed(cleanup):
            c()
        shutil.rmtree(WORK, ignore_errors=True)
        shutil.rmtree(a.labs, ignore_errors=True)
    table = ["| target | job | roundup IOPS | fio IOPS | IOPS ratio (spread) | mean latency ratio | CPU/IO roundup µs | CPU/IO fio µs | CPU ratio | mean depth roundup / fio | device's depth roundup / fio | device's latency roundup / fio µs |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in rows:
        table.append(f"| {x['target']} | {x['job']} | {x['roundup_iops']:.0f} | {x['fio_iops']:.0f} | {x['iops_ratio']:.3f} ({x['iops_ratio_spread']:.2f}) | "
                     f"{x['lat_ratio']:.3f} | {x['roundup_cpu_us_per_io']:.2f} | {x['fio_cpu_us_per_io']:.2f} | {x['cpu_ratio']:.2f} | "
                     f"{x['roundup_depth']:.1f} / {x['fio_depth']:.1f} | {x['roundup_device_depth']:.1f} / {x['fio_device_depth']:.1f} | "
                     f"{x['roundup_device_lat_us']:.0f} / {x['fio_device_lat_us']:.0f} |")
    print("\n".join(table))
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
