#!/usr/bin/env python3
# Whole-process timings of `recompute-cli solve P --spec S --report R --rewritten W`, as users
# run it: wall, CPU (user+sys) and peak RSS of each run, medians over N runs, programs
# interleaved so that a noisy machine slows them alike. Issue 8's figures come from here.
#
#   bench/whole_process.py CLI [--runs N] [--work DIR] [--chain] [--growth] [--seed-seconds S]
#
# --chain   the 56k-op chain of bench_solve (make_chain.py 20000), against the seed's time
#           (S seconds, 11.4 by default: the seed's Python on this chain);
# --growth  generated transformers of ~100k and ~1M ops (generate transformer --layers 360 /
#           3600) and the growth exponent log(t1M / t100k) / log(ops1M / ops100k).
# Outputs are written over the files of the previous run, as a user re-running a solve does.
import argparse, math, os, statistics, subprocess, sys, time


def run_once(cmd):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"whole_process: {' '.join(cmd)} exited {code}: {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def op_count(spec_or_pir):
    with open(spec_or_pir) as f:
        return sum(1 for line in f if '" (' in line or ") = " in line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default="/tmp/rx-whole-process")
    ap.add_argument("--chain", action="store_true")
    ap.add_argument("--growth", action="store_true")
    ap.add_argument("--seed-seconds", type=float, default=11.4)
    a = ap.parse_args()
    if not (a.chain or a.growth):
        a.chain = a.growth = True
    os.makedirs(a.work, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    programs = []  # (label, pir, spec)
    if a.chain:
        pir = os.path.join(a.work, "chain56k.pir")
        if not os.path.exists(pir):
            subprocess.run([sys.executable, os.path.join(here, "make_chain.py"), "20000", pir], check=True)
        programs.append(("chain56k", pir, pir[:-4] + ".spec.json"))
    if a.growth:
        for label, layers in (("transformer100k", 360), ("transformer1M", 3600)):
            pir = os.path.join(a.work, label + ".pir")
            if not os.path.exists(pir):
                subprocess.run([a.cli, "generate", "transformer", "--layers", str(layers), "-o", pir], check=True,
                               stdout=subprocess.DEVNULL)
            programs.append((label, pir, pir[:-4] + ".spec.json"))

    results = {label: [] for label, _, _ in programs}
    for _ in range(a.runs):
        for label, pir, spec in programs:
            out = os.path.join(a.work, label)
            cmd = [a.cli, "solve", pir, "--spec", spec, "--report", out + ".report.json", "--rewritten", out + ".rewritten.pir"]
            results[label].append(run_once(cmd))

    ops = {}
    for label, pir, _ in programs:
        ops[label] = op_count(pir)
        rows = results[label]
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        rss = statistics.median(r[2] for r in rows)
        line = (f"{label}: {ops[label]} ops, wall median {wall:.3f} s (min {min(r[0] for r in rows):.3f}), "
                f"CPU median {cpu:.3f} s, peak RSS {rss:.0f} MiB ({rss * 1024 / ops[label]:.2f} KiB/op), {len(rows)} runs")
        if label == "chain56k":
            line += f"; the seed's {a.seed_seconds} s / wall = {a.seed_seconds / wall:.0f}x"
        print(line)
    if a.growth:
        small, big = "transformer100k", "transformer1M"
        span = math.log(ops[big] / ops[small])
        for name, k in (("wall", 0), ("CPU", 1)):
            ratio = statistics.median(r[k] for r in results[big]) / statistics.median(r[k] for r in results[small])
            print(f"growth exponent ({name}, medians) 100k -> 1M: {math.log(ratio) / span:.3f}")


if __name__ == "__main__":
    main()
