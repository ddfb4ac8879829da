#!/usr/bin/env python3
# Writes bench_solve's chain program (x -> sin -> cos -> sin -> cos -> exp ... and its backward)
# as PIR text plus its spec, for whole-process timings: make_chain.py 20000 out.pir (56k ops).
import json, sys

def main():
    forward, path = int(sys.argv[1]), sys.argv[2]
    t = "builtin.tensor<4096x4096xf32>"
    lines, ids = [], [0]
    def add(name, operands):
        v = ids[0]; ids[0] += 1
        ins = ", ".join(f"%{o}" for o in operands)
        types = ", ".join(t for _ in operands)
        lines.append(f'    (%{v}) = "{name}" ({ins}) {{stop_gradient:[false]}} : ({types}) -> {t}')
        return v
    kinds = ["pd_op.sin", "pd_op.cos", "pd_op.sin", "pd_op.cos", "pd_op.exp"]
    chain = [add("pd_op.data", [])]
    for i in range(forward - 1):
        chain.append(add(kinds[i % 5], [chain[-1]]))
    fwd_end = len(lines) - 1
    g = add("pd_op.full", [])
    bwd_start = len(lines)
    for i in range(forward - 2, -1, -1):
        kind = kinds[i % 5]
        if kind == "pd_op.exp":
            g = add("pd_op.multiply", [chain[i + 1], g])
        else:
            d = add("pd_op.cos" if kind == "pd_op.sin" else "pd_op.sin", [chain[i]])
            g = add("pd_op.multiply", [d, g])
    with open(path, "w") as f:
        f.write("{\n" + "\n".join(lines) + "\n}\n")
    spec = {"fwd_op_end_idx": fwd_end, "backward_op_start_idx": bwd_start,
            "inputs": [f"%{chain[0]}"], "outputs": [f"%{chain[-1]}"], "grad_outputs": []}
    with open(path.rsplit(".", 1)[0] + ".spec.json", "w") as f:
        json.dump(spec, f)

main()
