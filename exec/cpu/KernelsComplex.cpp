// Complex kernels (c64, c128): as_complex/as_real/complex, real/imag/conj/angle/abs, arithmetic,
// cast and their grads; real tensors take the real paths these extend.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>

namespace rx::exec::cpu {

namespace {

// Complex tensors (c64, c128) reach only the kernels named here; every other op with a
// complex operand or result is reported by unsupportedOps. Arithmetic is in
// std::complex<double>, stored in the value's dtype, like every real kernel.
using Cplx = std::complex<double>;

bool anyComplex(const Context& c) {
    for (size_t i = 0; i < c.operandCount(); ++i)
        if (c.has(i) && !c.inputs[i]->isList && isComplexDType(c.inputs[i]->tensor->dtype)) return true;
    for (size_t i = 0; i < c.o.results.size(); ++i) {
        const Type& t = c.resultType(i);
        if (t.kind == Type::Kind::DenseTensor && isComplexDType(t.dtype)) return true;
    }
    return false;
}

// A result of complex dtype (checked) and dims d with element i = fn(i), stored as computed.
template <class Fn>
Tensor complexTensor(const Context& c, size_t result, Dims d, Fn&& fn) {
    DType t = c.outDType(result);
    if (!isComplexDType(t)) c.fail("result " + std::to_string(result) + " is declared " + std::string(dtypeShortName(t)) + ", expected a complex dtype");
    Tensor out(t, std::move(d));
    for (int64_t i = 0; i < out.numel(); ++i) out.setComplex(i, fn(i));
    return out;
}

// The offset in a tensor of dims `in` broadcast to `out` of element k of `out` (by its
// coordinates, no per-element table).
class BroadcastOffset {
public:
    BroadcastOffset(const Dims& in, const Dims& out) : outStr_(stridesOf(out)), inStr_(out.size(), 0) {
        const Dims full = [&] { Dims f(out.size(), 1); for (size_t i = 0; i < in.size(); ++i) f[out.size() - in.size() + i] = in[i]; return f; }();
        const Dims s = stridesOf(full);
        for (size_t i = 0; i < out.size(); ++i) inStr_[i] = full[i] == 1 ? 0 : s[i];
    }
    int64_t operator()(int64_t k) const {
        int64_t off = 0;
        for (size_t i = 0; i < outStr_.size(); ++i) { off += (k / outStr_[i]) * inStr_[i]; k %= outStr_[i]; }
        return off;
    }

private:
    Dims outStr_, inStr_;
};

// as_complex: [..., 2] reals -> [...] complex; as_real the reverse. Both layouts are the same
// bytes (interleaved pairs), so these copy bytes and are exact.
Tensor asComplex(const Context& c, const Tensor& x, DType out) {
    if (!isComplexDType(out) || x.dtype != complexComponentDType(out))
        c.fail("as_complex of " + x.shapeString() + " to " + std::string(dtypeShortName(out)) + " (needs f32 -> c64 or f64 -> c128)");
    Tensor r = x;
    r.dtype = out;
    r.dims = asComplexDims(c, x.dims);
    return r;
}

Tensor asReal(const Context& c, const Tensor& x) {
    if (!isComplexDType(x.dtype)) c.fail("as_real of a real tensor " + x.shapeString());
    Tensor r = x;
    r.dtype = complexComponentDType(x.dtype);
    r.dims = asRealDims(x.dims);
    return r;
}

}  // namespace

void registerComplexKernels(KernelTable& table) {
    auto& k = table.kernels;
    auto& complexAware = table.complexAware;
    // Complex helpers on real tensors: real and conj are the identity, imag is zero, angle is
    // 0 or pi. Complex tensors take the paths added by addComplexKernels.
    k["pd_op.real"] = [](Context& c) { c.setOut(0, mapElements(c.x(0), c.outDType(0), [](auto v) { return v; })); };
    k["pd_op.conj"] = k["pd_op.real"];
    k["pd_op.imag"] = [](Context& c) { c.setOut(0, filledTensor(c.outDType(0), c.x(0).dims, 0.0)); };
    k["pd_op.angle"] = [](Context& c) {
        c.setOut(0, mapElements(c.x(0), c.outDType(0), [](auto v) { return v < 0 ? M_PI : 0.0; }));
    };

    auto add = [&](const std::string& name, Kernel kernel) { k[name] = std::move(kernel); complexAware.insert(name); };
    // Ops with a real kernel already: complex inputs/results take `complexPath`.
    auto extend = [&](const std::string& name, std::function<void(Context&)> complexPath) {
        Kernel real = k.at(name);
        add(name, [real, complexPath](Context& c) { if (anyComplex(c)) complexPath(c); else real(c); });
    };

    add("pd_op.as_complex", [](Context& c) { c.setOut(0, asComplex(c, c.x(0), c.outDType(0))); });
    add("pd_op.as_real", [](Context& c) { c.setOut(0, asReal(c, c.x(0))); });
    // Paddle: as_complex_grad invokes as_real(out_grad), as_real_grad invokes as_complex(out_grad).
    add("pd_op.as_complex_grad", [](Context& c) { c.setOut(0, asReal(c, c.x(c.operandCount() - 1))); });
    add("pd_op.as_real_grad", [](Context& c) { c.setOut(0, asComplex(c, c.x(c.operandCount() - 1), c.outDType(0))); });

    add("pd_op.complex", [](Context& c) {  // (real, imag), broadcast
        const Tensor& re = c.x(0);
        const Tensor& im = c.x(1);
        if (isComplexDType(re.dtype) || isComplexDType(im.dtype)) c.fail("complex of complex operands");
        const Dims od = c.broadcast(re.dims, im.dims);
        const DType t = c.outDType(0);
        if (!isComplexDType(t)) c.fail("result 0 is declared " + std::string(dtypeShortName(t)) + ", expected a complex dtype");
        Tensor out(t, od);
        const std::array<const Dims*, 2> ins{&re.dims, &im.dims};
        forEachBroadcast(od, ins, [&](int64_t k, const auto& off) { out.setComplex(k, Cplx(re.get(off[0]), im.get(off[1]))); });
        c.setOut(0, std::move(out));
    });
    // complex_grad (x, y, out_grad) -> x_grad = real(out_grad), y_grad = imag(out_grad), each
    // summed back over the dims it was broadcast along (sumToShape, in the result's dtype).
    add("pd_op.complex_grad", [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        auto part = [&](size_t result, const Dims& d, bool imag) {
            if (c.outputs.size() <= result || c.resultIsNull(result)) return;
            checkReducible(g.dims, d, c.failFn());
            Tensor full = generatedTensor(c.outDType(result), g.dims, [&](int64_t i) { const Cplx v = g.getComplex(i); return imag ? v.imag() : v.real(); });
            c.setOut(result, full.dims == d ? std::move(full) : sumToShape(full, d));
        };
        part(0, x.dims, false);
        part(1, y.dims, true);
    });
    extend("pd_op.real", [](Context& c) {
        const Tensor& x = c.x(0);
        c.setOut(0, generatedTensor(c.outDType(0), x.dims, [&](int64_t i) { return x.getComplex(i).real(); }));
    });
    extend("pd_op.imag", [](Context& c) {
        const Tensor& x = c.x(0);
        c.setOut(0, generatedTensor(c.outDType(0), x.dims, [&](int64_t i) { return x.getComplex(i).imag(); }));
    });
    extend("pd_op.conj", [](Context& c) {
        const Tensor& x = c.x(0);
        c.setOut(0, complexTensor(c, 0, x.dims, [&](int64_t i) { return std::conj(x.getComplex(i)); }));
    });
    extend("pd_op.angle", [](Context& c) {
        const Tensor& x = c.x(0);
        c.setOut(0, generatedTensor(c.outDType(0), x.dims, [&](int64_t i) { const Cplx e = x.getComplex(i); return std::atan2(e.imag(), e.real()); }));
    });
    extend("pd_op.abs", [](Context& c) {
        const Tensor& x = c.x(0);
        c.setOut(0, generatedTensor(c.outDType(0), x.dims, [&](int64_t i) { return std::abs(x.getComplex(i)); }));
    });
    // real_grad / imag_grad (out_grad) -> complex(out_grad, 0) / complex(0, out_grad).
    add("pd_op.real_grad", [](Context& c) {
        const Tensor& g = c.x(c.operandCount() - 1);
        c.setOut(0, complexTensor(c, 0, g.dims, [&](int64_t i) { return Cplx(g.get(i), 0.0); }));
    });
    add("pd_op.imag_grad", [](Context& c) {
        const Tensor& g = c.x(c.operandCount() - 1);
        c.setOut(0, complexTensor(c, 0, g.dims, [&](int64_t i) { return Cplx(0.0, g.get(i)); }));
    });
    // (x, out_grad): Paddle's complex angle/abs grads, zero where x is 0.
    // angle: out_grad * (-im, re) / |x|^2; abs: out_grad * x / |x|.
    auto complexUnaryGrad = [](Cplx (*f)(Cplx, double)) {
        return [f](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& g = c.x(c.operandCount() - 1);
            if (x.dims != g.dims) c.fail("gradient shape differs from the input");
            c.setOut(0, complexTensor(c, 0, x.dims, [&](int64_t i) { return f(x.getComplex(i), g.get(i)); }));
        };
    };
    if (!k.count("pd_op.angle_grad"))  // real x: atan2(0, x) is flat almost everywhere
        k["pd_op.angle_grad"] = [](Context& c) { c.setOut(0, filledTensor(c.outDType(0), c.x(0).dims, 0.0)); };
    extend("pd_op.angle_grad", complexUnaryGrad([](Cplx x, double g) {
        double r2 = std::norm(x);
        return r2 == 0 ? Cplx(0, 0) : Cplx(-g * x.imag() / r2, g * x.real() / r2);
    }));
    extend("pd_op.abs_grad", complexUnaryGrad([](Cplx x, double g) {
        double r = std::abs(x);
        return r == 0 ? Cplx(0, 0) : Cplx(g * x.real() / r, g * x.imag() / r);
    }));
    // cast: real -> complex gives (x, 0); complex -> real keeps the real part, complex -> bool
    // is (re != 0 || im != 0) (phi::dtype::complex's conversions); c64 <-> c128 keeps both.
    extend("pd_op.cast", [](Context& c) {
        const Tensor& x = c.x(0);
        DType out = c.outDType(0);
        if (isComplexDType(out)) { c.setOut(0, complexTensor(c, 0, x.dims, [&](int64_t i) { return x.getComplex(i); })); return; }
        c.setOut(0, generatedTensor(out, x.dims, [&](int64_t i) {
            const Cplx e = x.getComplex(i);
            return out == DType::Bool ? static_cast<double>(e.real() != 0.0 || e.imag() != 0.0) : e.real();
        }));
    });
    // add / subtract / multiply / divide with broadcasting; a real operand reads as (x, 0).
    const char* const arith[] = {"pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide"};
    for (int op = 0; op < 4; ++op) {
        extend(arith[op], [op](Context& c) {
            const Tensor& a = c.x(0);
            const Tensor& b = c.x(1);
            const Dims od = c.broadcast(a.dims, b.dims);
            const DType t = c.outDType(0);
            if (!isComplexDType(t)) c.fail("result 0 is declared " + std::string(dtypeShortName(t)) + ", expected a complex dtype");
            Tensor out(t, od);
            const std::array<const Dims*, 2> ins{&a.dims, &b.dims};
            forEachBroadcast(od, ins, [&](int64_t k2, const auto& off) {
                const Cplx x = a.getComplex(off[0]), y = b.getComplex(off[1]);
                out.setComplex(k2, op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y);
            });
            c.setOut(0, std::move(out));
        });
    }
    // (x, y, [out,] out_grad) -> x_grad, y_grad, Paddle's complex rules: multiply dx = g * conj(y),
    // dy = g * conj(x); divide dx = g / conj(y), dy = -g * conj(x / y^2); each summed back over
    // broadcast dims (per result element in complex<double>, in ascending order of out_grad).
    // A real x or y (mixed operands) gets the real part.
    const char* const arithGrad[] = {"pd_op.add_grad", "pd_op.subtract_grad", "pd_op.multiply_grad", "pd_op.divide_grad"};
    for (int op = 0; op < 4; ++op) {
        extend(arithGrad[op], [op](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& y = c.x(1);
            const Tensor& g = c.x(c.operandCount() - 1);
            const Dims& od = g.dims;
            const BroadcastOffset xAt(x.dims, od), yAt(y.dims, od);
            auto store = [&](size_t result, const Dims& d, bool forX) {
                if (c.outputs.size() <= result || c.resultIsNull(result)) return;
                checkReducible(od, d, c.failFn());
                const DType t = c.outDType(result);
                Tensor out(t, d);
                forEachReduction(od, d, [&](int64_t o, auto&& visit) {
                    Cplx acc(0, 0);
                    visit([&](int64_t k2) {
                        const Cplx a = x.getComplex(xAt(k2)), b = y.getComplex(yAt(k2)), gk = g.getComplex(k2);
                        switch (op) {
                        case 0: acc += gk; break;
                        case 1: acc += forX ? gk : -gk; break;
                        case 2: acc += forX ? gk * std::conj(b) : gk * std::conj(a); break;
                        default: acc += forX ? gk / std::conj(b) : -gk * std::conj(a / (b * b)); break;
                        }
                    });
                    if (isComplexDType(t)) out.setComplex(o, acc);
                    else out.set(o, acc.real());
                });
                c.setOut(result, std::move(out));
            };
            store(0, x.dims, true);
            store(1, y.dims, false);
        });
    }
    // Kernels that move bytes without reading them as numbers work on complex as they are;
    // full / full_like store (value, 0).
    for (const char* name : {"pd_op.assign", "pd_op.fetch", "builtin.shadow_output", "builtin.combine", "builtin.split",
                             "builtin.slice", "pd_op.full", "pd_op.full_like", "pd_op.reshape", "pd_op.view_shape", "pd_op.squeeze", "pd_op.unsqueeze",
                             "pd_op.flatten", "pd_op.transpose", "pd_op.expand", "pd_op.concat", "pd_op.stack",
                             "pd_op.split", "pd_op.split_with_num"})
        if (k.count(name)) complexAware.insert(name);
}

}  // namespace rx::exec::cpu
