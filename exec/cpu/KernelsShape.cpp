// Shape kernels: sources (full, arange, shape), plumbing (assign, combine, split), reshape, transpose, slice, concat, split, gather, indexing, collectives of one rank.
#include "exec/cpu/KernelContext.h"
#include "exec/cpu/TypedCompute.h"

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
        c.setOut(0, filledTensor(c.outDType(0), shape, fullValue(c)));
    };
    k["pd_op.full_int_array"] = [](Context& c) {
        const Dims v = fullIntArrayValues(c);
        std::vector<double> d(v.begin(), v.end());
        c.setOutDoubles(0, {static_cast<int64_t>(v.size())}, d);
    };
    k["pd_op.full_like"] = [](Context& c) {
        const double v = fullValue(c);
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
        const ArangeParams p = arangeParams(c);
        c.requireElements({p.length});
        c.setOut(0, generatedTensor(c.outDType(0), {p.length}, [&](int64_t i) { return p.start + p.step * static_cast<double>(i); }));
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
        std::vector<Dims> dims;
        for (const TensorPtr& t : l) dims.push_back(t->dims);
        const StackGeom g = stackGeometry(c, dims);
        std::vector<TensorPtr> us;
        for (size_t i = 0; i < l.size(); ++i) us.push_back(std::make_shared<const Tensor>(reshaped(*l[i], g.parts[i])));
        c.setOut(0, concatTensors(c, us, g.axis));
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
        const GatherNdGeom g = gatherNdGeometry(c, x.dims, index.dims);
        const Dims str = stridesOf(x.dims);
        const IndexView at(index);
        Tensor out(x.dtype, g.outDims);
        const size_t eb = static_cast<size_t>(dtypeBytes(x.dtype));
        for (int64_t r = 0; r < g.rows; ++r) {
            int64_t pos = 0;
            for (int64_t j = 0; j < g.depth; ++j) {
                int64_t v = at[r * g.depth + j];
                if (v < 0) v += x.dims[j];
                if (v < 0 || v >= x.dims[j]) c.fail("gather_nd index " + std::to_string(v) + " out of range");
                pos += v * str[j];
            }
            std::memcpy(out.bytes.data() + r * g.inner * eb, x.bytes.data() + pos * eb, g.inner * eb);
        }
        c.setOut(0, std::move(out));
    };
    k["pd_op.gather"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        const GatherGeom g = gatherGeometry(c, x.dims, index.numel());
        const IndexView at(index);
        Tensor out(x.dtype, g.outDims);
        const size_t eb = static_cast<size_t>(dtypeBytes(x.dtype));
        const AxisLanes& l = g.lanes;
        for (int64_t o = 0; o < l.outer; ++o)
            for (int64_t j = 0; j < index.numel(); ++j) {
                const int64_t v = at[j];
                if (v < 0 || v >= l.n) c.fail("gather index out of range");
                std::memcpy(out.bytes.data() + (o * index.numel() + j) * l.inner * eb,
                            x.bytes.data() + (o * l.n + v) * l.inner * eb, l.inner * eb);
            }
        c.setOut(0, std::move(out));
    };

    k["pd_op.put_along_axis"] = [](Context& c) {
        // (arr, indices, values) {axis, reduce: assign|add|mul}; values broadcast to indices.
        // The result starts as a copy of arr and takes each value in place, in arr's dtype.
        const DType t = c.outDType(0);
        std::optional<Tensor> ah, vh;
        const Tensor& arr = inDType(c.x(0), t, ah);
        const Tensor& idx = c.x(1);
        const Tensor& val = inDType(c.x(2), t, vh);
        const PutAlongAxisParams p = putAlongAxisParams(c, arr.dims, idx.dims, val.dims);
        Tensor out = arr;
        const IndexView at(idx);
        const Dims is = stridesOf(idx.dims), as = stridesOf(arr.dims);
        const std::array<const Dims*, 1> ins{&val.dims};
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* vv = val.data<T>();
            T* o = out.data<T>();
            forEachBroadcast(idx.dims, ins, [&](int64_t k2, const auto& off) {
                int64_t rem = k2, pos = 0;
                for (size_t d = 0; d < idx.dims.size(); ++d) {
                    int64_t coord = rem / is[d];
                    rem %= is[d];
                    if (d == p.axis) {
                        coord = at[k2];
                        if (coord < 0) coord += arr.dims[d];
                        if (coord < 0 || coord >= arr.dims[d]) c.fail("put_along_axis index out of range");
                    } else if (coord >= arr.dims[d]) c.fail("put_along_axis indices exceed arr");
                    pos += coord * as[d];
                }
                switch (p.reduce) {
                case PutAlongAxisParams::Reduce::Add: o[pos] = storeElement<T>(valueAt(o, pos) + valueAt(vv, off[0])); break;
                case PutAlongAxisParams::Reduce::Multiply: o[pos] = storeElement<T>(valueAt(o, pos) * valueAt(vv, off[0])); break;
                default: o[pos] = vv[off[0]]; break;
                }
            });
        });
        c.setOut(0, std::move(out));
    };
    k["pd_op.index_sample"] = [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& idx = c.x(1);
        const Dims od = indexSampleDims(c, x.dims, idx.dims);
        const IndexView at(idx);
        const DType t = c.outDType(0);
        Tensor out(t, od);
        const size_t eb = static_cast<size_t>(dtypeBytes(t));
        for (int64_t r = 0; r < idx.dims[0]; ++r)
            for (int64_t j = 0; j < idx.dims[1]; ++j) {
                const int64_t v = at[r * idx.dims[1] + j];
                if (v < 0 || v >= x.dims[1]) c.fail("index_sample index out of range");
                const int64_t o = r * idx.dims[1] + j, i = r * x.dims[1] + v;
                if (x.dtype == t) std::memcpy(out.bytes.data() + o * eb, x.bytes.data() + i * eb, eb);
                else out.set(o, x.get(i));
            }
        c.setOut(0, std::move(out));
    };
    k["pd_op.embedding"] = [](Context& c) {
        const Tensor& ids = c.x(0);
        const Tensor& w = c.x(1);
        const Dims od = embeddingDims(c, ids.dims, w.dims);
        const int64_t pad = embeddingParams(c).paddingIdx, width = w.dims[1];
        Tensor out(w.dtype, od);
        int eb = dtypeBytes(w.dtype);
        const IndexView idAt(ids);
        for (int64_t i = 0; i < ids.numel(); ++i) {
            const int64_t id = idAt[i];
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
        splitInto(c, x, unbindGeometry(c, x.dims));
    };
    // stack_grad (x vector, out_grad) {axis} -> vector of x grads: unbind out_grad.
    k["pd_op.stack_grad"] = [](Context& c) {
        const auto& xs = c.list(0);
        const Tensor& g = c.x(1);
        std::vector<Dims> xDims;
        for (const TensorPtr& t : xs) xDims.push_back(t->dims);
        splitInto(c, g, stackGradGeometry(c, g.dims, xDims));
    };
    // index_select (x, index) {axis}: gather along an axis (Paddle's index_select).
    k["pd_op.index_select"] = k["pd_op.gather"];
    // gather_grad / index_select_grad (x, index, out_grad[, axis]) {axis}: scatter-add along the axis.
    auto gatherGrad = [](Context& c) {
        const DType t = c.outDType(0);
        const Tensor& x = c.x(0);
        const Tensor& index = c.x(1);
        std::optional<Tensor> gh;
        const Tensor& g = inDType(c.x(2), t, gh);
        const GatherGradParams p = gatherGradParams(c, x.dims, index.numel(), g.dims);
        const IndexView at(index);
        Tensor dx(t, x.dims);
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* gv = g.data<T>();
            AddInto<T> acc(dx);
            const AxisLanes& l = p.lanes;
            for (int64_t o = 0; o < l.outer; ++o)
                for (int64_t j = 0; j < index.numel(); ++j) {
                    const int64_t v = at[j];
                    if (v < 0 || v >= l.n) c.fail("index " + std::to_string(v) + " out of range");
                    for (int64_t e = 0; e < l.inner; ++e) acc.add((o * l.n + v) * l.inner + e, valueAt(gv, (o * index.numel() + j) * l.inner + e));
                }
            acc.finish();
        });
        c.setOut(0, std::move(dx));
    };
    k["pd_op.gather_grad"] = gatherGrad;
    k["pd_op.index_select_grad"] = gatherGrad;
    // scatter (x, index, updates) {overwrite}: rows index[i] of x become updates[i] (overwrite),
    // or the sum of the updates aimed at them (Paddle zeroes those rows first). The result
    // starts as a copy of x and is updated in place, in x's dtype.
    k["pd_op.scatter"] = [](Context& c) {
        const DType t = c.outDType(0);
        std::optional<Tensor> xh, uh;
        const Tensor& x = inDType(c.x(0), t, xh);
        const Tensor& index = c.x(1);
        const Tensor& up = inDType(c.x(2), t, uh);
        const bool overwrite = scatterOverwrite(c);
        const int64_t row = scatterRowWidth(c, x.dims);
        if (up.numel() != index.numel() * row) c.fail("updates " + dimsString(up.dims) + " do not match index and x rows");
        const IndexView at(index);
        Tensor out = x;
        const size_t eb = static_cast<size_t>(dtypeBytes(t));
        for (int64_t i = 0; i < index.numel(); ++i) {
            const int64_t r = at[i];
            if (r < 0 || r >= x.dims[0]) c.fail("scatter index " + std::to_string(r) + " out of range");
            if (!overwrite) std::memset(out.bytes.data() + r * row * eb, 0, static_cast<size_t>(row) * eb);
        }
        visitKernelDType(c, t, [&](auto tag) {
            using T = typename decltype(tag)::type;
            const T* uv = up.data<T>();
            T* o = out.data<T>();
            for (int64_t i = 0; i < index.numel(); ++i) {
                const int64_t r = at[i];
                for (int64_t e = 0; e < row; ++e)
                    o[r * row + e] = overwrite ? uv[i * row + e] : storeElement<T>(valueAt(o, r * row + e) + valueAt(uv, i * row + e));
            }
        });
        c.setOut(0, std::move(out));
    };
    // scatter_grad (index, updates, out_grad) {overwrite} -> x_grad (indexed rows zeroed), updates_grad.
    // With overwrite and repeated indices only the last update of a row reaches the output.
    // Both are copies of out_grad's rows, so they move bytes and are exact.
    k["pd_op.scatter_grad"] = [](Context& c) {
        const Tensor& index = c.x(0);
        const Tensor& up = c.x(1);
        const Tensor& g = c.x(2);
        const bool overwrite = scatterOverwrite(c);
        const int64_t row = scatterRowWidth(c, g.dims);
        const bool wantDx = !c.resultIsNull(0), wantDu = c.outputs.size() > 1 && !c.resultIsNull(1);
        if (wantDu && up.numel() != index.numel() * row) c.fail("updates " + dimsString(up.dims) + " do not match index and out_grad rows");
        const IndexView at(index);
        std::vector<int64_t> last(static_cast<size_t>(g.dims[0]), -1);  // per row of x: the update that reaches it
        for (int64_t i = 0; i < index.numel(); ++i) {
            const int64_t r = at[i];
            if (r < 0 || r >= g.dims[0]) c.fail("scatter index " + std::to_string(r) + " out of range");
            last[r] = i;
        }
        // A row of out_grad into a row of a result of dtype t (bytes when the dtypes agree).
        auto copyRow = [&](Tensor& to, int64_t toRow, int64_t fromRow) {
            const size_t eb = static_cast<size_t>(dtypeBytes(to.dtype));
            if (to.dtype == g.dtype) { std::memcpy(to.bytes.data() + toRow * row * eb, g.bytes.data() + fromRow * row * eb, static_cast<size_t>(row) * eb); return; }
            for (int64_t e = 0; e < row; ++e) to.set(toRow * row + e, g.get(fromRow * row + e));
        };
        if (wantDx) {
            Tensor dx(c.outDType(0), g.dims);
            for (int64_t r = 0; r < g.dims[0]; ++r)
                if (last[r] < 0) copyRow(dx, r, r);  // indexed rows stay zero
            c.setOut(0, std::move(dx));
        }
        if (wantDu) {
            Tensor du(c.outDType(1), up.dims);
            for (int64_t i = 0; i < index.numel(); ++i) {
                const int64_t r = at[i];
                if (overwrite && last[r] != i) continue;
                copyRow(du, i, r);
            }
            c.setOut(1, std::move(du));
        }
    };
    // pad (x) {paddings: [before0, after0, before1, after1, ...], pad_value}: constant padding.
    // pad_grad (x, out_grad) {paddings}: the unpadded window. Elements move as bytes.
    // The offset in the padded tensor of every element of x, in x's order.
    auto forEachPadded = [](const Dims& in, const PadParams& p, auto&& fn) {
        const Dims is = stridesOf(in), os = stridesOf(p.outDims);
        const int64_t n = numelOf(in);
        for (int64_t e = 0; e < n; ++e) {
            int64_t rem = e, pos = 0;
            for (size_t d = 0; d < in.size(); ++d) { pos += (rem / is[d] + p.before[d]) * os[d]; rem %= is[d]; }
            fn(e, pos);
        }
    };
    k["pd_op.pad"] = [forEachPadded](Context& c) {
        const DType t = c.outDType(0);
        std::optional<Tensor> xh;
        const Tensor& x = inDType(c.x(0), t, xh);
        const PadParams p = padParams(c, x.dims);
        c.requireElements(p.outDims);
        Tensor out = filledTensor(t, p.outDims, p.value);
        const size_t eb = static_cast<size_t>(dtypeBytes(t));
        forEachPadded(x.dims, p, [&](int64_t e, int64_t pos) { std::memcpy(out.bytes.data() + pos * eb, x.bytes.data() + e * eb, eb); });
        c.setOut(0, std::move(out));
    };
    k["pd_op.pad_grad"] = [forEachPadded](Context& c) {
        const DType t = c.outDType(0);
        const Tensor& x = c.x(0);
        std::optional<Tensor> gh;
        const Tensor& g = inDType(c.x(1), t, gh);
        const PadParams p = padParams(c, x.dims);
        c.requireElements(p.outDims);
        if (g.dims != p.outDims) c.fail("out_grad " + dimsString(g.dims) + " is not the padded shape " + dimsString(p.outDims));
        Tensor dx(t, x.dims);
        const size_t eb = static_cast<size_t>(dtypeBytes(t));
        forEachPadded(x.dims, p, [&](int64_t e, int64_t pos) { std::memcpy(dx.bytes.data() + e * eb, g.bytes.data() + pos * eb, eb); });
        c.setOut(0, std::move(dx));
    };
}

}  // namespace rx::exec::cpu
