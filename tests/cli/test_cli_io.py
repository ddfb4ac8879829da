#!/usr/bin/env python3
"""Issue 24 end to end: recompute-cli on inputs built to break its readers and writers. Deep
JSON in every reader, --costs from a FIFO or /dev/zero, 1e308 ms, figures past 8 EiB, names
that are not UTF-8, PIR JSON the text grammar cannot carry, empty option values, huge
budgets, duplicate keys, a spec without a forward part, and a full disk under a command with
several outputs. Each ends in a clear error or a correct output. Usage: test_cli_io.py CLI SHARED"""
import json, os, resource, shutil, signal, subprocess, sys, tempfile, time

CLI, SHARED = sys.argv[1], sys.argv[2]
CASE = os.path.join(SHARED, "corpus/cases/docstring-before-recompute")
PIR_JSON = os.path.join(SHARED, "corpus/pir-json/save-load-doc-fc-relu-scale.json")
failures = []


def run(*args, limit_bytes=None, timeout=60):
    def limit():
        if limit_bytes is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    try:
        return subprocess.run([CLI, *args], capture_output=True, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -999, b"", b"(timed out)")


def check(name, condition, detail=b""):
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    if not condition:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def valid_json(data):
    try:
        json.loads(data.decode("utf-8", "strict"))
        return True
    except (UnicodeDecodeError, ValueError):
        return False


def pir_json_with_attribute(attribute):
    return ('{"base_code":{"magic":"pir","trainable":true,"version":1},"program":{"regions":[{"#":"region_0",'
            '"blocks":[{"#":"block_0","args":[],"ops":[{"#":"1.data","A":[' + attribute + '],"I":[],"O":[{"%":1,'
            '"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[2],"NCHW",[],0]}}],"OA":[]}]}]}]}}')


with tempfile.TemporaryDirectory() as tmp:
    def p(name):
        return os.path.join(tmp, name)
    prog, spec = p("p.pir"), p("p.spec.json")
    shutil.copy(CASE + ".pir", prog)
    shutil.copy(CASE + ".spec.json", spec)

    # --- 1. deep nesting: every reader answers with file:line:col and the limit ---
    deep = '{"a": ' + "[" * 130000 + "]" * 130000 + "}"
    write(p("deep.json"), deep)
    for name, args in [("--config", ["solve", prog, "--config", p("deep.json")]),
                       ("--spec", ["solve", prog, "--spec", p("deep.json")]),
                       ("--costs", ["pareto", prog, "--costs", p("deep.json")]),
                       ("PIR JSON", ["inspect", p("deep.json")])]:
        r = run(*args)
        check(f"deep JSON in {name} is a positioned error", r.returncode == 1 and
              b"deep.json:1:518:" in r.stderr and b"limit of 512 levels" in r.stderr, r.stderr)

    # --- 2. --costs through the bounded reader ---
    os.mkfifo(p("costs.fifo"))
    r = run("pareto", prog, "--costs", p("costs.fifo"), timeout=20)
    check("--costs FIFO is refused, not waited on", r.returncode == 1 and b"FIFO" in r.stderr, r.stderr)
    r = run("pareto", prog, "--costs", "/dev/zero", timeout=20)
    check("--costs /dev/zero is refused, not read forever", r.returncode == 1 and b"character device" in r.stderr,
          r.stderr)

    # --- 3. non-finite figures never reach an output ---
    write(p("huge-ms.json"), '{"original": {"ops": [{"index": 1, "ms": 1e308}, {"index": 2, "ms": 1e308}]}}')
    r = run("pareto", prog, "--costs", p("huge-ms.json"), "--report", p("pareto.json"))
    check("1e308 ms is refused with its place", r.returncode == 1 and
          b"huge-ms.json:1:42: $.original.ops[0].ms: expected milliseconds from 0 to 3.2e10" in r.stderr, r.stderr)
    check("no report from refused costs", not os.path.exists(p("pareto.json")))
    write(p("ok-ms.json"), '{"original": {"ops": [{"index": 1, "ms": 2.5}, {"index": 2, "ms": 1e9}]}}')
    r = run("pareto", prog, "--costs", p("ok-ms.json"), "--report", p("pareto.json"))
    check("pareto with measured costs writes valid JSON", r.returncode == 0 and valid_json(read(p("pareto.json"))),
          r.stderr)

    # --- 4. figures past 8 EiB: null and said, or the command fails; never 0 ---
    # Two backward values of 4 EiB each alive at once (past int64) beside a small forward chain.
    huge, small = "builtin.tensor<1073741824x1073741824xf32>", "builtin.tensor<4x8xf32>"
    write(p("huge.pir"), "{\n"
          f'    (%0) = "pd_op.data" () {{name:"x",stop_gradient:[false]}} : () -> {small}\n'
          f'    (%1) = "pd_op.relu" (%0) {{stop_gradient:[false]}} : ({small}) -> {small}\n'
          f'    (%2) = "pd_op.exp" (%1) {{stop_gradient:[false]}} : ({small}) -> {small}\n'
          f'    (%3) = "pd_op.full" () {{stop_gradient:[true]}} : () -> {huge}\n'
          f'    (%4) = "pd_op.full" () {{stop_gradient:[true]}} : () -> {huge}\n'
          f'    (%5) = "pd_op.add" (%3, %4) {{stop_gradient:[false]}} : ({huge}, {huge}) -> {small}\n'
          f'    (%6) = "pd_op.multiply" (%5, %1) {{stop_gradient:[false]}} : ({small}, {small}) -> {small}\n'
          "}\n")
    write(p("huge.spec.json"), '{"fwd_op_end_idx": 2, "backward_op_start_idx": 3, "inputs": ["%0"], '
          '"outputs": ["%2"]}')
    r = run("solve", p("huge.pir"), "--report", p("huge-report.json"))
    report = json.loads(read(p("huge-report.json"))) if r.returncode == 0 else {}
    check("solve past 8 EiB: peaks are null with a top-level note", r.returncode == 0 and
          report.get("peak_bytes_before", 0) is None and report.get("peak_bytes_after", 0) is None and
          len(report.get("unknown_figures", [])) >= 1, r.stderr)
    r = run("pareto", p("huge.pir"), "--report", p("huge-pareto.json"))
    check("pareto past 8 EiB fails, no plans at peak 0", r.returncode == 1 and b"do not fit in 64 bits" in r.stderr and
          not os.path.exists(p("huge-pareto.json")), r.stderr)

    # --- 5. names that are not UTF-8 ---
    write(p("ff.pir"), read(prog).replace(b'"pd_op.cos" (%1)', b'"pd_op.c\xffos" (%1)'))
    shutil.copy(spec, p("ff.spec.json"))
    r = run("inspect", p("ff.pir"), "--json")
    check("inspect --json: a 0xFF name is a positioned error", r.returncode == 1 and
          b"ff.pir:4:20: expected UTF-8 text" in r.stderr and r.stdout == b"", r.stderr)
    r = run("solve", p("ff.pir"), "--report", p("ff-report.json"))
    check("solve --report: a 0xFF name is a positioned error", r.returncode == 1 and
          b"found byte 0xFF" in r.stderr and not os.path.exists(p("ff-report.json")), r.stderr)
    r = run("inspect", prog, "--json")
    check("inspect --json is valid UTF-8 JSON", r.returncode == 0 and valid_json(r.stdout), r.stderr)

    # --- 6. PIR JSON -> text: refused by name, or it reads back ---
    for label, attribute, expected in [
            ("empty name", '{"AT":{"#":"0.a_str","D":"A"},"N":""}', b"attribute ''"),
            ("name {x", '{"AT":{"#":"0.a_str","D":"A"},"N":"{x"}', b"attribute '{x'"),
            ("NUL in a name", '{"AT":{"#":"0.a_str","D":"A"},"N":"a\\u0000"}', b"attribute 'a\\x00'"),
            ("dtype floa/t32", '{"AT":{"#":"1.a_dtype","D":"floa/t32"},"N":"dtype"}', b"data type 'floa/t32'")]:
        write(p("bad-attr.json"), pir_json_with_attribute(attribute))
        r = run("convert", p("bad-attr.json"), p("bad-attr.pir"))
        check(f"convert refuses an attribute with {label}", r.returncode == 1 and expected in r.stderr and
              not os.path.exists(p("bad-attr.pir")), r.stderr)
    r = run("convert", PIR_JSON, p("converted.pir"))
    r2 = run("inspect", p("converted.pir"), "--json")
    check("convert's output reads back", r.returncode == 0 and r2.returncode == 0, r.stderr + r2.stderr)

    # --- 7. smaller items ---
    r = run("solve", prog, "--report", "")
    check('--report "" is refused', r.returncode == 2 and b"empty string" in r.stderr, r.stderr)
    r = run("solve", prog, "--budget", "")
    check('--budget "" is refused', r.returncode == 2 and b"empty string" in r.stderr, r.stderr)
    r = run("solve", prog, "--budget", "9223372036854775807", "--report", p("budget.json"))
    check("--budget 9223372036854775807 plans with no limit", r.returncode == 0 and
          valid_json(read(p("budget.json"))), r.stderr)
    write(p("dup.json"), '{\n  "distance_cap": 3,\n  "distance_cap": 4\n}\n')
    r = run("solve", prog, "--config", p("dup.json"))
    check("duplicate config keys name both lines", r.returncode == 1 and
          b"dup.json:3:3:" in r.stderr and b"(first at line 2, column 3)" in r.stderr, r.stderr)
    write(p("int.json"), '{"max_dist_from_bw": 3.0}')
    r = run("solve", prog, "--config", p("int.json"))
    check("3.0 for an integer knob is accepted", r.returncode == 0, r.stderr)
    write(p("neg.spec.json"), '{"fwd_op_end_idx": -1, "backward_op_start_idx": 4, "inputs": ["%0"]}')
    r = run("solve", prog, "--spec", p("neg.spec.json"))
    check("a spec with fwd_op_end_idx -1 names the field", r.returncode == 1 and
          b"fwd_op_end_idx: -1 gives no forward part" in r.stderr and b"give a spec" not in r.stderr, r.stderr)
    write(p("pin.json"), '{"pinned_saved": ["%0"]}')
    r = run("solve", prog, "--config", p("pin.json"))
    check("a pin on an input is a warning", r.returncode == 0 and b"is an input of the program" in r.stdout, r.stderr)

    # An output that cannot be written is refused before any work, and no other output is
    # replaced: profile wrote --report, then failed on --trace; pareto --exact planned first.
    write(p("kept.json"), "old report\n")
    os.makedirs(p("adir.json"), exist_ok=True)
    r = run("profile", prog, "--repeats", "1", "--report", p("kept.json"), "--trace", p("adir.json"))
    check("profile refuses a directory as --trace", r.returncode == 1 and b"it is a directory" in r.stderr, r.stderr)
    check("profile's --report is left as it was", read(p("kept.json")) == b"old report\n", read(p("kept.json"))[:80])
    start = time.monotonic()
    r = run("pareto", prog, "--exact", "--exact-seconds", "30", "--report", p("nodir/x.json"))
    check("pareto refuses a missing folder before planning", r.returncode == 1 and
          b"cannot create a temporary file in" in r.stderr and time.monotonic() - start < 10, r.stderr)

    # A PIR JSON file with a UTF-8 byte order mark was read as PIR text.
    write(p("bom.json"), b"\xef\xbb\xbf" + open(PIR_JSON, "rb").read())
    r = run("inspect", p("bom.json"))
    check("a PIR JSON file with a BOM reads as JSON", r.returncode == 0 and b"generation: G2" in r.stdout, r.stderr)

    # An op printed without its signature loads (the grammar allows it) but its result has no
    # type and counts 0 bytes: every command that plans or runs the program says so.
    case = open(CASE + ".pir").read()
    lines = case.split("\n")
    sin = next(i for i, l in enumerate(lines) if '"pd_op.sin"' in l)
    lines[sin] = lines[sin][:lines[sin].rindex(" : (")]
    write(p("nosig.pir"), "\n".join(lines))
    shutil.copy(CASE + ".spec.json", p("nosig.spec.json"))
    for args in (["solve", p("nosig.pir")], ["pareto", p("nosig.pir"), "--points", "2"], ["verify", p("nosig.pir")]):
        r = run(*args)
        check(f"{args[0]} warns of an op without a signature", (b"nosig.pir: warning: 1 op(s) print no type signature for "
              b"their results (first: line %d, pd_op.sin)" % (sin + 1)) in r.stderr, r.stderr)

    # The executor's checks name the op; verify and profile add the file.
    lines = case.split("\n")
    lines[sin] = lines[sin][:lines[sin].rindex("-> ")] + "-> pd_op.tensor<2x2xf32>"
    write(p("declared.pir"), "\n".join(lines))
    shutil.copy(CASE + ".spec.json", p("declared.spec.json"))
    for args in (["verify", p("declared.pir")], ["profile", p("declared.pir"), "--repeats", "1"]):
        r = run(*args)
        check(f"{args[0]}: a result declared with the wrong shape is an error naming the file", r.returncode == 1 and
              r.stderr.startswith(p("declared.pir").encode() + b": op ") and b"is declared [2,2]" in r.stderr, r.stderr)

    # An if whose then branch yields a value from outside it: the memory model (one path)
    # aliases it, the planner's simulation counts the result's own bytes. Budget planning
    # said the floor was 2^63 bytes; now it says why it cannot plan, and the seed's mode runs.
    source = open(os.path.join(SHARED, "corpus", "pir-real", "save-load-doc-if-op-early.pir")).read()
    yielded = source.replace('() = "cf.yield" (%5) {}', '() = "cf.yield" (%1) {}')
    check("the if program yields %1 (test premise)", yielded != source)
    write(p("if_outer.pir"), yielded)
    write(p("if_outer.spec.json"), '{"fwd_op_end_idx":4,"backward_op_start_idx":5,"inputs":["%0","%1"],'
                                   '"outputs":["%4"],"grad_outputs":[]}')
    for args in (["solve", p("if_outer.pir"), "--budget", "1GB"], ["pareto", p("if_outer.pir")],
                 ["verify", p("if_outer.pir"), "--budget", "1.0"]):
        r = run(*args)
        check(f"{args[0]} on an if yielding an outer value says why it cannot plan", r.returncode == 1 and
              b"if_outer.pir: budget planning cannot model this program's memory" in r.stderr and
              b"9223372036854775807" not in r.stderr, r.stderr)
    r = run("solve", p("if_outer.pir"))
    check("the seed's mode plans it", r.returncode == 0, r.stderr)

    # An input declared [-1,30]: verify and profile said "give it explicitly" with no way to;
    # now they name --input-dims up front, and with it the program runs.
    fc = os.path.join(SHARED, "corpus", "pir-real", "save-load-doc-fc-relu-scale.pir")
    for command in ("verify", "profile"):
        r = run(command, fc)
        check(f"{command}: a dynamic input names the option that binds it", r.returncode == 1 and
              b"input A has a dynamic shape [-1,30]: give its dims with --input-dims A=1x30" in r.stderr, r.stderr)
    r = run("verify", fc, "--input-dims", "A=4x30")
    check("verify --input-dims A=4x30 runs it", r.returncode == 0 and b"equivalent:" in r.stdout, r.stderr)
    r = run("profile", fc, "--input-dims", "A=4x30", "--repeats", "1")
    check("profile --input-dims A=4x30 runs it", r.returncode == 0, r.stderr)
    r = run("verify", fc, "--input-dims", "A=4x31")
    check("dims that do not fit the declared ones are refused", r.returncode == 1 and
          b"input A is declared [-1,30]: dims [4,31] do not fit it" in r.stderr, r.stderr)
    r = run("verify", fc, "--input-dims", "A=4x")
    check("a malformed --input-dims is a command-line error", r.returncode == 2 and b"expects NAME=DIMS" in r.stderr, r.stderr)

    # A full disk under solve's outputs: the smaller one fits, the larger does not; neither may
    # replace its old file.
    rep, rew = p("full-r.json"), p("full-w.pir")
    write(rep, "old report\n")
    write(rew, "old program\n")
    r = run("solve", prog, "--report", p("size-r.json"), "--rewritten", p("size-w.pir"))
    sizes = sorted([os.path.getsize(p("size-r.json")), os.path.getsize(p("size-w.pir"))])
    limit = (sizes[0] + sizes[1]) // 2
    check("the outputs differ in size (test premise)", r.returncode == 0 and sizes[0] < limit < sizes[1], str(sizes))
    r = run("solve", prog, "--report", rep, "--rewritten", rew, limit_bytes=limit)
    check("solve on a full disk fails", r.returncode == 1 and b"File too large" in r.stderr, r.stderr)
    check("solve on a full disk replaces no output (all or none)", read(rep) == b"old report\n" and
          read(rew) == b"old program\n", read(rep)[:80] + b" / " + read(rew)[:80])
    r = run("solve", prog, "--budget", "0.5", "--report", p("size-r2.json"), "--rewritten", p("size-w2.pir"))
    sizes = sorted([os.path.getsize(p("size-r2.json")), os.path.getsize(p("size-w2.pir"))])
    r = run("solve", prog, "--budget", "0.5", "--report", rep, "--rewritten", rew, limit_bytes=(sizes[0] + sizes[1]) // 2)
    check("solve --budget on a full disk replaces no output", r.returncode == 1 and
          read(rep) == b"old report\n" and read(rew) == b"old program\n", r.stderr)
    leftovers = [n for n in os.listdir(tmp) if ".tmp-" in n]
    check("no temporaries are left behind", not leftovers, str(leftovers))

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("all passed")
