// Shape kernels: sources (full, arange, shape), plumbing (assign, combine, split), reshape, transpose, slice, concat, split, gather, indexing, collectives of one rank.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

void registerShapeKernels(KernelTable& table) {
    auto& k = table.kernels;
    // -- sources and plumbing (inputs are handled by the run loop) --
    k["pd_op.full"] = [](Context& c) {
        Dims shape = fullShape(c);
        c.requireElements(shape);
        c.setOut(0, filledTensor(c.outDType(0), shape, c.attrFloat("value", 0.0)));
    };
    k["pd_op.full_int_array"] = [](Context& c) {
        Dims v = c.attrInts("value");
        std::vector<double> d(v.begin(), v.end());
        c.setOutDoubles(0, {static_cast<int64_t>(v.size())}, d);
    };
    k["pd_op.full_like"] = [](Context& c) {
        double v = c.has(1) ? c.scalar(1) : c.attrFloat("value", 0.0);
        const Tensor& x = c.x(0);
        c.setOut(0, filledTensor(c.outDType(0), x.dims, v));
    };
    k["pd_op.full_with_tensor"] = [](Context& c) {
        // (value, shape) as Paddle prints it; fall back to the result type for the shape.
        double v = c.scalar(0);
        Dims shape = fullWithTensorShape(c);
        c.requireElements(shape);
        c.setOut(0, filledTensor(c.outDType(0), shape, v));
    };
    k["pd_op.arange"] = [](Context& c) {
        double start = c.scalar(0), end = c.scalar(1), step = c.scalar(2);
        if (step == 0) c.fail("arange with step 0");
        double len = std::ceil((end - start) / step);
        if (!std::isfinite(len)) c.fail("arange with non-finite length");
        int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::min(len, 9.0e18)));
        c.requireElements({n});
        std::vector<double> v(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) v[i] = start + step * static_cast<double>(i);
        c.setOutDoubles(0, {n}, v);
    };
    auto shapeKernel = [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> d(x.dims.begin(), x.dims.end());
        c.setOutDoubles(0, {static_cast<int64_t>(d.size())}, d);
    };
    k["pd_op.shape"] = shapeKernel;
    k["pd_op.shape64"] = shapeKernel;
    // fetch refers to its operand (an alias, exec/Liveness.h); assign copies, as in Paddle.
    k["pd_op.assign"] = [](Context& c) { c.setOut(0, c.x(0)); };
    k["pd_op.fetch"] = [](Context& c) { c.x(0); c.setOutShared(0, c.inputs[0]->tensor); };
    k["builtin.shadow_output"] = [](Context&) {};
    k["builtin.combine"] = [](Context& c) {
        std::vector<TensorPtr> l;
        for (size_t i = 0; i < c.operandCount(); ++i) { c.x(i); l.push_back(c.inputs[i]->tensor); }
        c.setOutList(0, std::move(l));
    };
    k["builtin.split"] = [](Context& c) {
        const auto& l = c.list(0);
        checkVectorSplit(c, l.size());
        for (size_t i = 0; i < l.size(); ++i) c.setOutShared(i, l[i]);
    };
    k["builtin.slice"] = [](Context& c) { c.setOutShared(0, c.list(0)[vectorSliceIndex(c, c.list(0).size())]); };

    // -- shape ops --
    auto reshapeKernel = [](Context& c) {
        const Tensor& x = c.x(0);
        c.setOut(0, reshaped(x, reshapeDims(c)));
        if (!c.resultIsNull(1)) c.setOut(1, Tensor(c.outDType(1), xshapeDims(x.dims)));  // no data
    };
    k["pd_op.reshape"] = reshapeKernel;
    k["pd_op.view_shape"] = reshapeKernel;
    auto squeezeLike = [](bool squeeze) {
        return [squeeze](Context& c) {
            const Tensor& x = c.x(0);
            c.setOut(0, reshaped(x, squeeze ? squeezeDims(c) : unsqueezeDims(c)));
            if (!c.resultIsNull(1)) c.setOut(1, Tensor(c.outDType(1), xshapeDims(x.dims)));
        };
    };
    k["pd_op.squeeze"] = squeezeLike(true);
    k["pd_op.unsqueeze"] = squeezeLike(false);
    k["pd_op.flatten"] = [](Context& c) {
        const Tensor& x = c.x(0);
        c.setOut(0, reshaped(x, flattenDims(c)));
        if (!c.resultIsNull(1)) c.setOut(1, Tensor(c.outDType(1), xshapeDims(x.dims)));
    };
    k["pd_op.transpose"] = [](Context& c) { c.setOut(0, transposeTensor(c.x(0), transposePerm(c, c.x(0).dims.size(), false))); };
    k["pd_op.expand"] = [](Context& c) {
        Dims shape = expandDims(c);
        c.requireElements(shape);
        c.setOut(0, expandTensor(c.x(0), shape));
    };
    k["pd_op.expand_as"] = [](Context& c) {
        c.setOut(0, expandTensor(c.x(0), expandAsDims(c)));
    };
    k["pd_op.slice"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const SliceGeom g = sliceGeometry(c, x.dims, 1);
        const Dims& begin = g.begin;
        const Dims& size = g.size;
        size_t r = x.dims.size();
        Tensor out(x.dtype, size);
        int eb = dtypeBytes(x.dtype);
        Dims inStr = stridesOf(x.dims), outStr = stridesOf(size);
        int64_t n = out.numel();
        for (int64_t k2 = 0; k2 < n; ++k2) {
            int64_t rem = k2, pos = 0;
            for (size_t i = 0; i < r; ++i) { int64_t idx = rem / outStr[i]; rem %= outStr[i]; pos += (idx + begin[i]) * inStr[i]; }
            std::memcpy(out.bytes.data() + k2 * eb, x.bytes.data() + pos * eb, eb);
        }
        out.dims = g.outDims;
        c.setOut(0, std::move(out));
    };
    k["pd_op.concat"] = [](Context& c) {
        const auto& l = c.list(0);
        if (l.empty()) c.fail("concat of an empty vector");
        c.setOut(0, concatTensors(c, l, concatAxis(c, 1, l[0]->dims.size())));
    };
    k["pd_op.stack"] = [](Context& c) {
        const auto& l = c.list(0);
        if (l.empty()) c.fail("stack of nothing");
        size_t axis = stackAxis(c, l[0]->dims.size());
        std::vector<TensorPtr> us;
        for (const TensorPtr& t : l) {
            Dims d = t->dims;
            if (d.size() != l[0]->dims.size()) c.fail("stack of " + dimsString(l[0]->dims) + " and " + dimsString(d) + ": ranks differ");
            d.insert(d.begin() + static_cast<int64_t>(axis), 1);
            us.push_back(std::make_shared<const Tensor>(reshaped(*t, d)));
        }
        c.setOut(0, concatTensors(c, us, axis));
    };
    k["pd_op.split"] = [](Context& c) {
        splitInto(c, c.x(0), splitGeometry(c));
    };
    k["pd_op.split_with_num"] = [](Context& c) {
        splitInto(c, c.x(0), splitGeometry(c));
    };
    k["pd_op.gather_nd"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        if (index.dims.empty()) c.fail("gather_nd index must have rank >= 1");
        int64_t depth = index.dims.back();
        if (depth > static_cast<int64_t>(x.dims.size())) c.fail("gather_nd index depth exceeds the rank");
        Dims od(index.dims.begin(), index.dims.end() - 1);
        od.insert(od.end(), x.dims.begin() + depth, x.dims.end());
        int64_t inner = 1;
        for (size_t i = depth; i < x.dims.size(); ++i) inner *= x.dims[i];
        Dims str = stridesOf(x.dims);
        int64_t rows = index.numel() / std::max<int64_t>(depth, 1);
        if (depth == 0) rows = index.numel() == 0 ? numelOf(Dims(index.dims.begin(), index.dims.end() - 1)) : rows;
        Tensor out(x.dtype, od);
        int eb = dtypeBytes(x.dtype);
        for (int64_t r = 0; r < rows; ++r) {
            int64_t pos = 0;
            for (int64_t j = 0; j < depth; ++j) {
                int64_t v = static_cast<int64_t>(index.get(r * depth + j));
                if (v < 0) v += x.dims[j];
                if (v < 0 || v >= x.dims[j]) c.fail("gather_nd index " + std::to_string(v) + " out of range");
                pos += v * str[j];
            }
            std::memcpy(out.bytes.data() + r * inner * eb, x.bytes.data() + pos * eb, inner * eb);
        }
        c.setOut(0, std::move(out));
    };
    k["pd_op.gather"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        size_t axis = gatherAxis(c, x.dims.size());
        Dims od = x.dims;
        od[axis] = index.numel();
        int64_t outer = 1, inner = 1;
        for (size_t i = 0; i < axis; ++i) outer *= x.dims[i];
        for (size_t i = axis + 1; i < x.dims.size(); ++i) inner *= x.dims[i];
        Tensor out(x.dtype, od);
        int eb = dtypeBytes(x.dtype);
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < index.numel(); ++j) {
                int64_t v = static_cast<int64_t>(index.get(j));
                if (v < 0 || v >= x.dims[axis]) c.fail("gather index out of range");
                std::memcpy(out.bytes.data() + (o * index.numel() + j) * inner * eb,
                            x.bytes.data() + (o * x.dims[axis] + v) * inner * eb, inner * eb);
            }
        c.setOut(0, std::move(out));
    };

    k["pd_op.put_along_axis"] = [](Context& c) {
        // (arr, indices, values) {axis, reduce: assign|add|mul}; values broadcast to indices.
        const Tensor& arr = c.x(0);
        const Tensor& idx = c.x(1);
        const Tensor& val = c.x(2);
        int64_t axis = c.normAxis(c.attrInt("axis", 0), arr.dims.size());
        std::string reduce = c.attrString("reduce", "assign");
        if (idx.dims.size() != arr.dims.size()) c.fail("put_along_axis indices must have the rank of arr");
        std::vector<double> out = arr.toDoubles();
        std::vector<int64_t> vi = broadcastIndex(val.dims, idx.dims);
        Dims is = stridesOf(idx.dims), as = stridesOf(arr.dims);
        for (int64_t k2 = 0; k2 < idx.numel(); ++k2) {
            int64_t rem = k2, pos = 0;
            for (size_t d = 0; d < idx.dims.size(); ++d) {
                int64_t coord = rem / is[d];
                rem %= is[d];
                if (static_cast<int64_t>(d) == axis) {
                    coord = static_cast<int64_t>(idx.get(k2));
                    if (coord < 0) coord += arr.dims[d];
                    if (coord < 0 || coord >= arr.dims[d]) c.fail("put_along_axis index out of range");
                } else if (coord >= arr.dims[d]) c.fail("put_along_axis indices exceed arr");
                pos += coord * as[d];
            }
            double v = val.get(vi[k2]);
            if (reduce == "add") out[pos] += v;
            else if (reduce == "mul" || reduce == "multiply") out[pos] *= v;
            else out[pos] = v;
        }
        c.setOutDoubles(0, arr.dims, out);
    };
    k["pd_op.index_sample"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& idx = c.x(1);
        if (x.dims.size() != 2 || idx.dims.size() != 2 || x.dims[0] != idx.dims[0]) c.fail("index_sample needs [N,M] and [N,K]");
        std::vector<double> out(static_cast<size_t>(idx.numel()));
        for (int64_t r = 0; r < idx.dims[0]; ++r)
            for (int64_t j = 0; j < idx.dims[1]; ++j) {
                int64_t v = static_cast<int64_t>(idx.get(r * idx.dims[1] + j));
                if (v < 0 || v >= x.dims[1]) c.fail("index_sample index out of range");
                out[r * idx.dims[1] + j] = x.get(r * x.dims[1] + v);
            }
        c.setOutDoubles(0, idx.dims, out);
    };
    k["pd_op.embedding"] = [](Context& c) {
        const Tensor& ids = c.x(0);
        const Tensor& w = c.x(1);
        if (w.dims.size() != 2) c.fail("embedding weight must be 2-d");
        int64_t pad = c.attrInt("padding_idx", -1), width = w.dims[1];
        Dims od = ids.dims;
        od.push_back(width);
        Tensor out(w.dtype, od);
        int eb = dtypeBytes(w.dtype);
        for (int64_t i = 0; i < ids.numel(); ++i) {
            int64_t id = static_cast<int64_t>(ids.get(i));
            if (id < 0 || id >= w.dims[0]) c.fail("embedding id " + std::to_string(id) + " out of range");
            if (pad >= 0 && id == pad) continue;  // zero row
            std::memcpy(out.bytes.data() + i * width * eb, w.bytes.data() + id * width * eb, width * eb);
        }
        c.setOut(0, std::move(out));
    };
    // Collectives of a single-process run: one rank, so reduce and broadcast leave the
    // tensor as it is.
    for (std::string_view name : opsWithTrait(OpTrait::Collective))
        k[std::string(name)] = [](Context& c) { c.setOut(0, c.x(0)); };  // own storage, as the memory model counts

    // -- unbind (input) {axis} -> vector of slices with the axis removed
    k["pd_op.unbind"] = [](Context& c) {
        const Tensor& x = c.x(0);
        if (x.dims.empty()) c.fail("unbind of a 0-d tensor");
        int64_t axis = c.normAxis(c.attrInt("axis", 0), x.dims.size());
        splitInto(c, x, splitGeometry(c, x.dims, Dims(static_cast<size_t>(x.dims[axis]), 1), axis));
        std::vector<TensorPtr> parts;
        for (const TensorPtr& t : c.outputs[0].list) {
            Dims d = t->dims;
            d.erase(d.begin() + axis);
            parts.push_back(std::make_shared<const Tensor>(reshaped(*t, d)));
        }
        c.setOutList(0, std::move(parts));
    };
    // stack_grad (x vector, out_grad) {axis} -> vector of x grads: unbind out_grad.
    k["pd_op.stack_grad"] = [](Context& c) {
        const auto& xs = c.list(0);
        const Tensor& g = c.x(1);
        if (xs.empty()) c.fail("stack_grad of nothing");
        int64_t axis = c.attrInt("axis", 0);
        if (axis < 0) axis += static_cast<int64_t>(g.dims.size());
        if (axis < 0 || axis >= static_cast<int64_t>(g.dims.size()) || g.dims[axis] != static_cast<int64_t>(xs.size()))
            c.fail("stack_grad: out_grad " + dimsString(g.dims) + " does not stack " + std::to_string(xs.size()) + " tensors on axis " +
                   std::to_string(axis));
        splitInto(c, g, splitGeometry(c, g.dims, Dims(xs.size(), 1), axis));
        std::vector<TensorPtr> parts;
        for (size_t i = 0; i < xs.size(); ++i) parts.push_back(std::make_shared<const Tensor>(reshaped(*c.outputs[0].list[i], xs[i]->dims)));
        c.setOutList(0, std::move(parts));
    };
    // index_select (x, index) {axis}: gather along an axis (Paddle's index_select).
    k["pd_op.index_select"] = k["pd_op.gather"];
    // gather_grad / index_select_grad (x, index, out_grad[, axis]) {axis}: scatter-add along the axis.
    auto gatherGrad = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        const Tensor& g = c.x(2);
        int64_t axis = c.normAxis(c.has(3) ? c.ints(3).at(0) : c.attrInt("axis", 0), x.dims.size());
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < axis; ++i) outer *= x.dims[i];
        for (size_t i = axis + 1; i < x.dims.size(); ++i) inner *= x.dims[i];
        if (g.numel() != outer * index.numel() * inner) c.fail("out_grad " + dimsString(g.dims) + " does not match the gathered shape");
        std::vector<double> dx(static_cast<size_t>(x.numel()), 0.0), gv = g.toDoubles();
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < index.numel(); ++j) {
                int64_t v = static_cast<int64_t>(index.get(j));
                if (v < 0 || v >= x.dims[axis]) c.fail("index " + std::to_string(v) + " out of range");
                for (int64_t e = 0; e < inner; ++e) dx[(o * x.dims[axis] + v) * inner + e] += gv[(o * index.numel() + j) * inner + e];
            }
        c.setOutDoubles(0, x.dims, dx);
    };
    k["pd_op.gather_grad"] = gatherGrad;
    k["pd_op.index_select_grad"] = gatherGrad;
    // scatter (x, index, updates) {overwrite}: rows index[i] of x become updates[i] (overwrite),
    // or the sum of the updates aimed at them (Paddle zeroes those rows first).
    k["pd_op.scatter"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        const Tensor& up = c.x(2);
        bool overwrite = c.attrBool("overwrite", true);
        if (x.dims.empty()) c.fail("scatter into a 0-d tensor");
        const int64_t row = x.numel() / std::max<int64_t>(x.dims[0], 1);
        if (up.numel() != index.numel() * row) c.fail("updates " + dimsString(up.dims) + " do not match index and x rows");
        std::vector<double> out = x.toDoubles(), uv = up.toDoubles();
        for (int64_t i = 0; i < index.numel(); ++i) {
            int64_t r = static_cast<int64_t>(index.get(i));
            if (r < 0 || r >= x.dims[0]) c.fail("scatter index " + std::to_string(r) + " out of range");
            if (!overwrite) std::fill(out.begin() + r * row, out.begin() + (r + 1) * row, 0.0);
        }
        for (int64_t i = 0; i < index.numel(); ++i) {
            int64_t r = static_cast<int64_t>(index.get(i));
            for (int64_t e = 0; e < row; ++e) out[r * row + e] = overwrite ? uv[i * row + e] : out[r * row + e] + uv[i * row + e];
        }
        c.setOutDoubles(0, x.dims, out);
    };
    // scatter_grad (index, updates, out_grad) {overwrite} -> x_grad (indexed rows zeroed), updates_grad.
    // With overwrite and repeated indices only the last update of a row reaches the output.
    k["pd_op.scatter_grad"] = [](Context& c) {
        const Tensor& index = c.x(0);
        const Tensor& up = c.x(1);
        const Tensor& g = c.x(2);
        bool overwrite = c.attrBool("overwrite", true);
        if (g.dims.empty()) c.fail("scatter_grad of a 0-d gradient");
        const int64_t row = g.numel() / std::max<int64_t>(g.dims[0], 1);
        std::vector<double> gv = g.toDoubles(), dx = gv, du(static_cast<size_t>(up.numel()), 0.0);
        std::vector<int64_t> last(static_cast<size_t>(g.dims[0]), -1);
        for (int64_t i = 0; i < index.numel(); ++i) {
            int64_t r = static_cast<int64_t>(index.get(i));
            if (r < 0 || r >= g.dims[0]) c.fail("scatter index " + std::to_string(r) + " out of range");
            last[r] = i;
            std::fill(dx.begin() + r * row, dx.begin() + (r + 1) * row, 0.0);
        }
        for (int64_t i = 0; i < index.numel(); ++i) {
            int64_t r = static_cast<int64_t>(index.get(i));
            if (overwrite && last[r] != i) continue;
            for (int64_t e = 0; e < row; ++e) du[i * row + e] = gv[r * row + e];
        }
        if (!c.resultIsNull(0)) c.setOutDoubles(0, g.dims, dx);
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, up.dims, du);
    };
    // pad (x) {paddings: [before0, after0, before1, after1, ...], pad_value}: constant padding.
    auto padPlan = [](const Context& c, const Dims& in, Dims& before, Dims& out) {
        Dims p = c.attrInts("paddings");
        if (p.size() != 2 * in.size()) c.fail("attribute paddings = " + dimsString(p) + ": expected 2 entries per dim of " + dimsString(in));
        before.assign(in.size(), 0);
        out = in;
        for (size_t i = 0; i < in.size(); ++i) {
            if (p[2 * i] < 0 || p[2 * i + 1] < 0) c.fail("attribute paddings = " + dimsString(p) + ": must be >= 0");
            before[i] = p[2 * i];
            out[i] = in[i] + p[2 * i] + p[2 * i + 1];
        }
        c.requireElements(out);
    };
    k["pd_op.pad"] = [padPlan](Context& c) {
        const Tensor& x = c.x(0);
        Dims before, od;
        padPlan(c, x.dims, before, od);
        double value = c.has(1) ? c.scalar(1) : c.attrFloat("pad_value", 0.0);
        std::vector<double> out(static_cast<size_t>(numelOf(od)), value), v = x.toDoubles();
        Dims is = stridesOf(x.dims), os = stridesOf(od);
        for (int64_t e = 0; e < x.numel(); ++e) {
            int64_t rem = e, pos = 0;
            for (size_t d = 0; d < x.dims.size(); ++d) { pos += (rem / is[d] + before[d]) * os[d]; rem %= is[d]; }
            out[pos] = v[e];
        }
        c.setOutDoubles(0, od, out);
    };
    k["pd_op.pad_grad"] = [padPlan](Context& c) {  // (x, out_grad) {paddings}: the unpadded window
        const Tensor& x = c.x(0);
        const Tensor& g = c.x(1);
        Dims before, od;
        padPlan(c, x.dims, before, od);
        if (g.dims != od) c.fail("out_grad " + dimsString(g.dims) + " is not the padded shape " + dimsString(od));
        std::vector<double> dx(static_cast<size_t>(x.numel())), gv = g.toDoubles();
        Dims is = stridesOf(x.dims), os = stridesOf(od);
        for (int64_t e = 0; e < x.numel(); ++e) {
            int64_t rem = e, pos = 0;
            for (size_t d = 0; d < x.dims.size(); ++d) { pos += (rem / is[d] + before[d]) * os[d]; rem %= is[d]; }
            dx[e] = gv[pos];
        }
        c.setOutDoubles(0, x.dims, dx);
    };
}

}  // namespace rx::exec::cpu
