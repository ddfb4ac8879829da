#!/usr/bin/env python3
"""recompute-cli on the zoo's control-flow programs: generate --control-flow, then solve (with
the rewritten program), verify and profile; each must succeed, the runs be equivalent and
profile's measured peaks equal the memory model's (issue 21 item 5)."""
import json
import os
import subprocess
import sys
import tempfile

CLI = sys.argv[1]
failures = []


def run(*args):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


def check(name, condition, detail=""):
    if not condition:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


with tempfile.TemporaryDirectory() as tmp:
    for model in ("mlp", "transformer", "llama", "conv", "lstm", "gru"):
        for generation in ("G2", "G3"):
            base = os.path.join(tmp, f"{model}-{generation}")
            pir = base + ".pir"
            rc, out = run("generate", model, "--layers", "1", "--hidden", "8", "--heads", "2", "--seq", "4",
                          "--batch", "2", "--control-flow", "--generation", generation, "-o", pir)
            check(f"{model} {generation} generate", rc == 0, out)
            if rc:
                continue
            text = open(pir).read()
            check(f"{model} {generation} has if, while, stacks",
                  text.count('"pd_op.if"') == 2 and text.count('"pd_op.while"') == 2 and text.count("cf.stack_create") == 3,
                  "control-flow ops missing")
            rc, out = run("convert", pir, base + ".rt.pir")
            check(f"{model} {generation} reads back unchanged", rc == 0 and open(base + ".rt.pir").read() == text, out)
            rc, out = run("solve", pir, "--report", base + ".report.json", "--rewritten", base + ".rewritten.pir")
            check(f"{model} {generation} solve", rc == 0, out)
            if rc == 0:
                report = json.load(open(base + ".report.json"))
                check(f"{model} {generation} solve report", "saved_values" in report and "cut_value" in report, str(report)[:200])
                rc, out = run("inspect", base + ".rewritten.pir")
                check(f"{model} {generation} rewritten program reads back", rc == 0, out)
            rc, out = run("verify", pir)
            check(f"{model} {generation} verify", rc == 0 and "equivalent" in out and "NOT" not in out, out)
            rc, out = run("profile", pir, "--report", base + ".profile.json", "--repeats", "1", "--warmup", "0")
            check(f"{model} {generation} profile", rc == 0, out)
            if rc == 0:
                prof = json.load(open(base + ".profile.json"))
                check(f"{model} {generation} profile equivalent", prof["equivalent"] is True, str(prof.get("first_difference")))
                for run_name in ("original", "rewritten"):
                    r = prof[run_name]
                    check(f"{model} {generation} {run_name} measured peak = model",
                          r["peak_matches_model"] is True and r["peak_bytes"] == r["model_peak_bytes"],
                          f"measured {r['peak_bytes']}, model {r['model_peak_bytes']}")

if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
