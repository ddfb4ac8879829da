#!/usr/bin/env python3
"""The earlier RegisterCommand style on CLI11: positionals, "--key value", "--key=value",
flags, integer() validation (exit 1), --help (0) and a missing option value (2)."""
import subprocess, sys

probe = sys.argv[1]
fails = 0


def check(name, ok, detail=""):
    global fails
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    fails += 0 if ok else 1


r = subprocess.run([probe, "legacy", "a.pir", "--spec", "s.json", "--flag", "--n=3", "b"], capture_output=True, text=True)
check("parses like before", r.returncode == 0 and r.stdout ==
      "positional a.pir\npositional b\noption --n=3\noption --spec=s.json\nflag --flag\nnumber 3\n", r.stdout + r.stderr)
r = subprocess.run([probe, "legacy", "--fail"], capture_output=True, text=True)
check("its exit code passes through", r.returncode == 4, str(r.returncode))
r = subprocess.run([probe, "legacy", "--n", "x"], capture_output=True, text=True)
check("integer() errors exit 1 naming the option", r.returncode == 1 and "--n expects an integer >= 0, found 'x'" in r.stderr, r.stderr)
r = subprocess.run([probe, "legacy", "--spec"], capture_output=True, text=True)
check("a missing value is a usage error", r.returncode == 2 and "--spec needs a value" in r.stderr, r.stderr)
r = subprocess.run([probe, "legacy", "--help"], capture_output=True, text=True)
check("--help shows the usage line", r.returncode == 0 and "legacy POS [--spec F]" in r.stdout, r.stdout + r.stderr)
sys.exit(1 if fails else 0)
