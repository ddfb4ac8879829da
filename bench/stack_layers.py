#!/usr/bin/env python3
"""Stack a one-layer joint forward+backward PIR program (a torch-joint trace such as
../shared/corpus/torch-joint/transformer_layer.prim.pir) into an N-layer one: layer l's input
is layer l-1's output, layer l's output gradient is layer l+1's input gradient, every layer has
its own parameters (named layers.L.NAME), and every parameter gradient is fetched.

usage: stack_layers.py LAYER.pir LAYERS OUT.pir   (reads LAYER.spec.json, writes OUT.spec.json)

The layer's convention (that of the torch-joint corpus): the spec's inputs are pd_op.data ops
(parameters, then the activation input named "x"), `outputs` is the layer output,
`grad_outputs` the output gradient (a pd_op.data between forward and backward), and the
fetches hand out the output, the parameter gradients and last the input gradient.
"""
import json
import re
import sys

VALUE = re.compile(r"%(\d+)")


def main():
    src, layers, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if layers < 1:
        sys.exit("LAYERS must be at least 1")
    spec = json.load(open(src.rsplit(".pir", 1)[0] + ".spec.json"))
    lines = open(src).read().splitlines()
    ops = [l for l in lines if l.strip().startswith("(")]
    defined = [VALUE.findall(l.split("=", 1)[0]) for l in ops]
    fwd_end, bwd_start = spec["fwd_op_end_idx"], spec["backward_op_start_idx"]
    inputs = {int(v[1:]) for v in spec["inputs"]}
    output = int(spec["outputs"][0][1:])
    tangent = int(spec["grad_outputs"][0][1:])
    top = max(int(v) for d in defined for v in d) + 1
    x = next(int(d[0]) for l, d in zip(ops, defined) if d and int(d[0]) in inputs and 'name:"x"' in l)
    fetches = [l for l in ops[bwd_start:] if '"pd_op.fetch"' in l]
    grad_of_x = int(VALUE.findall(fetches[-1].split("=", 1)[1])[0])

    def shifted(line, layer, subst):
        def repl(m):
            v = int(m.group(1))
            if v in subst:
                return "%" + str(subst[v])
            return "%" + str(v + layer * top)
        head, tail = line.split("=", 1)
        return VALUE.sub(repl, head) + "=" + VALUE.sub(repl, tail)

    body = []
    # Parameters of every layer, then the input.
    for layer in range(layers):
        for l, d in zip(ops, defined):
            if d and int(d[0]) in inputs and int(d[0]) != x:
                body.append(shifted(l.replace('name:"', 'name:"layers.%d.' % layer), layer, {}))
    body.append(next(l for l, d in zip(ops, defined) if d and int(d[0]) == x))
    forward = [l for l, d in zip(ops[: fwd_end + 1], defined) if not (d and int(d[0]) in inputs)]
    for layer in range(layers):
        subst = {x: (output + (layer - 1) * top) if layer else x}
        body += [shifted(l, layer, subst) for l in forward]
    fwd_end_new = len(body) - 1
    between = ops[fwd_end + 1 : bwd_start]
    body += [shifted(l, layers - 1, {}) for l in between]  # the output gradient (tangents)
    bwd_start_new = len(body)
    backward = [l for l in ops[bwd_start:] if '"pd_op.fetch"' not in l]
    for layer in reversed(range(layers)):
        subst = {x: (output + (layer - 1) * top) if layer else x}
        if layer < layers - 1:
            subst[tangent] = grad_of_x + (layer + 1) * top
        body += [shifted(l, layer, subst) for l in backward]
    # Fetches: the output, every layer's parameter gradients, the input gradient.
    fetch_id = layers * top
    col = 0

    def fetch(line, layer, subst):
        nonlocal fetch_id, col
        head, tail = line.split("=", 1)
        operand = VALUE.findall(tail)[0]
        tail = tail.replace("%" + operand, "%" + str(subst.get(int(operand), int(operand) + layer * top)), 1)
        tail = re.sub(r"col:\(Int32\)\d+", "col:(Int32)%d" % col, tail)
        tail = re.sub(r'name:"fetch\d+"', 'name:"fetch%d"' % col, tail)
        col += 1
        fetch_id += 1
        return "    (%%%d) =%s" % (fetch_id, tail)

    body.append(fetch(fetches[0], layers - 1, {}))
    for layer in range(layers):
        for f in fetches[1:-1]:
            body.append(fetch(f, layer, {}))
    body.append(fetch(fetches[-1], 0, {}))
    with open(out, "w") as f:
        f.write("{\n" + "\n".join(body) + "\n}\n")
    new_inputs = []
    for layer in range(layers):
        new_inputs += ["%" + str(v + layer * top) for v in sorted(inputs) if v != x]
    new_inputs.append("%" + str(x))
    new_spec = {
        "fwd_op_end_idx": fwd_end_new,
        "backward_op_start_idx": bwd_start_new,
        "inputs": new_inputs,
        "outputs": ["%" + str(output + (layers - 1) * top)],
        "grad_outputs": ["%" + str(tangent + (layers - 1) * top)],
    }
    with open(out.rsplit(".pir", 1)[0] + ".spec.json", "w") as f:
        json.dump(new_spec, f, indent=1)


if __name__ == "__main__":
    main()
