#!/usr/bin/env python3
"""recompute-cli on its files and command line, end to end: outputs that name an input or
each other are refused, a full disk (RLIMIT_FSIZE) is a non-zero exit with the old files
intact and no temporaries left, directories and FIFOs are refused as inputs, strict configs,
exact byte totals, and CLI11's usage errors. Usage: test_cli.py CLI SHARED_DIR"""
import json, os, resource, shutil, signal, subprocess, sys, tempfile

CLI, SHARED = sys.argv[1], sys.argv[2]
CASE = os.path.join(SHARED, "corpus/cases/docstring-before-recompute")
failures = []


def run(*args, limit_bytes=None, timeout=60):
    def limit():
        if limit_bytes is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout, preexec_fn=limit)


def check(name, condition, detail=""):
    if not condition:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


def read(path):
    with open(path, "rb") as f:
        return f.read()


with tempfile.TemporaryDirectory() as tmp:
    prog, spec = os.path.join(tmp, "p.pir"), os.path.join(tmp, "p.spec.json")
    shutil.copy(CASE + ".pir", prog)
    shutil.copy(CASE + ".spec.json", spec)
    original = read(prog)

    # --- outputs that name inputs or each other ---
    r = run("solve", prog, "--report", prog)
    check("solve --report PROGRAM is refused", r.returncode == 1 and "names the input PROGRAM" in r.stderr, r.stderr)
    check("the program survives", read(prog) == original)
    r = run("solve", prog, "--report", os.path.join(tmp, ".", "p.spec.json"))
    check("solve --report SPEC-beside is refused", r.returncode == 1 and "names the input" in r.stderr, r.stderr)
    os.link(prog, os.path.join(tmp, "hard.pir"))
    r = run("convert", prog, os.path.join(tmp, "hard.pir"))
    check("convert IN (hard link of IN) is refused", r.returncode == 1 and "names the input IN" in r.stderr, r.stderr)
    os.remove(os.path.join(tmp, "hard.pir"))
    r = run("solve", prog, "--report", os.path.join(tmp, "x.json"), "--network", os.path.join(tmp, ".", "x.json"))
    check("two outputs naming one file are refused", r.returncode == 1 and "names the same file as --report" in r.stderr, r.stderr)
    check("nothing was written for refused commands", not os.path.exists(os.path.join(tmp, "x.json")))

    # --- a full disk: non-zero exit, old outputs intact, no temporaries ---
    big = os.path.join(tmp, "big.pir")
    r = run("generate", "transformer", "--layers", "2", "-o", big)
    check("generate writes program and spec", r.returncode == 0 and os.path.exists(big) and
          os.path.exists(os.path.join(tmp, "big.spec.json")), r.stderr)
    old_big, old_spec = read(big), read(os.path.join(tmp, "big.spec.json"))
    r = run("generate", "transformer", "--layers", "6", "-o", big, limit_bytes=len(old_big) // 2)
    check("generate on a full disk fails", r.returncode == 1 and "File too large" in r.stderr, r.stderr)
    check("generate on a full disk keeps the old pair", read(big) == old_big and
          read(os.path.join(tmp, "big.spec.json")) == old_spec)
    out = os.path.join(tmp, "conv.pir")
    with open(out, "w") as f:
        f.write("previous content\n")
    r = run("convert", big, out, "--generation", "G3", limit_bytes=4096)
    check("convert on a full disk fails", r.returncode == 1 and "cannot write file" in r.stderr and
          "File too large" in r.stderr, r.stderr)
    check("convert on a full disk keeps the old file", read(out) == b"previous content\n")
    rep, net, rew = (os.path.join(tmp, n) for n in ("r.json", "n.json", "w.pir"))
    r = run("solve", big, "--report", rep, "--network", net, "--rewritten", rew, limit_bytes=2048)
    check("solve on a full disk fails", r.returncode == 1 and "File too large" in r.stderr, r.stderr)
    check("solve on a full disk leaves no outputs", not any(os.path.exists(p) for p in (rep, net, rew)))
    leftovers = [n for n in os.listdir(tmp) if ".tmp-" in n]
    check("no temporaries are left behind", not leftovers, str(leftovers))

    # --- inputs that are not regular files ---
    r = run("inspect", tmp)
    check("a directory is refused", r.returncode == 1 and "it is a directory, expected a regular file" in r.stderr, r.stderr)
    fifo = os.path.join(tmp, "fifo.pir")
    os.mkfifo(fifo)
    r = run("inspect", fifo, timeout=10)
    check("a FIFO is refused without blocking", r.returncode == 1 and "a FIFO" in r.stderr, r.stderr)

    # --- strict config ---
    cfg = os.path.join(tmp, "c.json")
    with open(cfg, "w") as f:
        f.write('{\n  "max_dist_from_bwd": 4\n}\n')
    r = run("solve", prog, "--config", cfg)
    check("a config typo names the nearest key", r.returncode == 1 and
          "c.json:2:24: max_dist_from_bwd: unknown key 'max_dist_from_bwd'; did you mean 'max_dist_from_bw'?" in r.stderr,
          r.stderr)
    with open(cfg, "w") as f:
        f.write('{"minimum_weight": 1e300}')
    r = run("solve", prog, "--config", cfg)
    check("minimum_weight 1e300 states the range", r.returncode == 1 and "allowed range [0, 1000000000]" in r.stderr and
          "internal error" not in r.stderr, r.stderr)

    # --- exact byte totals (never "-2 B", never a small figure for exabytes) ---
    huge = os.path.join(tmp, "huge.pir")
    with open(huge, "w") as f:
        f.write('{\n    (%0) = "pd_op.data" () {stop_gradient:[true]} : () -> builtin.tensor<4611686018427387904x4xf32>\n'
                '    (%1) = "pd_op.data" () {stop_gradient:[true]} : () -> builtin.tensor<4611686018427387904x4xf32>\n}\n')
    r = run("inspect", huge, "--json")
    check("inspect of exabyte values succeeds", r.returncode == 0, r.stderr)
    if r.returncode == 0:
        d = json.loads(r.stdout)
        want = 2 * 4611686018427387904 * 4 * 4
        check("total_bytes is exact past int64", d["total_bytes"] == want, str(d["total_bytes"]))
    r = run("inspect", huge)
    check("inspect prints no negative size", r.returncode == 0 and "-" not in r.stdout.split("values:")[1].split("\n")[0],
          r.stdout)

    # --- reports: FORMATS.md keys, streamed JSON that parses ---
    r = run("solve", prog, "--report", rep, "--network", net, "--rewritten", rew)
    check("solve writes every output", r.returncode == 0 and all(os.path.exists(p) for p in (rep, net, rew)), r.stderr)
    d = json.load(open(rep))
    for key in ("cut_value", "saved_values", "mid_hold_values", "recompute_ops", "memory_saved_bytes", "network", "timings_ms"):
        check(f"report has {key}", key in d)
    check("cut_value is the exact number", d["cut_value"] == 73819750, str(d.get("cut_value")))
    check("network.json parses with edges", "edges" in json.load(open(net)))
    r = run("solve", prog, "--report", "/dev/stdout")
    check("--report /dev/stdout streams the report", r.returncode == 0 and '"cut_value": 73819750' in r.stdout, r.stderr)

    keys = list(d)
    check("the figures measured after the plan close the report",
          keys[-3:] == ["memory", "peak_bytes_after", "timings_ms"] and keys[:-3] == sorted(keys[:-3]), str(keys))

    # --- a solve that fails after the plan (the report is begun then): old outputs kept ---
    # split_two's first result has no backward user: placing its clone fails as the seed's
    # assertion does, after the plan is final and while the report is being written.
    t = "pd_op.tensor<64x64xf32>"
    split = os.path.join(tmp, "split.pir")
    with open(split, "w") as f:
        f.write("{\n"
                f'    (%0) = "pd_op.data" () {{name:"x",stop_gradient:[false]}} : () -> {t}\n'
                f'    (%1, %2) = "pd_op.split_two" (%0) {{stop_gradient:[false,false]}} : ({t}) -> {t}, {t}\n'
                f'    (%3) = "pd_op.sin" (%1) {{stop_gradient:[false]}} : ({t}) -> {t}\n'
                f'    (%4) = "pd_op.full" () {{stop_gradient:[true]}} : () -> {t}\n'
                f'    (%5) = "pd_op.cos" (%2) {{stop_gradient:[false]}} : ({t}) -> {t}\n'
                f'    (%6) = "pd_op.multiply" (%5, %4) {{stop_gradient:[false]}} : ({t}, {t}) -> {t}\n'
                "}\n")
    with open(os.path.join(tmp, "split.spec.json"), "w") as f:
        f.write('{"fwd_op_end_idx": 2, "backward_op_start_idx": 4, "inputs": ["%0"], "outputs": ["%3"], "grad_outputs": ["%4"]}')
    with open(cfg, "w") as f:
        json.dump({"recomputable_ops": d["config"]["recomputable_ops"] + ["pd_op.split_two"]}, f)
    old_rep, old_rew = read(rep), read(rew)
    r = run("solve", split, "--config", cfg, "--report", rep, "--rewritten", rew)
    check("a rewrite failure after the plan fails the solve", r.returncode == 1 and "assertion failed placing the clone of "
          "pd_op.split_two" in r.stderr, r.stderr)
    check("a rewrite failure keeps the old report and program", read(rep) == old_rep and read(rew) == old_rew)
    leftovers = [n for n in os.listdir(tmp) if ".tmp-" in n]
    check("a rewrite failure leaves no temporaries", not leftovers, str(leftovers))

    # --- the command line (CLI11) ---
    r = run("--help")
    check("--help exits 0 and lists commands", r.returncode == 0 and "solve" in r.stdout and "inspect" in r.stdout, r.stderr)
    r = run("solve", "--help")
    check("solve --help lists its options", r.returncode == 0 and "--rewritten" in r.stdout and "--network" in r.stdout)
    r = run()
    check("no command is a usage error (2)", r.returncode == 2, str(r.returncode))
    r = run("frobnicate")
    check("an unknown command is named (2)", r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr, r.stderr)
    r = run("solve")
    check("a missing PROGRAM is a usage error (2)", r.returncode == 2 and "PROGRAM" in r.stderr, r.stderr)
    r = run("inspect", prog, "--program", "x")
    check("a non-numeric --program is a usage error (2)", r.returncode == 2 and "--program" in r.stderr, r.stderr)
    r = run("inspect", prog, "--bogus")
    check("an unknown option is a usage error (2)", r.returncode == 2 and "--bogus" in r.stderr, r.stderr)
    r = run("inspect", f"--spec={spec}", prog, "--json")
    check("--key=value works", r.returncode == 0 and json.loads(r.stdout)["spec"]["source"] == spec, r.stderr)
    r = run("generate", "mlp", "--composite", "--prim", "-o", os.path.join(tmp, "m.pir"))
    check("--composite and --prim exclude each other", r.returncode == 2 and "excludes" in r.stderr, r.stderr)
    r = run("version")
    check("version", r.returncode == 0 and r.stdout.startswith("recompute-cli "))

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
