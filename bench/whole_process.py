#!/usr/bin/env python3
# Whole-process timings of `recompute-cli solve P --spec S --report R --rewritten W`, as users
# run it: wall, CPU (user+sys) and peak RSS of each run, medians over N runs, programs
# interleaved so that a noisy machine slows them alike. Issue 8's figures come from here.
#
#   bench/whole_process.py CLI [--runs N] [--work DIR] [--chain] [--growth] [--seed-seconds S] [--seed-runs K]
#                              [--pause P]
#
# --chain   the 56k-op chain of bench_solve (make_chain.py 20000), against the seed's time
#           (S seconds, 11.4 by default: the seed's Python on this chain, measured on a slower VM);
# --seed-runs K  instead, times the seed's Python (tests/algorithms/reference/seed_reference.py,
#           the seed ported onto a stand-in IR, networkx's min cut) K times on the chain, one run
#           before each K-th of ours, so that both are measured in the same minutes of a noisy VM;
# --growth  generated transformers of ~100k and ~1M ops (generate transformer --layers 360 /
#           3600) and the growth exponent log(t1M / t100k) / log(ops1M / ops100k).
# --pause P waits P seconds before each run (not timed), as a user runs one solve after another
#           with time between: on a VM that hands idle memory back to its host, fresh memory is
#           dearer then than right after the previous run.
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
    ap.add_argument("--seed-runs", type=int, default=0)
    ap.add_argument("--pause", type=float, default=0.0)
    a = ap.parse_args()
    if not (a.chain or a.growth):
        a.chain = a.growth = True
    if a.seed_runs and not a.chain:
        sys.exit("whole_process: --seed-runs times the seed on the chain: add --chain")
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

    seed_script = os.path.join(here, "..", "tests", "algorithms", "reference", "seed_reference.py")
    no_need_buffer = os.path.join(here, "..", "..", "shared", "data", "no_need_buffer.tsv")
    seed_walls = []
    results = {label: [] for label, _, _ in programs}
    for i in range(a.runs):
        if a.seed_runs and i * a.seed_runs // a.runs != (i + 1) * a.seed_runs // a.runs:
            _, pir, spec = programs[0]
            seed_walls.append(run_once([sys.executable, seed_script, pir, spec, no_need_buffer])[0])
        for label, pir, spec in programs:
            out = os.path.join(a.work, label)
            cmd = [a.cli, "solve", pir, "--spec", spec, "--report", out + ".report.json", "--rewritten", out + ".rewritten.pir"]
            if a.pause:
                time.sleep(a.pause)
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
        if label == "chain56k" and seed_walls:
            seed = statistics.median(seed_walls)
            line += (f"; the seed's Python, median of {len(seed_walls)} runs among these: {seed:.2f} s"
                     f" (min {min(seed_walls):.2f}) / wall = {seed / wall:.0f}x")
        elif label == "chain56k":
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
