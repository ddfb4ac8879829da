#!/usr/bin/env python3
# Issue 25 item 4's scale targets, whole process: `pareto --report` and `solve --budget 0.5
# --report` of generated transformers of ~13k, ~300k and ~1M ops; medians of N runs of wall
# time and peak RSS, the report's size, the load average around each program's runs, and
# each figure against its target (exit 1 when one misses, with --check).
#
#   bench/pareto_scale.py CLI [--runs N] [--runs-1m N] [--work DIR] [--sizes 13k,300k,1m]
#                             [--extra ARG ...] [--check]
#
# Wall time is the targets' measure; CPU time (user + sys) is printed beside it because on a
# shared machine wall time mostly measures the load.
# Targets (issue 25 item 4): pareto <= 3 s at 300k ops, <= 10 s and <= 1.5 GB at 1M ops;
# solve --budget 0.5 <= 3 s at 1M ops. The 13k program is the regression check of
# `pareto --points 20` (0.44-0.49 s before the planner refactor).
import argparse, os, statistics, subprocess, sys, time

SIZES = {"13k": 48, "300k": 1080, "1m": 3600}  # generate transformer --layers N
TARGETS = {  # (command, size) -> (seconds, MiB)
    ("pareto", "300k"): (3.0, None),
    ("pareto", "1m"): (10.0, 1.5 * 1024),
    ("budget", "1m"): (3.0, None),
}


def run_once(cmd):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"pareto_scale: {' '.join(cmd)} exited {code}: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--runs-1m", type=int, default=5, help="runs at 1M ops (3 when memory is tight)")
    ap.add_argument("--work", default="/tmp/rx-pareto-scale")
    ap.add_argument("--sizes", default="13k,300k,1m")
    ap.add_argument("--commands", default="pareto,budget")
    ap.add_argument("--extra", action="append", default=[], help="extra pareto argument (repeatable)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    missed = []
    for size in a.sizes.split(","):
        layers = SIZES[size]
        pir = os.path.join(a.work, f"transformer{layers}.pir")
        if not os.path.exists(pir):
            subprocess.run([a.cli, "generate", "transformer", "--layers", str(layers), "-o", pir],
                           check=True, stdout=subprocess.DEVNULL)
        runs = a.runs_1m if size == "1m" else a.runs
        for command in a.commands.split(","):
            report = os.path.join(a.work, f"{command}{layers}.json")
            if command == "pareto":
                cmd = [a.cli, "pareto", pir, "--points", "20", "--report", report] + a.extra
            else:
                cmd = [a.cli, "solve", pir, "--budget", "0.5", "--report", report]
            load_before = os.getloadavg()[0]
            walls, cpus, rss = [], [], []
            for _ in range(runs):
                w, c, m = run_once(cmd)
                walls.append(w)
                cpus.append(c)
                rss.append(m)
            load_after = os.getloadavg()[0]
            wall, mib = statistics.median(walls), statistics.median(rss)
            line = (f"{command:6s} {size:5s} median of {runs}: {wall:7.2f} s (min {min(walls):.2f}, max {max(walls):.2f}), "
                    f"CPU {statistics.median(cpus):7.2f} s, {mib:7.0f} MiB, report {os.path.getsize(report) / 2**20:.1f} MiB, load {load_before:.1f}->{load_after:.1f}")
            target = TARGETS.get((command, size))
            if target:
                ok = wall <= target[0] and (target[1] is None or mib <= target[1])
                line += f"  target <= {target[0]} s" + (f", <= {target[1]:.0f} MiB" if target[1] else "") + \
                        (": met" if ok else ": MISSED")
                if not ok:
                    missed.append(f"{command} {size}")
            print(line, flush=True)
    if a.check and missed:
        sys.exit("pareto_scale: missed " + ", ".join(missed))


if __name__ == "__main__":
    main()
