#!/usr/bin/env python3
# Whole-process time to a certificate in the exact mode, as users run it: `solve P --budget B
# --exact` at the hard points of generated programs (proven, or the gap left at the limit) and
# `pareto P --exact` (points proven of all); wall-clock medians over N runs, the cases
# interleaved so that a noisy machine slows them alike. Issue 25's exact-mode figures.
#
#   bench/exact_certify.py CLI [--runs N] [--work DIR] [--seconds S] [--only NAME] [--implied-rows]
#
# --implied-rows: every run with `--exact-implied-rows` (the opt-in tighter MILP), to set
# against a run without.
#
# The programs are generated (4-layer transformer, 2-layer LLaMA, 1-layer 4- and 8-step GRU, 8-step LSTM); the
# budgets are frontier points that took the longest to prove (README "Exact mode").
import argparse, os, re, statistics, subprocess, sys, time

PROGRAMS = {
    "transformer4": ["transformer", "--layers", "4"],
    "llama2": ["llama", "--layers", "2"],
    "gru4": ["gru", "--layers", "1", "--seq", "4"],
    "lstm8": ["lstm", "--layers", "1", "--seq", "8"],
    "gru8": ["gru", "--layers", "1", "--seq", "8"],
}
# (program, budget in bytes or None for the frontier)
CASES = [
    ("transformer4", 854404), ("transformer4", 842244),
    ("llama2", 451076), ("llama2", 442884),
    ("transformer4", None), ("llama2", None),
    ("gru4", 220928), ("gru4", None), ("lstm8", 299268), ("lstm8", None),
    ("gru8", 231680), ("gru8", None),
]


def run(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"exact_certify: {' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    return wall, proc.stdout


def outcome(budget, text):
    if budget is not None:
        m = re.search(r"optimality: (proven optimal|gap [0-9.]+%)", text)
        return m.group(1) if m else "no bound"
    points = [line for line in text.splitlines() if line.startswith("    exact:")]
    proven = sum("optimal (" in line for line in points)
    return f"{proven}/{len(points)} proven"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default="/tmp/rx-exact-certify")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--only", choices=sorted(PROGRAMS))
    ap.add_argument("--implied-rows", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    paths = {}
    for name, args in PROGRAMS.items():
        # Generated afresh each time (fast): a file left by an older CLI may be another program.
        paths[name] = os.path.join(a.work, name + ".pir")
        run([a.cli, "generate", *args, "-o", paths[name]])
    cases = [c for c in CASES if not a.only or c[0] == a.only]
    walls = {c: [] for c in cases}
    outcomes = {c: [] for c in cases}
    for _ in range(a.runs):
        for case in cases:
            name, budget = case
            if budget is None:
                cmd = [a.cli, "pareto", paths[name], "--exact", "--exact-seconds", str(a.seconds)]
            else:
                cmd = [a.cli, "solve", paths[name], "--budget", str(budget), "--exact", "--exact-seconds", str(a.seconds)]
            if a.implied_rows:
                cmd.append("--exact-implied-rows")
            wall, text = run(cmd)
            walls[case].append(wall)
            outcomes[case].append(outcome(budget, text))
    for case in cases:
        name, budget = case
        what = f"solve --budget {budget}" if budget is not None else "pareto"
        print(f"{name:13} {what:22} median {statistics.median(walls[case]):6.1f} s wall "
              f"(of {len(walls[case])}: {', '.join(f'{w:.1f}' for w in walls[case])}); {'; '.join(outcomes[case])}")


if __name__ == "__main__":
    main()
