#!/usr/bin/env python3
"""The commands ported to CLI11 (profile, pareto, cuda-profile, solve --budget): --help lists
every option, a bad option value is exit 2 with CLI11's message naming the option, and outputs
that name an input are refused before any work (exit 1, nothing written). Also the streamed
--rewritten program equals what `convert --renumber` prints for it. Usage: CLI SHARED_DIR"""
import os, shutil, subprocess, sys, tempfile

CLI, SHARED = sys.argv[1], sys.argv[2]
CASE = os.path.join(SHARED, "corpus/cases/docstring-before-recompute")
failures = []


def run(*args, timeout=120):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout)


def check(name, condition, detail=""):
    if not condition:
        failures.append(name)
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


HELP = {
    "profile": ["PROGRAM", "--spec", "--config", "--budget", "--device", "--report", "--trace", "--seed", "--rtol",
                "--atol"],
    "pareto": ["PROGRAM", "--spec", "--config", "--costs", "--points", "--report", "--exact", "--sets"],
    "cuda-profile": ["PROGRAM", "--spec", "--config", "--seed", "--warmup", "--steps", "--tf32", "--unfused-only",
                     "--json"],
}

with tempfile.TemporaryDirectory() as tmp:
    prog, spec = os.path.join(tmp, "p.pir"), os.path.join(tmp, "p.spec.json")
    shutil.copy(CASE + ".pir", prog)
    shutil.copy(CASE + ".spec.json", spec)
    original = open(prog, "rb").read()

    for command, options in HELP.items():
        r = run(command, "--help")
        missing = [o for o in options if o not in r.stdout]
        check(f"{command} --help lists its options", r.returncode == 0 and not missing, f"rc {r.returncode}, missing {missing}")
        check(f"{command} --help has help text per option", r.stdout.count("\n") >= len(options) + 4, r.stdout)

    bad = [
        (["profile", prog, "--device", "gpu"], "--device: expected cpu, cuda or cuda:N, found 'gpu'"),
        (["profile", prog, "--rtol", "-1"], "--rtol"),
        (["profile", prog, "--seed", "x"], "--seed"),
        (["profile", prog, "--budget", "12parsecs"], "unknown unit 'parsecs'"),
        (["profile", prog, "--budget", "0.5", "--config", spec], "excludes"),
        (["profile", os.path.join(tmp, "missing.pir")], "File does not exist"),
        (["pareto", prog, "--points", "0"], "--points: Value 0 not in range"),
        (["pareto", prog, "--points", "many"], "--points"),
        (["pareto", prog, "--report", "out.txt"], "--report expects a file name ending in .json or .csv"),
        (["pareto", prog, "--costs", os.path.join(tmp, "none.json")], "--costs: File does not exist"),
        (["solve", prog, "--exact"], "--exact requires --budget"),
        (["solve", prog, "--budget", "0.0", "--exact-seconds", "5"], "--exact-seconds requires --exact"),
        (["solve", prog, "--budget", "0.0", "--exact", "--exact-seconds", "-1"], "--exact-seconds: expects a number in [0, 86400], found '-1'"),
        # NaN passed CLI11's own range checks (every comparison false): it ran without a limit.
        (["solve", prog, "--budget", "0.0", "--exact", "--exact-seconds", "nan"], "--exact-seconds: expects a finite number, found 'nan'"),
        (["pareto", prog, "--exact", "--exact-seconds", "nan"], "--exact-seconds: expects a finite number"),
        (["verify", prog, "--atol", "inf"], "--atol: expects a finite number"),
        (["profile", prog, "--rtol", "nan"], "--rtol: expects a finite number"),
        # Sizes that overflowed into a program the reader refuses, or ran out of memory.
        (["generate", "mlp", "--hidden", "99999999999999999999", "-o", os.path.join(tmp, "g.pir")], "--hidden: Value 99999999999999999999 not in range 0 to 65536"),
        (["generate", "mlp", "--layers", "2000000000", "-o", os.path.join(tmp, "g.pir")], "--layers: Value 2000000000 not in range"),
        (["inspect", prog, "--program", "-1"], "--program: Value -1 not in range 0 to 2147483647"),
        (["cuda-profile", prog, "--steps", "0"], "--steps: Value 0 not in range"),
        (["cuda-profile", prog, "--warmup", "-1"], "--warmup"),
        (["cuda-profile", prog, "--config", tmp + "/nope.json"], "--config: File does not exist"),
    ]
    for args, message in bad:
        r = run(*args)
        check(f"{' '.join(a.replace(tmp, '') for a in args)} is exit 2", r.returncode == 2 and message in r.stderr,
              f"rc {r.returncode}: {r.stderr}")

    # Outputs naming an input: refused before any work, the input intact.
    for args in (["profile", prog, "--report", prog], ["profile", prog, "--trace", spec],
                 ["pareto", prog, "--report", os.path.join(tmp, ".", "p.spec.json")],
                 ["solve", prog, "--budget", "0.0", "--rewritten", prog]):
        r = run(*args)
        check(f"{' '.join(a.replace(tmp, '') for a in args)} is refused", r.returncode == 1 and "names the input" in r.stderr,
              f"rc {r.returncode}: {r.stderr}")
    check("the program survives", open(prog, "rb").read() == original)
    r = run("solve", prog, "--budget", "0.0", "--report", os.path.join(tmp, "b.json"),
            "--rewritten", os.path.join(tmp, "b.json"))
    check("solve --budget: two outputs naming one file are refused",
          r.returncode == 1 and "names the same file as --report" in r.stderr and not os.path.exists(os.path.join(tmp, "b.json")),
          r.stderr)

    # The ported commands still run.
    r = run("solve", prog, "--budget", "0.0", "--exact", "--exact-seconds", "5", "--rewritten", os.path.join(tmp, "budget.pir"))
    check("solve --budget --exact runs and writes its program", r.returncode == 0 and "exact" in r.stdout and
          os.path.getsize(os.path.join(tmp, "budget.pir")) > 0, r.stdout + r.stderr)
    r = run("pareto", prog, "--points", "3", "--report", os.path.join(tmp, "f.csv"))
    check("pareto writes its csv", r.returncode == 0 and open(os.path.join(tmp, "f.csv")).read().startswith("source,"), r.stderr)
    # Issue 25 item 4: summaries by default, the full sets (FORMATS.md's keys) with --sets.
    import json
    r = run("pareto", prog, "--points", "3", "--report", os.path.join(tmp, "summary.json"))
    summary = json.load(open(os.path.join(tmp, "summary.json"))) if r.returncode == 0 else {}
    plans = summary.get("plans", [])
    check("pareto's default report holds per-plan summaries",
          summary.get("sets") is False and plans and all("saved_count" in p and "saved_values" not in p and
                                                         "recompute_ops" not in p for p in plans), r.stderr)
    r = run("pareto", prog, "--points", "3", "--sets", "--report", os.path.join(tmp, "sets.json"))
    full = json.load(open(os.path.join(tmp, "sets.json"))) if r.returncode == 0 else {}
    check("pareto --sets reports every plan's sets",
          full.get("sets") is True and len(full.get("plans", [])) == len(plans) and
          all(len(p["saved_values"]) == p["saved_count"] and len(p["recompute_ops"]) == p["recompute_op_count"]
              for p in full.get("plans", [])), r.stderr)
    r = run("profile", prog, "--report", os.path.join(tmp, "prof.json"), "--trace", os.path.join(tmp, "trace.json"))
    check("profile writes report and trace", r.returncode == 0 and os.path.getsize(os.path.join(tmp, "prof.json")) > 0 and
          os.path.getsize(os.path.join(tmp, "trace.json")) > 0, r.stderr)

    # The streamed --rewritten program: what the string printer gives for it (convert reads it
    # back and prints it with the same options: a fixed point, byte for byte).
    rewritten, again = os.path.join(tmp, "rw.pir"), os.path.join(tmp, "rw2.pir")
    r = run("solve", prog, "--rewritten", rewritten)
    check("solve --rewritten writes", r.returncode == 0 and os.path.getsize(rewritten) > 0, r.stderr)
    r = run("convert", rewritten, again, "--renumber")
    check("the streamed program reads back and prints the same bytes",
          r.returncode == 0 and open(rewritten, "rb").read() == open(again, "rb").read(), r.stderr)
    # The program is written on a second thread beside the report: its failure is still the
    # command's failure, with the system's reason, and nothing half-written anywhere.
    r = run("solve", prog, "--report", os.path.join(tmp, "ok.json"),
            "--rewritten", os.path.join(tmp, "no-such-folder", "w.pir"))
    check("a failed --rewritten beside --report is exit 1 naming it",
          r.returncode == 1 and "w.pir" in r.stderr and "No such file or directory" in r.stderr, r.stderr)
    r = run("solve", prog, "--report", os.path.join(tmp, "no-such-folder", "r.json"), "--rewritten", rewritten)
    check("a failed --report beside --rewritten is exit 1 naming it", r.returncode == 1 and "r.json" in r.stderr, r.stderr)
    check("no temporaries left", sorted(f for f in os.listdir(tmp) if f.startswith(".")) == [], os.listdir(tmp))

print(f"{len(failures)} failures" if failures else "all passed")
sys.exit(1 if failures else 0)
