#!/usr/bin/env python3
# Where the exact mode's LP relaxation binds, and how: reads a budget's MILP as `solve P --budget B
# --milp M.mps` writes it, solves its relaxation with CBC's command-line driver, and prints each
# check point whose load sits at its limit: the columns alive there below 1 (the ranges a
# fractional plan frees in part), their bytes, and the rows that bound each from below. A tool
# for reading why the relaxation is weak at a point (README "Exact mode", session 34).
#
#   bench/milp_binding_points.py M.mps [--cbc cbc] [--top 3]
#
# The model's loads are its free-below columns (L_i, bounded above by the budget less the
# bytes no plan moves); L_i = L_(i−1) + Σ bytes·column entering − leaving, so a check point's
# ranges are the running sum of the defining rows. Bytes print in B (the rows are in MiB).
import argparse, collections, math, subprocess, sys, tempfile

MIB = 1024.0 * 1024.0


def read_mps(path):
    """Rows' types, right-hand sides, columns' entries and bounds of a fixed-format MPS deck."""
    row_type, rhs, bounds = {}, {}, collections.defaultdict(dict)
    cols = collections.OrderedDict()
    section = None
    for line in open(path):
        if line.startswith('*'):
            continue
        if not line.startswith(' '):
            section = line.split()[0]
            continue
        t = line.split()
        if section == 'ROWS':
            row_type[t[1]] = t[0]
        elif section == 'COLUMNS':
            if len(t) > 2 and t[1] == "'MARKER'":
                continue
            entries = cols.setdefault(t[0], {})
            for k in range(1, len(t), 2):
                entries[t[k]] = float(t[k + 1])
        elif section == 'RHS':
            for k in range(1, len(t), 2):
                rhs[t[k]] = float(t[k + 1])
        elif section == 'BOUNDS':
            bounds[t[2]][t[0]] = float(t[3]) if len(t) > 3 else None
    return row_type, rhs, cols, bounds


def relaxation(path, cbc):
    """CBC's LP optimum: (objective, {column: value})."""
    with tempfile.NamedTemporaryFile(suffix='.sol') as sol:
        subprocess.run([cbc, path, '-initialSolve', '-solution', sol.name], check=True, capture_output=True)
        objective, x = None, {}
        for line in open(sol.name):
            t = line.split()
            if line.startswith('Optimal'):
                objective = float(t[-1])
            elif len(t) >= 3 and t[0].isdigit():
                x[t[1]] = float(t[2])
    if objective is None:
        sys.exit(f'{path}: CBC found no optimal relaxation')
    return objective, x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('mps')
    ap.add_argument('--cbc', default='cbc')
    ap.add_argument('--top', type=int, default=3, help='bounding rows shown per column')
    args = ap.parse_args()
    row_type, rhs, cols, bounds = read_mps(args.mps)
    by_row = collections.defaultdict(dict)
    for c, entries in cols.items():
        for r, v in entries.items():
            by_row[r][c] = v
    objective, x = relaxation(args.mps, args.cbc)
    print(f'relaxation: {objective:.8g} (scaled cost; `solve --milp` prints the scale)')
    loads = [c for c in cols if 'MI' in bounds[c]]
    load_set = set(loads)
    alive = collections.defaultdict(float)
    for load in loads:
        defining = [r for r, v in cols[load].items() if row_type.get(r) == 'E' and v == 1.0]
        if not defining:
            continue
        for c, v in by_row[defining[0]].items():
            if c not in load_set:
                alive[c] -= v
        limit = bounds[load].get('UP')
        if limit is None or x.get(load, 0.0) < limit - 1e-7:
            continue
        print(f'\n{load}: at its limit, {limit * MIB:.0f} B above the bytes no plan moves')
        partial = [(c, b) for c, b in alive.items() if b > 1e-12 and 1e-9 < x.get(c, 0.0) < 0.999]
        for c, b in sorted(partial, key=lambda t: -t[1] * x.get(t[0], 0.0)):
            print(f'  {c}: {b * MIB:.0f} B at {x.get(c, 0.0):.3f}')
            bounding = []
            for r, v in cols[c].items():
                if row_type.get(r) != 'G' or v != 1.0:
                    continue
                others = {o: w for o, w in by_row[r].items() if o != c}
                value = rhs.get(r, 0.0) - sum(w * x.get(o, 0.0) for o, w in others.items())
                bounding.append((value, r, others))
            for value, r, others in sorted(bounding, key=lambda t: -t[0])[:args.top]:
                terms = ' '.join(f'{-w:+g}·{o}({x.get(o, 0.0):.3f})' for o, w in others.items())
                print(f'      ≥ {value:.3f}  [{r}: {rhs.get(r, 0.0):g} {terms}]')


if __name__ == '__main__':
    main()
