#!/usr/bin/env python3
"""Cross-checks `recompute-cli solve` against seed_reference.py (the seed ported onto a
stand-in IR, networkx min cut) on the corpus cases and on seeded random joint programs.
Usage: check_against_seed.py RECOMPUTE_CLI SHARED_DIR [COUNT] [MAX_OPS]. Exit 77 (skip) without networkx."""
import json, os, random, subprocess, sys, tempfile

try:
    import networkx  # noqa: F401
except ImportError:
    print("networkx not available: skipped")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
cli, shared = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 60
max_ops = int(sys.argv[4]) if len(sys.argv) > 4 else 30  # forward/backward ops per random program
nnb = os.path.join(shared, "data", "no_need_buffer.tsv")
TYPES = ["8x8xf32", "8x1xf32", "2x8xf32", "8xf32", "0xf32", "16x8xf32", "4x4xf16"]


def random_program(seed, path):
    rng = random.Random(seed)
    lines, vid, types = ["{"], [0], {}

    def op(name, operands, rtypes):
        names = []
        for t in rtypes:
            names.append("%%%d" % vid[0]); types[names[-1]] = t; vid[0] += 1
        ins = ", ".join(types[o] for o in operands)
        lines.append('    (%s) = "%s" (%s) {} : (%s) -> %s' % (", ".join(names), name, ", ".join(operands), ins, ", ".join(rtypes)))
        return names

    T = lambda: "builtin.tensor<%s>" % rng.choice(TYPES)
    recent = lambda pool: rng.choice(pool) if rng.random() < 0.3 else pool[-1 - rng.randrange(min(6, len(pool)))]
    fw, inputs = [], []
    for _ in range(1 + rng.randrange(3)):
        inputs += op("pd_op.data", [], [T()]); fw.append(inputs[-1])
    unary = ["pd_op.exp", "pd_op.sin", "pd_op.relu", "pd_op.cast", "pd_op.tanh", "pd_op.dropout", "pd_op.sum", "pd_op.slice", "pd_op.reshape", "pd_op.uniform_like"]
    binary = ["pd_op.add", "pd_op.multiply", "pd_op.matmul", "pd_op.divide", "pd_op.subtract"]
    for _ in range(4 + rng.randrange(max_ops)):
        k = rng.randrange(10)
        if k < 4: fw += op(rng.choice(unary), [recent(fw)], [T()])
        elif k < 8: fw += op(rng.choice(binary), [recent(fw), recent(fw)], [T()])
        elif k == 8: fw += op(rng.choice(["pd_op.full", "pd_op.full_int_array"]), [], [T()])
        elif rng.random() < 0.5:
            a, b = recent(fw), recent(fw)
            c = op("builtin.combine", [a, b], ["vec[%s,%s]" % (types[a], types[b])])
            fw += op("pd_op.concat", c, [T()])
        else:
            t = T()
            s = op("pd_op.split", [recent(fw)], ["vec[%s,%s]" % (t, t)])
            fw += op("builtin.split", s, [t, t])
    fwd_end = len(lines) - 2
    g = op("pd_op.full", [], [types[fw[-1]]])
    bwd = len(lines) - 1
    bw = list(g)
    for _ in range(3 + rng.randrange(max_ops)):
        k = rng.randrange(20)
        f = rng.choice(fw)
        if k == 0:
            lines.append('    () = "builtin.shadow_output" (%s) {} : (%s) -> ' % (f, types[f])); continue
        name = rng.choice(["pd_op.multiply", "pd_op.add", "pd_op.exp", "pd_op.matmul", "pd_op.mean_grad", "pd_op.add_grad", "pd_op.sum", "pd_op.relu_grad"])
        if name == "pd_op.add_grad": bw += op(name, [f, recent(fw), recent(bw)], [T()])
        elif k < 12: bw += op(name, [f, recent(bw)], [T()])
        else: bw += op(name, [recent(bw), recent(bw)], [T()])
    lines.append("}")
    open(path, "w").write("\n".join(lines) + "\n")
    spec = {"fwd_op_end_idx": fwd_end, "backward_op_start_idx": bwd, "inputs": inputs, "outputs": [fw[-1]], "grad_outputs": []}
    json.dump(spec, open(path[:-4] + ".spec.json", "w"))


def ours(program, spec, tmp):
    report = os.path.join(tmp, "report.json")
    if os.path.exists(report): os.remove(report)
    p = subprocess.run([cli, "solve", program, "--spec", spec, "--report", report], capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": p.stderr.strip()}
    d = json.load(open(report))
    if d.get("unchanged"): return {"unchanged": True}
    return {k: d[k] for k in ("cut_value", "saved_values", "mid_hold_values", "recompute_ops", "memory_saved_bytes")}


def theirs(program, spec):
    p = subprocess.run([sys.executable, os.path.join(HERE, "seed_reference.py"), program, spec, nnb], capture_output=True, text=True)
    return json.loads(p.stdout)


def same(a, b):
    if ("error" in a) != ("error" in b): return False
    if "error" in a: return True
    if a.get("unchanged") or b.get("unchanged"): return a.get("unchanged") == b.get("unchanged")
    if abs(float(a["cut_value"]) - float(b["cut_value"])) > 1e-6 * max(1.0, abs(float(b["cut_value"]))): return False
    return all(a[k] == b[k] for k in ("saved_values", "mid_hold_values", "recompute_ops", "memory_saved_bytes"))


cases = [(os.path.join(shared, "corpus/cases/docstring-before-recompute.pir"), os.path.join(shared, "corpus/cases/docstring-before-recompute.spec.json"))]
for n in ("mlp.aten", "mlp.prim", "transformer_layer.aten", "transformer_layer.prim"):
    cases.append((os.path.join(shared, "corpus/torch-joint", n + ".pir"), os.path.join(shared, "corpus/torch-joint", n + ".spec.json")))
failures, errors = 0, 0
with tempfile.TemporaryDirectory() as tmp:
    for seed in range(1, count + 1):
        path = os.path.join(tmp, "random%d.pir" % seed)
        random_program(seed, path)
        cases.append((path, path[:-4] + ".spec.json"))
    for program, spec in cases:
        a, b = ours(program, spec, tmp), theirs(program, spec)
        errors += "error" in b
        if not same(a, b):
            failures += 1
            print("MISMATCH", program, "\n  ours:  ", json.dumps(a)[:600], "\n  seed:  ", json.dumps(b)[:600])
            if "random" in program: print(open(program).read()[:4000]); break
print("%d programs, %d mismatches, %d where the seed fails" % (len(cases), failures, errors))
sys.exit(1 if failures else 0)
