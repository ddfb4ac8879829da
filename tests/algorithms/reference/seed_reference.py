#!/usr/bin/env python3
"""A port of the seed (../../shared/seed/recompute.py.txt, PaddlePaddle's auto_recompute)
onto a stand-in IR, with networkx's minimum_cut, used to cross-check recompute-cli solve.

The stand-in IR reads the simple single-block PIR text the checker generates (and the
corpus cases without regions). The seed's code is kept as close to the original as the
stand-in allows; the network loop follows docs/ALGORITHM.md §6 (forward outputs skipped).
Usage: seed_reference.py PROGRAM.pir SPEC.json [NO_NEED_BUFFER.tsv [CONFIG.json]] -> prints a JSON
result on stdout; where the seed raises, {"error": "<ExceptionType>: <message>"}.
"""
import functools, json, math, re, sys
import networkx as nx

sys.setrecursionlimit(100000)
NBYTES = {"b": 1, "bool": 1, "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "u8": 1, "i16": 2, "i32": 4, "i64": 8,
          "c64": 8, "c128": 16, "f8e4m3fn": 1, "f8e5m2": 1, "index": 8}

DEFAULT_RECOMPUTABLE_OPS = ["pd_op.full_int_array", "pd_op.full", "pd_op.divide", "pd_op.subtract", "pd_op.add",
    "pd_op.multiply", "pd_op.elementwise_pow", "pd_op.rsqrt", "pd_op.reshape", "pd_op.full_like", "pd_op.assign",
    "pd_op.expand", "pd_op.scale", "pd_op.exp", "pd_op.sin", "pd_op.cos", "pd_op.add_n", "pd_op.cast", "pd_op.concat",
    "pd_op.full_with_tensor", "pd_op.gather_nd", "pd_op.logical_and", "pd_op.logical_not", "pd_op.where", "pd_op.pow",
    "pd_op.shape", "pd_op.shape64", "pd_op.slice", "pd_op.squeeze", "pd_op.unsqueeze", "pd_op.transpose", "pd_op.log",
    "pd_op.log1p", "pd_op.logit", "pd_op.expand_as", "pd_op.split", "pd_op.arange", "pd_op.put_along_axis",
    "pd_op.tanh", "pd_op.atan", "pd_op.atanh", "pd_op.sinh", "pd_op.asin", "pd_op.asinh", "pd_op.cosh", "pd_op.acos",
    "pd_op.acosh", "pd_op.abs", "pd_op.sign", "pd_op.expm1", "pd_op.erf", "pd_op.erfinv", "pd_op.ceil", "pd_op.floor",
    "pd_op.frac", "pd_op.round", "pd_op.trunc", "pd_op.angle", "pd_op.as_complex", "pd_op.as_real", "pd_op.complex",
    "pd_op.real", "pd_op.imag", "pd_op.conj", "pd_op.greater_equal", "pd_op.greater_than", "pd_op.not_equal",
    "pd_op.equal", "pd_op.less_equal", "pd_op.less_than", "pd_op.bitwise_and", "pd_op.bitwise_or", "pd_op.bitwise_xor",
    "pd_op.bitwise_not", "pd_op.isinf", "pd_op.isnan", "pd_op.sigmoid"]
TENDING_TO_RECOMPUTE_OPS = ["pd_op.full_int_array", "pd_op.full"]
VIEW_OPS = []
RANDOM_OPS = ["pd_op.randint", "pd_op.uniform", "pd_op.dropout"]
COMPUTE_INTENSIVE_OPS = ["pd_op.matmul", "pd_op.conv2d", "pd_op.layer_norm", "pd_op.batchnorm", "pd_op.softmax",
                         "pd_op.all_reduce_", "pd_op.c_broadcast_", "pd_op.reduce_"]
IGNORE_OPS = ["cf.stack_create"]
AGGRESSIVE_RECOMPUTATION = False
MAX_DIST_FROM_BW = 3
MINIMUM_WEIGHT = 0.1


# ---------------------------------------------------------------- stand-in IR
class Type:
    def __init__(self, text):
        text = text.strip()
        self.null = text == "<<NULL TYPE>>"
        self.vec = None
        if text.startswith("vec["):
            self.vec = [Type(t) for t in split_top(text[4:-1])]
            return
        m = re.match(r"^[\w.]*tensor<(.*)>$", text)
        self.shape, self.dtype = [], None
        if m:
            parts = m.group(1).split("x")
            self.dtype = parts[-1]
            self.shape = [int(d) for d in parts[:-1]]


def split_top(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<[(":
            depth += 1
        elif ch in ">])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


class Value:
    def __init__(self, name, type_):
        self.name, self.t, self.op, self.uses = name, type_, None, []

    def get_defining_op(self):
        return self.op

    def all_used_ops_in_same_block(self):
        return list(self.uses)

    def initialized(self):
        return not self.t.null

    def type(self):
        if self.t.null:
            raise RuntimeError("null type")  # Paddle cannot read a null type either
        return self.t

    def __str__(self):
        return self.name


class NullValue:
    """A left-out optional operand (<<NULL VALUE>>): no defining op, no uses, no type."""
    name = "<<NULL VALUE>>"
    t = Type("<<NULL TYPE>>")

    def get_defining_op(self):
        return None

    def all_used_ops_in_same_block(self):
        return []

    def initialized(self):
        return False

    def type(self):
        raise RuntimeError("null value")

    def __str__(self):
        return self.name


NULL = NullValue()


class Op:
    def __init__(self, name, operands, results, index):
        self.n, self.operands, self.res, self.index = name, operands, results, index

    def name(self):
        return self.n

    def results(self):
        return self.res

    def operands_source(self):
        return self.operands

    def __repr__(self):
        return f"op{self.index}:{self.n}"


NNB = {}


def load_nnb(path):
    header = False
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        cols = line.rstrip("\n").split("\t")
        if not header:
            header = True
            continue
        NNB[cols[0]] = [int(x) for x in cols[3].split(",") if x]


def is_no_need_buffer(op, value):
    slots = NNB.get(op.n)
    if slots is None and op.n.endswith("_"):
        slots = NNB.get(op.n[:-1])
    return any(i < len(op.operands) and op.operands[i] is value for i in (slots or []))


def parse(path):
    values, ops = {}, []
    for line in open(path):
        m = re.match(r'^\s*\((.*?)\) = "([^"]+)" \((.*?)\) \{.*?\} : \((.*?)\) -> ?(.*)$', line)
        if not m:
            continue
        res_names = [r.strip() for r in m.group(1).split(",") if r.strip()]
        operand_names = [o.strip() for o in m.group(3).split(",") if o.strip()]
        res_types = [Type(t) for t in split_top(m.group(5))]
        operands = [NULL if o == "<<NULL VALUE>>" else values[o] for o in operand_names]
        results = [Value(n, t) for n, t in zip(res_names, res_types)]
        op = Op(m.group(2), operands, results, len(ops))
        for r in results:
            r.op = op
            values[r.name] = r
        for o in operands:
            if o is not NULL:
                o.uses.append(op)
        ops.append(op)
    return ops, values


# ---------------------------------------------------------------- the seed, ported
def cal_value_node_size_impl(t):
    shape = [i for i in t.shape if i != -1]
    return functools.reduce(lambda x, y: x * y, shape, 1) * NBYTES[t.dtype]


def is_vector_value_node(value_node):
    try:
        return value_node.type().vec is not None
    except:  # noqa: E722 (the seed's own bare except)
        raise ValueError(f"value node illegal: {value_node} ")


def cal_value_node_size(v):
    if is_vector_value_node(v):
        return sum(cal_value_node_size_impl(c) for c in v.t.vec)
    return cal_value_node_size_impl(v.t)


def find_value_node_users(value_node, bw_no_need_buffer_values=(), without_no_need_buffer=False, forward_ops=()):
    users = set()
    ops = value_node.all_used_ops_in_same_block()
    if without_no_need_buffer:
        if value_node in bw_no_need_buffer_values:
            ops = [op for op in ops if op in forward_ops]
    for op in ops:
        if op.name() == "builtin.combine":
            combine_result = op.results()[0]
            for combine_res_used_op in combine_result.all_used_ops_in_same_block():
                for result in combine_res_used_op.results():
                    u = result.all_used_ops_in_same_block()
                    if len(u) == 1 and u[0].name() in ["builtin.split", "builtin.slice"]:
                        users |= set(u[0].results())
                    else:
                        users.add(result)
        else:
            for result in op.results():
                u = result.all_used_ops_in_same_block()
                if len(u) == 1 and u[0].name() in ["builtin.split", "builtin.slice"]:
                    users |= set(u[0].results())
                else:
                    users.add(result)
    return users


def get_real_input_nodes(v):
    real = set()
    define_op = v.get_defining_op()
    if define_op.name() in ["builtin.split", "builtin.slice"]:
        inputs = define_op.operands_source()[0].get_defining_op().operands_source()
    else:
        inputs = define_op.operands_source()
    for i in inputs:
        if i.get_defining_op() and i.get_defining_op().name() == "builtin.combine":
            real |= set(i.get_defining_op().operands_source())
        else:
            real.add(i)
    return real


def get_real_define_op_name(v):
    d = v.get_defining_op()
    if d.name() in ["builtin.split", "builtin.slice"]:
        return d.operands_source()[0].get_defining_op().name()
    return d.name()


def cal_value_nodes_dist_to_backward(all_ops, required_fw_value_nodes):
    dist = {}
    for op in reversed(all_ops):
        if op.name() == "builtin.combine":
            continue
        for r in op.results():
            used = r.all_used_ops_in_same_block()
            if len(used) == 1 and used[0].name() in ["builtin.split", "builtin.slice"]:
                continue
            real_users = find_value_node_users(r)
            if r not in required_fw_value_nodes:
                dist[r] = 0
            else:
                dist[r] = int(1e9)
                for u in real_users:
                    dist[r] = min(dist[r], dist[u] + 1)
    return dist


class JudgeFusionLoop:
    def __init__(self, ops, unrecomputable_ops):
        self.ops = ops
        self.unrec = unrecomputable_ops
        self.down = {op: set() for op in ops}
        self.up = {op: set() for op in ops}

        def producers(op):
            return {o.get_defining_op() for o in op.operands_source() if o.get_defining_op() is not None}

        def consumers(op):
            return {u for r in op.results() for u in r.all_used_ops_in_same_block()}

        for op in ops:
            s = set()
            for p in producers(op):
                s |= self.up[p]
            if op.name() in self.unrec:
                s.add(op)
            self.up[op] |= s
        for op in reversed(ops):
            s = set()
            for c in consumers(op):
                s |= self.down[c]
            if op.name() in self.unrec:
                s.add(op)
            self.down[op] |= s

    def has(self, op1, op2):
        return bool(self.down[op1] & self.up[op2]) or bool(self.down[op2] & self.up[op1])


KNOBS = {"distance_base": 1.1, "distance_cap": 100, "non_materialized_factor": 2, "size_ratio_ban": 4}


def load_config(path):
    """The config's keys are the seed's module constants (and the constants inside its code)."""
    global DEFAULT_RECOMPUTABLE_OPS, TENDING_TO_RECOMPUTE_OPS, RANDOM_OPS, COMPUTE_INTENSIVE_OPS, VIEW_OPS, \
        IGNORE_OPS, AGGRESSIVE_RECOMPUTATION, MAX_DIST_FROM_BW, MINIMUM_WEIGHT
    c = json.load(open(path))
    DEFAULT_RECOMPUTABLE_OPS = c.get("recomputable_ops", DEFAULT_RECOMPUTABLE_OPS)
    TENDING_TO_RECOMPUTE_OPS = c.get("tending_to_recompute_ops", TENDING_TO_RECOMPUTE_OPS)
    RANDOM_OPS = c.get("random_ops", RANDOM_OPS)
    COMPUTE_INTENSIVE_OPS = c.get("compute_intensive_ops", COMPUTE_INTENSIVE_OPS)
    VIEW_OPS = c.get("view_ops", VIEW_OPS)
    IGNORE_OPS = c.get("ignore_ops", IGNORE_OPS)
    AGGRESSIVE_RECOMPUTATION = c.get("aggressive_recomputation", AGGRESSIVE_RECOMPUTATION)
    MAX_DIST_FROM_BW = c.get("max_dist_from_bw", MAX_DIST_FROM_BW)
    MINIMUM_WEIGHT = c.get("minimum_weight", MINIMUM_WEIGHT)
    for k in KNOBS:
        KNOBS[k] = c.get(k, KNOBS[k])


def auto_recompute(all_ops, inputs, outputs, fwd_op_end_idx, backward_op_start_idx):
    fw = {r for op in all_ops[: fwd_op_end_idx + 1] for r in op.results()}
    bw = {r for op in all_ops[fwd_op_end_idx + 1:] for r in op.results()}
    if len(bw) == 0 or backward_op_start_idx >= len(all_ops):
        return {"unchanged": True}
    dist_from_bw = cal_value_nodes_dist_to_backward(all_ops, fw)
    recomputable_ops = set(DEFAULT_RECOMPUTABLE_OPS + VIEW_OPS)
    unrecomputable_ops = RANDOM_OPS + COMPUTE_INTENSIVE_OPS
    fusible_ops = recomputable_ops | set(RANDOM_OPS)
    placeholder = set(inputs) | set(outputs)
    judge = JudgeFusionLoop(all_ops, unrecomputable_ops)
    forward_ops = set(all_ops[: fwd_op_end_idx + 1])

    all_values, need = set(), set()
    for op in all_ops[backward_op_start_idx:]:
        for o in op.operands_source():
            all_values.add(o)
            if not is_no_need_buffer(op, o):
                need.add(o)
    nnb = all_values - need

    def fusible(a, b):
        return a.get_defining_op().name() in fusible_ops and b.get_defining_op().name() in fusible_ops

    def mat_backwards(v):
        cur = {v}
        while cur:
            c = cur.pop()
            for u in find_value_node_users(c, nnb, True, forward_ops):
                if u not in fw and not fusible(c, u):
                    return True
                if u not in fw and get_real_define_op_name(u) in VIEW_OPS:
                    cur.add(u)
        return False

    def materialized(v):
        if v in placeholder:
            return True
        return not all(fusible(v, u) for u in find_value_node_users(v, nnb, True, forward_ops))

    def weight(v):
        sz = cal_value_node_size(v)
        if v.get_defining_op().name() in TENDING_TO_RECOMPUTE_OPS and sz == 0:
            return MINIMUM_WEIGHT
        sz = int(sz * (KNOBS["distance_base"] ** max(min(dist_from_bw[v], KNOBS["distance_cap"]), 1)))
        return sz if materialized(v) else sz * KNOBS["non_materialized_factor"]

    def ban(v):
        if AGGRESSIVE_RECOMPUTATION:
            return v.get_defining_op().name() in unrecomputable_ops
        if v.get_defining_op().name() in TENDING_TO_RECOMPUTE_OPS:
            return False
        if v.get_defining_op().name() not in recomputable_ops:
            return True
        if mat_backwards(v):
            return True
        if dist_from_bw[v] > MAX_DIST_FROM_BW:
            return True
        return cal_value_node_size(v) * KNOBS["size_ratio_ban"] < sum(cal_value_node_size(i) for i in get_real_input_nodes(v))

    G = nx.DiGraph()
    byname = {}
    for v in [r for op in all_ops for r in op.results()]:
        if v in outputs and v in fw:
            continue  # ALGORITHM.md §6 step 1
        if not v.initialized() or v.get_defining_op().name() == "builtin.combine" or v.get_defining_op().name() in IGNORE_OPS:
            continue
        used = v.all_used_ops_in_same_block()
        if len(used) == 1 and used[0].name() in ["builtin.split", "builtin.slice"]:
            continue
        byname[v.name] = v
        if v in bw:
            G.add_edge(v.name + "_in", "sink", capacity=math.inf)
            continue
        if v in inputs:
            G.add_edge("source", v.name + "_in", capacity=math.inf)
        if ban(v) and v in fw:
            G.add_edge("source", v.name + "_in", capacity=math.inf)
        G.add_edge(v.name + "_in", v.name + "_out", capacity=weight(v))
        for u in find_value_node_users(v, nnb, True, forward_ops):
            G.add_edge(v.name + "_out", u.name + "_in", capacity=math.inf)
        for user in v.all_used_ops_in_same_block():
            if user in forward_ops and judge.has(v.get_defining_op(), user):
                G.add_edge("source", v.name + "_in", capacity=math.inf)
                G.add_edge(v.name + "_out", "sink", capacity=math.inf)
    cut_value, (reachable, non_reachable) = nx.minimum_cut(G, "source", "sink")
    saved = set()
    for u in reachable:
        for w in G[u]:
            if w in non_reachable:
                assert u[:-3] == w[:-4]
                saved.add(byname[u[:-3]])
    # partition_joint_graph: mid-hold values and the recompute subgraph
    backward_ops = set(all_ops[backward_op_start_idx:])
    mid = set()
    for op in forward_ops:
        for r in op.results():
            used = [o for o in r.all_used_ops_in_same_block()
                    if not (o.name() == "builtin.combine" and len(o.results()[0].all_used_ops_in_same_block()) == 0)]
            if any(o in backward_ops for o in used) and r not in saved and r not in outputs and r not in inputs \
                    and r not in nnb and op.name() not in IGNORE_OPS:
                mid.add(r)
    marked, needed = set(), set()

    def find(v):
        d = v.get_defining_op()
        if d in marked or d is None:
            return
        if d.name() in ["builtin.parameter", "pd_op.data"]:
            needed.add(v)
            return
        ins = d.operands_source()
        if len(ins) == 0 and d.name() not in ["pd_op.full", "pd_op.full_int_array"]:
            raise Exception(f"Every path to recompute value {v.name} must have saved value ..., but find {d.name()} op")
        for i in ins:
            if i in saved:
                needed.add(i)
                continue
            find(i)
        marked.add(d)

    for m in mid:
        find(m)
    # clone_graph + placement (anchors only: the order itself is checked by the C++ tests)
    value_map = {v: v for v in needed}
    clones, anchor, clone_of_value = [], {}, {}
    for op in all_ops:
        if op not in marked:
            continue
        for o in op.operands_source():
            if o is not NULL and o not in value_map:
                raise Exception("Not found key in IRMapping.")
        ci = len(clones)
        clones.append([NULL if o is NULL else value_map[o] for o in op.operands_source()])
        for r in op.results():
            value_map[r] = ("clone", ci, r.name)
            clone_of_value[("clone", ci, r.name)] = ci
        users = [u for u in op.results()[0].all_used_ops_in_same_block() if u in backward_ops]
        anchor[ci] = min(users, key=lambda u: u.index) if users else None
    children = {i: [] for i in range(len(clones))}
    for ci, operands in enumerate(clones):
        for o in operands:
            if isinstance(o, tuple):
                children[clone_of_value[o]].append(ci)
    for ci in reversed(range(len(clones))):
        first = anchor[ci]
        for ch in children[ci]:
            if anchor[ch] is not None and (first is None or anchor[ch].index < first.index):
                first = anchor[ch]
        assert first is not None, "placement assertion"
        anchor[ci] = first
    key = lambda v: int(v.name[1:])
    return {"cut_value": cut_value, "saved_values": [v.name for v in sorted(saved, key=key)],
            "mid_hold_values": [v.name for v in sorted(mid, key=key)],
            "recompute_ops": sorted(op.index for op in marked), "memory_saved_bytes": sum(cal_value_node_size(v) for v in mid)}


def main():
    program, spec_path = sys.argv[1], sys.argv[2]
    load_nnb(sys.argv[3] if len(sys.argv) > 3 else __file__.rsplit("/", 4)[0] + "/../shared/data/no_need_buffer.tsv")
    if len(sys.argv) > 4:
        load_config(sys.argv[4])
    ops, values = parse(program)
    spec = json.load(open(spec_path))
    try:
        out = auto_recompute(ops, [values[n] for n in spec["inputs"]], [values[n] for n in spec["outputs"]],
                             spec["fwd_op_end_idx"], spec["backward_op_start_idx"])
    except Exception as e:  # the seed's failures
        out = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
