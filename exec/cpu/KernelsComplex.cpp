// Complex kernels (c64, c128): as_complex/as_real/complex, real/imag/conj/angle/abs, arithmetic,
// cast and their grads; real tensors take the real paths these extend.
#include "exec/cpu/KernelContext.h"

#include <algorithm>
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

std::vector<Cplx> complexValues(const Tensor& t) {
    std::vector<Cplx> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = t.getComplex(i);
    return v;
}

Tensor complexTensor(const Context& c, size_t result, Dims d, const std::vector<Cplx>& v) {
    DType t = c.outDType(result);
    if (!isComplexDType(t)) c.fail("result " + std::to_string(result) + " is declared " + std::string(dtypeShortName(t)) + ", expected a complex dtype");
    Tensor out(t, std::move(d));
    for (int64_t i = 0; i < out.numel(); ++i) out.setComplex(i, v[i]);
    return out;
}

// as_complex: [..., 2] reals -> [...] complex; as_real the reverse. Both layouts are the same
// bytes (interleaved pairs), so these copy bytes and are exact.
Tensor asComplex(const Context& c, const Tensor& x, DType out) {
    if (!isComplexDType(out) || x.dtype != complexComponentDType(out))
        c.fail("as_complex of " + x.shapeString() + " to " + std::string(dtypeShortName(out)) + " (needs f32 -> c64 or f64 -> c128)");
    if (x.dims.empty() || x.dims.back() != 2) c.fail("as_complex needs a last dim of 2, got " + x.shapeString());
    Tensor r = x;
    r.dtype = out;
    r.dims.pop_back();
    return r;
}

Tensor asReal(const Context& c, const Tensor& x) {
    if (!isComplexDType(x.dtype)) c.fail("as_real of a real tensor " + x.shapeString());
    Tensor r = x;
    r.dtype = complexComponentDType(x.dtype);
    r.dims.push_back(2);
    return r;
}

}  // namespace

void registerComplexKernels(KernelTable& table) {
    auto& k = table.kernels;
    auto& complexAware = table.complexAware;
    // Complex helpers on real tensors: real and conj are the identity, imag is zero, angle is
    // 0 or pi. Complex tensors take the paths added by addComplexKernels.
    k["pd_op.real"] = [](Context& c) { c.setOutDoubles(0, c.x(0).dims, c.x(0).toDoubles()); };
    k["pd_op.conj"] = k["pd_op.real"];
    k["pd_op.imag"] = [](Context& c) { c.setOutDoubles(0, c.x(0).dims, std::vector<double>(static_cast<size_t>(c.x(0).numel()), 0.0)); };
    k["pd_op.angle"] = [](Context& c) {
        std::vector<double> v = c.x(0).toDoubles();
        for (double& e : v) e = e < 0 ? M_PI : 0.0;
        c.setOutDoubles(0, c.x(0).dims, v);
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
        Dims od = broadcastDims(c, re.dims, im.dims);
        std::vector<int64_t> ia = broadcastIndex(re.dims, od), ib = broadcastIndex(im.dims, od);
        std::vector<double> rv = re.toDoubles(), iv = im.toDoubles();
        std::vector<Cplx> out(ia.size());
        for (size_t i = 0; i < out.size(); ++i) out[i] = Cplx(rv[ia[i]], iv[ib[i]]);
        c.setOut(0, complexTensor(c, 0, od, out));
    });
    // complex_grad (x, y, out_grad) -> x_grad = real(out_grad), y_grad = imag(out_grad), each
    // summed back over the dims it was broadcast along.
    add("pd_op.complex_grad", [](Context& c) {
        const Tensor& x = c.x(0);
        const Tensor& y = c.x(1);
        const Tensor& g = c.x(2);
        std::vector<double> gr(static_cast<size_t>(g.numel())), gi(gr.size());
        for (int64_t i = 0; i < g.numel(); ++i) { Cplx v = g.getComplex(i); gr[i] = v.real(); gi[i] = v.imag(); }
        if (c.outputs.size() > 0 && !c.resultIsNull(0)) c.setOutDoubles(0, x.dims, reduceToShape(gr, g.dims, x.dims));
        if (c.outputs.size() > 1 && !c.resultIsNull(1)) c.setOutDoubles(1, y.dims, reduceToShape(gi, g.dims, y.dims));
    });
    extend("pd_op.real", [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) v[i] = x.getComplex(i).real();
        c.setOutDoubles(0, x.dims, v);
    });
    extend("pd_op.imag", [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) v[i] = x.getComplex(i).imag();
        c.setOutDoubles(0, x.dims, v);
    });
    extend("pd_op.conj", [](Context& c) {
        std::vector<Cplx> v = complexValues(c.x(0));
        for (Cplx& e : v) e = std::conj(e);
        c.setOut(0, complexTensor(c, 0, c.x(0).dims, v));
    });
    extend("pd_op.angle", [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) { Cplx e = x.getComplex(i); v[i] = std::atan2(e.imag(), e.real()); }
        c.setOutDoubles(0, x.dims, v);
    });
    extend("pd_op.abs", [](Context& c) {
        const Tensor& x = c.x(0);
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) v[i] = std::abs(x.getComplex(i));
        c.setOutDoubles(0, x.dims, v);
    });
    // real_grad / imag_grad (out_grad) -> complex(out_grad, 0) / complex(0, out_grad).
    add("pd_op.real_grad", [](Context& c) {
        const Tensor& g = c.x(c.operandCount() - 1);
        std::vector<Cplx> v(static_cast<size_t>(g.numel()));
        for (int64_t i = 0; i < g.numel(); ++i) v[i] = Cplx(g.get(i), 0.0);
        c.setOut(0, complexTensor(c, 0, g.dims, v));
    });
    add("pd_op.imag_grad", [](Context& c) {
        const Tensor& g = c.x(c.operandCount() - 1);
        std::vector<Cplx> v(static_cast<size_t>(g.numel()));
        for (int64_t i = 0; i < g.numel(); ++i) v[i] = Cplx(0.0, g.get(i));
        c.setOut(0, complexTensor(c, 0, g.dims, v));
    });
    // (x, out_grad): Paddle's complex angle/abs grads, zero where x is 0.
    // angle: out_grad * (-im, re) / |x|^2; abs: out_grad * x / |x|.
    auto complexUnaryGrad = [](Cplx (*f)(Cplx, double)) {
        return [f](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& g = c.x(c.operandCount() - 1);
            if (x.dims != g.dims) c.fail("gradient shape differs from the input");
            std::vector<Cplx> v(static_cast<size_t>(x.numel()));
            for (int64_t i = 0; i < x.numel(); ++i) v[i] = f(x.getComplex(i), g.get(i));
            c.setOut(0, complexTensor(c, 0, x.dims, v));
        };
    };
    if (!k.count("pd_op.angle_grad"))  // real x: atan2(0, x) is flat almost everywhere
        k["pd_op.angle_grad"] = [](Context& c) {
            const Tensor& x = c.x(0);
            c.setOutDoubles(0, x.dims, std::vector<double>(static_cast<size_t>(x.numel()), 0.0));
        };
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
        if (isComplexDType(out)) { c.setOut(0, complexTensor(c, 0, x.dims, complexValues(x))); return; }
        std::vector<double> v(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) {
            Cplx e = x.getComplex(i);
            v[i] = out == DType::Bool ? (e.real() != 0.0 || e.imag() != 0.0) : e.real();
        }
        c.setOutDoubles(0, x.dims, v);
    });
    // add / subtract / multiply / divide with broadcasting; a real operand reads as (x, 0).
    const char* const arith[] = {"pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide"};
    for (int op = 0; op < 4; ++op) {
        extend(arith[op], [op](Context& c) {
            const Tensor& a = c.x(0);
            const Tensor& b = c.x(1);
            Dims od = broadcastDims(c, a.dims, b.dims);
            std::vector<int64_t> ia = broadcastIndex(a.dims, od), ib = broadcastIndex(b.dims, od);
            std::vector<Cplx> av = complexValues(a), bv = complexValues(b), out(ia.size());
            for (size_t i = 0; i < out.size(); ++i) {
                Cplx x = av[ia[i]], y = bv[ib[i]];
                out[i] = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
            }
            c.setOut(0, complexTensor(c, 0, od, out));
        });
    }
    // (x, y, [out,] out_grad) -> x_grad, y_grad, Paddle's complex rules: multiply dx = g * conj(y),
    // dy = g * conj(x); divide dx = g / conj(y), dy = -g * conj(x / y^2); each summed back over
    // broadcast dims. A real x or y (mixed operands) gets the real part.
    const char* const arithGrad[] = {"pd_op.add_grad", "pd_op.subtract_grad", "pd_op.multiply_grad", "pd_op.divide_grad"};
    for (int op = 0; op < 4; ++op) {
        extend(arithGrad[op], [op](Context& c) {
            const Tensor& x = c.x(0);
            const Tensor& y = c.x(1);
            const Tensor& g = c.x(c.operandCount() - 1);
            const Dims& od = g.dims;
            std::vector<int64_t> ix = broadcastIndex(x.dims, od), iy = broadcastIndex(y.dims, od);
            std::vector<Cplx> xv = complexValues(x), yv = complexValues(y), gv = complexValues(g);
            std::vector<double> dxr(gv.size()), dxi(gv.size()), dyr(gv.size()), dyi(gv.size());
            for (size_t i = 0; i < gv.size(); ++i) {
                Cplx a = xv[ix[i]], b = yv[iy[i]], dx, dy;
                switch (op) {
                case 0: dx = gv[i]; dy = gv[i]; break;
                case 1: dx = gv[i]; dy = -gv[i]; break;
                case 2: dx = gv[i] * std::conj(b); dy = gv[i] * std::conj(a); break;
                default: dx = gv[i] / std::conj(b); dy = -gv[i] * std::conj(a / (b * b)); break;
                }
                dxr[i] = dx.real(); dxi[i] = dx.imag(); dyr[i] = dy.real(); dyi[i] = dy.imag();
            }
            auto store = [&](size_t result, const Dims& d, const std::vector<double>& re, const std::vector<double>& im) {
                if (c.outputs.size() <= result || c.resultIsNull(result)) return;
                std::vector<double> r = reduceToShape(re, od, d), i = reduceToShape(im, od, d);
                if (!isComplexDType(c.outDType(result))) { c.setOutDoubles(result, d, r); return; }
                std::vector<Cplx> v(r.size());
                for (size_t e = 0; e < v.size(); ++e) v[e] = Cplx(r[e], i[e]);
                c.setOut(result, complexTensor(c, result, d, v));
            };
            store(0, x.dims, dxr, dxi);
            store(1, y.dims, dyr, dyi);
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
