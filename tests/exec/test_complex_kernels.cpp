// Complex64/complex128 in the CPU executor: storage, each complex kernel against hand-computed
// values, the complex `_grad` kernels against central differences (Paddle's convention: the
// gradient of a real loss L w.r.t. complex x is dL/dRe(x) + i dL/dIm(x)), and a small
// as_complex -> multiply -> as_real training step that survives recompute bit for bit.
#include <QtTest>

#include <cmath>
#include <complex>
#include <cstring>

#include "algorithms/Solver.h"
#include "exec/cpu/CpuExecutor.h"
#include "exec/Verify.h"
#include "model/Diagnostic.h"

using namespace rx;
using namespace rx::exec;

namespace {

using Dims = std::vector<int64_t>;
using Cplx = std::complex<double>;

Tensor complexTensor(DType t, Dims d, const std::vector<Cplx>& v) {
    Tensor out(t, std::move(d));
    for (size_t i = 0; i < v.size(); ++i) out.setComplex(static_cast<int64_t>(i), v[i]);
    return out;
}

struct P {
    Program p;
    RunInputs in;
    ValueId data(const std::string& name, const Tensor& t) {
        OpId op = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{p.tensorType(t.dtype, t.dims)}, {{"name", Attribute::string(name)}});
        in.byName[name] = t;
        return p.op(op).results[0];
    }
    std::vector<ValueId> op(const std::string& name, std::vector<ValueId> operands, std::vector<TypeId> results,
                            std::vector<NamedAttribute> attrs = {}) {
        OpId id = p.appendOp(0, name, operands, results, std::move(attrs));
        const auto& r = p.op(id).results;
        return {r.begin(), r.end()};
    }
    TypeId t(DType d, Dims dims) { return p.tensorType(d, dims); }
    void fetch(ValueId v) { op("pd_op.fetch", {v}, {p.value(v).type}, {{"name", Attribute::string(p.value(v).name)}}); }
    RunResult run() { CpuExecutor ex; return ex.run(p, in, {}); }
};

std::vector<Cplx> complexOf(const Tensor& t) {
    std::vector<Cplx> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) v[i] = t.getComplex(i);
    return v;
}

void expectNear(const std::vector<Cplx>& got, const std::vector<Cplx>& want, double tol = 1e-6) {
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(got[i] - want[i]) <= tol))
            QFAIL(qPrintable(QString("element %1: got (%2, %3), want (%4, %5)")
                                 .arg(i).arg(got[i].real()).arg(got[i].imag()).arg(want[i].real()).arg(want[i].imag())));
}

// ---- finite differences ----
struct GradCase {
    std::string forward, grad;
    std::vector<Tensor> inputs;                 // f64 or c128
    DType outDType; Dims outDims;
    std::vector<std::string> gradOperands;      // "x<i>" or "g"
    std::vector<int> gradResultFor;             // input index per grad result
};

// L = sum Re(conj(G) * out) = sum(Re G * Re out + Im G * Im out).
double loss(const GradCase& gc, const std::vector<Tensor>& xs, const Tensor& g) {
    P b;
    std::vector<ValueId> vs;
    for (size_t i = 0; i < xs.size(); ++i) vs.push_back(b.data("x" + std::to_string(i), xs[i]));
    b.fetch(b.op(gc.forward, vs, {b.t(gc.outDType, gc.outDims)})[0]);
    RunResult run = b.run();
    const Tensor& out = run.fetches.at(0).tensor;
    double l = 0;
    for (int64_t k = 0; k < out.numel(); ++k) {
        Cplx o = out.getComplex(k), w = g.getComplex(k);
        l += w.real() * o.real() + w.imag() * o.imag();
    }
    return l;
}

void checkGrad(const GradCase& gc) {
    Tensor g(gc.outDType, gc.outDims);
    for (int64_t k = 0; k < g.numel(); ++k) g.setComplex(k, Cplx(0.5 + 0.25 * k, -0.75 + 0.5 * k));
    P b;
    std::vector<ValueId> xs;
    for (size_t i = 0; i < gc.inputs.size(); ++i) xs.push_back(b.data("x" + std::to_string(i), gc.inputs[i]));
    ValueId gv = b.data("g", g);
    std::vector<ValueId> operands;
    for (const std::string& t : gc.gradOperands) operands.push_back(t == "g" ? gv : xs.at(std::stoi(t.substr(1))));
    std::vector<TypeId> results;
    for (int i : gc.gradResultFor) results.push_back(b.t(gc.inputs[i].dtype, gc.inputs[i].dims));
    for (ValueId r : b.op(gc.grad, operands, results)) b.fetch(r);
    RunResult analytic = b.run();
    const double h = 1e-6;
    for (size_t r = 0; r < gc.gradResultFor.size(); ++r) {
        int which = gc.gradResultFor[r];
        const Tensor& x = gc.inputs[which];
        QCOMPARE(analytic.fetches[r].tensor.dtype, x.dtype);
        std::vector<Cplx> numeric(static_cast<size_t>(x.numel()));
        for (int64_t k = 0; k < x.numel(); ++k) {
            for (int part = 0; part < (isComplexDType(x.dtype) ? 2 : 1); ++part) {
                Cplx step = part == 0 ? Cplx(h, 0) : Cplx(0, h);
                std::vector<Tensor> plus = gc.inputs, minus = gc.inputs;
                plus[which].setComplex(k, x.getComplex(k) + step);
                minus[which].setComplex(k, x.getComplex(k) - step);
                double d = (loss(gc, plus, g) - loss(gc, minus, g)) / (2 * h);
                numeric[k] += part == 0 ? Cplx(d, 0) : Cplx(0, d);
            }
        }
        expectNear(complexOf(analytic.fetches[r].tensor), numeric, 1e-6);
    }
}

Tensor c128(Dims d, std::vector<Cplx> v) { return complexTensor(DType::Complex128, std::move(d), v); }
Tensor f64(Dims d, std::vector<double> v) { return Tensor::fromDoubles(DType::Float64, std::move(d), v); }

}  // namespace

class TestComplexKernels : public QObject {
    Q_OBJECT
private slots:
    void storageIsInterleavedPairs() {
        Tensor t = c128({2}, {{1, 2}, {-3, 0.5}});
        QCOMPARE(t.byteSize(), int64_t(32));
        double raw[4];
        std::memcpy(raw, t.bytes.data(), 32);
        QCOMPARE(raw[1], 2.0);
        QCOMPARE(raw[2], -3.0);
        Tensor s(DType::Complex64, {3});
        QCOMPARE(s.byteSize(), int64_t(24));
        s.set(1, 2.5);  // real set stores (v, 0)
        QCOMPARE(s.getComplex(1), Cplx(2.5, 0));
        QCOMPARE(s.get(1), 2.5);
        QCOMPARE(s.shapeString(), std::string("3xc64"));
        // seeded inputs fill both parts, deterministically
        Tensor a = seededInput("z", DType::Complex64, {8}, 7), b = seededInput("z", DType::Complex64, {8}, 7);
        QVERIFY(a.bitwiseEqual(b));
        bool imag = false;
        for (int64_t i = 0; i < 8; ++i) imag = imag || a.getComplex(i).imag() != 0;
        QVERIFY(imag);
    }
    void asComplexAsRealAndComplex() {
        P b;
        ValueId x = b.data("x", Tensor::fromDoubles(DType::Float32, {2, 2}, {1, 2, 3, 4}));
        ValueId z = b.op("pd_op.as_complex", {x}, {b.t(DType::Complex64, {2})})[0];
        b.fetch(z);
        b.fetch(b.op("pd_op.as_real", {z}, {b.t(DType::Float32, {2, 2})})[0]);
        ValueId re = b.data("re", f64({2, 1}, {1, 2}));
        ValueId im = b.data("im", f64({2}, {10, 20}));
        b.fetch(b.op("pd_op.complex", {re, im}, {b.t(DType::Complex128, {2, 2})})[0]);
        RunResult r = b.run();
        expectNear(complexOf(r.fetches[0].tensor), {{1, 2}, {3, 4}});
        QVERIFY(r.fetches[1].tensor.bitwiseEqual(b.in.byName["x"]));
        expectNear(complexOf(r.fetches[2].tensor), {{1, 10}, {1, 20}, {2, 10}, {2, 20}});
    }
    void asComplexRejectsBadShapes() {
        P b;
        ValueId x = b.data("x", Tensor::fromDoubles(DType::Float32, {2, 3}, {1, 2, 3, 4, 5, 6}));
        b.fetch(b.op("pd_op.as_complex", {x}, {b.t(DType::Complex64, {2})})[0]);
        QVERIFY_THROWS_EXCEPTION(Error, b.run());
    }
    void unaryOnComplex() {
        P b;
        ValueId z = b.data("z", complexTensor(DType::Complex64, {3}, {{3, 4}, {-1, 0}, {0, -2}}));
        const char* toReal[] = {"pd_op.real", "pd_op.imag", "pd_op.angle", "pd_op.abs"};
        for (const char* op : toReal) b.fetch(b.op(op, {z}, {b.t(DType::Float32, {3})})[0]);
        b.fetch(b.op("pd_op.conj", {z}, {b.t(DType::Complex64, {3})})[0]);
        RunResult r = b.run();
        for (int i = 0; i < 4; ++i) QCOMPARE(r.fetches[i].tensor.dtype, DType::Float32);
        expectNear(complexOf(r.fetches[0].tensor), {3, -1, 0});
        expectNear(complexOf(r.fetches[1].tensor), {4, 0, -2});
        expectNear(complexOf(r.fetches[2].tensor), {std::atan2(4.0, 3.0), M_PI, -M_PI / 2});
        expectNear(complexOf(r.fetches[3].tensor), {5, 1, 2});
        expectNear(complexOf(r.fetches[4].tensor), {{3, -4}, {-1, 0}, {0, 2}});
    }
    void arithmeticOnComplex() {
        P b;
        ValueId a = b.data("a", c128({2}, {{1, 2}, {0, 1}}));
        ValueId c = b.data("c", c128({1}, {{3, -1}}));
        const char* ops[] = {"pd_op.add", "pd_op.subtract", "pd_op.multiply", "pd_op.divide"};
        for (const char* op : ops) b.fetch(b.op(op, {a, c}, {b.t(DType::Complex128, {2})})[0]);
        RunResult r = b.run();
        expectNear(complexOf(r.fetches[0].tensor), {{4, 1}, {3, 0}}, 1e-15);
        expectNear(complexOf(r.fetches[1].tensor), {{-2, 3}, {-3, 2}}, 1e-15);
        expectNear(complexOf(r.fetches[2].tensor), {{5, 5}, {1, 3}}, 1e-15);
        // (1+2i)/(3-i) = (1+7i)/10; i/(3-i) = (-1+3i)/10
        expectNear(complexOf(r.fetches[3].tensor), {{0.1, 0.7}, {-0.1, 0.3}}, 1e-15);
    }
    void castToAndFromComplex() {
        P b;
        ValueId x = b.data("x", Tensor::fromDoubles(DType::Float32, {2}, {1.5, -2}));
        b.fetch(b.op("pd_op.cast", {x}, {b.t(DType::Complex64, {2})}, {{"dtype", Attribute::dataType("complex64")}})[0]);
        ValueId z = b.data("z", complexTensor(DType::Complex64, {3}, {{0, 0}, {0, 1}, {2.5, -1}}));
        b.fetch(b.op("pd_op.cast", {z}, {b.t(DType::Float32, {3})}, {{"dtype", Attribute::dataType("float32")}})[0]);
        b.fetch(b.op("pd_op.cast", {z}, {b.t(DType::Bool, {3})}, {{"dtype", Attribute::dataType("bool")}})[0]);
        b.fetch(b.op("pd_op.cast", {z}, {b.t(DType::Complex128, {3})}, {{"dtype", Attribute::dataType("complex128")}})[0]);
        RunResult r = b.run();
        expectNear(complexOf(r.fetches[0].tensor), {{1.5, 0}, {-2, 0}});
        expectNear(complexOf(r.fetches[1].tensor), {0, 0, 2.5});
        expectNear(complexOf(r.fetches[2].tensor), {0, 1, 1});
        expectNear(complexOf(r.fetches[3].tensor), {{0, 0}, {0, 1}, {2.5, -1}});
    }
    void opsWithoutComplexKernelsAreNamed() {
        P b;
        ValueId z = b.data("z", c128({2}, {{1, 1}, {2, 2}}));
        b.fetch(b.op("pd_op.exp", {z}, {b.t(DType::Complex128, {2})})[0]);
        b.fetch(b.op("pd_op.reshape", {z}, {b.t(DType::Complex128, {2, 1})}, {{"shape", Attribute::intArray({2, 1})}})[0]);
        CpuExecutor ex;
        QCOMPARE(ex.unsupportedOps(b.p), std::vector<std::string>{"pd_op.exp (on complex tensors)"});
        QVERIFY_THROWS_EXCEPTION(Error, ex.run(b.p, b.in, {}));
    }
    void gradsMatchFiniteDifferences() {
        Tensor z = c128({4}, {{0.3, 0.4}, {-0.7, 0.2}, {0.5, -0.9}, {-0.6, -0.1}});
        std::vector<GradCase> cases = {
            {"pd_op.as_complex", "pd_op.as_complex_grad", {f64({2, 2}, {0.1, 0.2, -0.3, 0.4})}, DType::Complex128, {2}, {"g"}, {0}},
            {"pd_op.as_real", "pd_op.as_real_grad", {z}, DType::Float64, {4, 2}, {"g"}, {0}},
            {"pd_op.complex", "pd_op.complex_grad", {f64({2, 3}, {1, 2, 3, 4, 5, 6}), f64({3}, {-1, 0.5, 2})}, DType::Complex128, {2, 3},
             {"x0", "x1", "g"}, {0, 1}},
            {"pd_op.real", "pd_op.real_grad", {z}, DType::Float64, {4}, {"g"}, {0}},
            {"pd_op.imag", "pd_op.imag_grad", {z}, DType::Float64, {4}, {"g"}, {0}},
            {"pd_op.angle", "pd_op.angle_grad", {z}, DType::Float64, {4}, {"x0", "g"}, {0}},
            {"pd_op.abs", "pd_op.abs_grad", {z}, DType::Float64, {4}, {"x0", "g"}, {0}},
        };
        Tensor a = c128({2, 2}, {{0.3, 0.4}, {-0.7, 0.2}, {0.5, -0.9}, {-0.6, -0.1}}), b = c128({2}, {{1.2, -0.5}, {-0.8, 0.9}});
        for (const char* op : {"add", "subtract", "multiply", "divide"})
            cases.push_back({std::string("pd_op.") + op, std::string("pd_op.") + op + "_grad", {a, b}, DType::Complex128, {2, 2},
                             {"x0", "x1", "g"}, {0, 1}});
        for (const GradCase& gc : cases) {
            checkGrad(gc);
            if (QTest::currentTestFailed()) QFAIL(gc.grad.c_str());
        }
    }
    void everySeedRecomputableOpHasAKernel() {
        // The seed's DEFAULT_RECOMPUTABLE_OPS list, read from the seed source itself.
        QFile f(QString(RX_SHARED_DIR) + "/seed/recompute.py.txt");
        QVERIFY(f.open(QIODevice::ReadOnly));
        std::string text = f.readAll().toStdString();
        size_t at = text.find("DEFAULT_RECOMPUTABLE_OPS");
        QVERIFY(at != std::string::npos);
        size_t open = text.find("= [", at), close = text.find(']', open);
        QVERIFY(open != std::string::npos && close != std::string::npos);
        std::vector<std::string> all = CpuExecutor::supportedOps(), missing;
        int listed = 0;
        for (size_t q = text.find('"', open); q < close; q = text.find('"', q + 1)) {
            size_t end = text.find('"', q + 1);
            std::string op = text.substr(q + 1, end - q - 1);
            q = end;
            ++listed;
            if (!std::binary_search(all.begin(), all.end(), op)) missing.push_back(op);
        }
        QVERIFY(listed > 50);
        std::string text2;
        for (const std::string& m : missing) text2 += m + " ";
        QVERIFY2(missing.empty(), text2.c_str());
    }
    void complexStepSurvivesRecompute() {
        // Forward: z = as_complex(x) * as_complex(w), out = as_real(z). Backward (Paddle's
        // complex multiply_grad: dx = g * conj(w), dw = g * conj(x)) reads the forward's
        // as_complex results, which the seed recomputes instead of keeping.
        P b;
        const Dims pairs{4, 8, 2}, cd{4, 8};
        ValueId x = b.data("x", Tensor::fromDoubles(DType::Float32, pairs, std::vector<double>(64, 0.0)));
        ValueId w = b.data("w", Tensor::fromDoubles(DType::Float32, pairs, std::vector<double>(64, 0.0)));
        b.in.byName.clear();  // seeded random inputs
        TypeId c = b.t(DType::Complex64, cd), f = b.t(DType::Float32, pairs);
        ValueId cx = b.op("pd_op.as_complex", {x}, {c})[0];
        ValueId cw = b.op("pd_op.as_complex", {w}, {c})[0];
        ValueId z = b.op("pd_op.multiply", {cx, cw}, {c})[0];
        ValueId out = b.op("pd_op.as_real", {z}, {f})[0];
        int fwdEnd = int(b.p.globalBlock().ops.size()) - 1;
        ValueId og = b.op("pd_op.full", {}, {f}, {{"shape", Attribute::intArray(pairs)}, {"value", Attribute::float32(1)}})[0];
        int bwdStart = int(b.p.globalBlock().ops.size());
        ValueId gz = b.op("pd_op.as_complex", {og}, {c})[0];
        ValueId dx = b.op("pd_op.multiply", {gz, b.op("pd_op.conj", {cw}, {c})[0]}, {c})[0];
        ValueId dw = b.op("pd_op.multiply", {gz, b.op("pd_op.conj", {cx}, {c})[0]}, {c})[0];
        b.fetch(out);
        b.fetch(b.op("pd_op.as_real", {dx}, {f})[0]);
        b.fetch(b.op("pd_op.as_real", {dw}, {f})[0]);
        auto program = std::make_shared<Program>(b.p);
        program->finish();
        RecomputeSpec spec;
        spec.fwdOpEndIdx = fwdEnd;
        spec.backwardOpStartIdx = bwdStart;
        spec.inputs = {x, w};
        spec.outputs = {out};
        spec.gradOutputs = {og};
        CpuExecutor ex;
        QVERIFY(ex.unsupportedOps(*program).empty());
        RunResult run = ex.run(*program, b.in, {});
        QCOMPARE(run.fetches.size(), size_t(3));
        // og pairs (1, 1) are 1+i, so dx = (1+i) * conj(a+bi) = (a+b) + (a-b)i per element of w
        const Tensor wIn = seededInput("w", DType::Float32, pairs, 0);
        for (int64_t m = 0; m < 32; ++m) {
            double a = wIn.get(2 * m), bb = wIn.get(2 * m + 1);
            QCOMPARE(float(run.fetches[1].tensor.get(2 * m)), float(a + bb));
            QCOMPARE(float(run.fetches[1].tensor.get(2 * m + 1)), float(a - bb));
        }
        RecomputeSolver solver(program, spec);
        SolveResult solved = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(solved.ok(), solved.error.c_str());
        QVERIFY(!solved.clones.empty());
        VerifyOptions vo;
        vo.residentValues = spec.inputs;
        VerifyReport r = verifyPrograms(*program, *solved.rewritten, vo);
        QVERIFY2(r.equivalent, r.summary().c_str());
        QCOMPARE(r.compared, 3);
        QCOMPARE(r.bitwiseEqual, 3);
    }
};

QTEST_GUILESS_MAIN(TestComplexKernels)
#include "test_complex_kernels.moc"
