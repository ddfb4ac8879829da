// Kernels compute in the value's dtype (issue 21 item 4): the heap a CPU run holds beyond its
// tensor storage (what the StorageMeter counts) stays small, so f32 values are not copied into
// whole double vectors (which would hold 2x the storage per operand and result).
#include <QtTest>

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <new>

#include "exec/cpu/CpuExecutor.h"
#include "model/PirReader.h"
#include "support/ProgramBuilder.h"

// Every heap byte this process holds (operator new / delete; malloc_usable_size on both sides),
// and its high-water mark since the last reset.
namespace {
std::atomic<int64_t> gHeapBytes{0}, gHeapPeak{0};
void noteAllocated(void* p) {
    const int64_t now = gHeapBytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p))) + static_cast<int64_t>(malloc_usable_size(p));
    int64_t seen = gHeapPeak.load();
    while (now > seen && !gHeapPeak.compare_exchange_weak(seen, now)) {}
}
}  // namespace

void* operator new(std::size_t n) {
    void* p = std::malloc(n ? n : 1);
    if (!p) throw std::bad_alloc();
    noteAllocated(p);
    return p;
}
void operator delete(void* p) noexcept {
    if (!p) return;
    gHeapBytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

using namespace rx;
using namespace rx::exec;

namespace {
std::string tensorType(const char* dims, const char* dtype = "f32") { return std::string("builtin.tensor<") + dims + "x" + dtype + ">"; }

// A chain of the ops a generated transformer runs most (matmul, broadcast add and divide, exp,
// a reduction, transpose, expand, dropout, cast), on 1024x1024 values of `dtype` (4 MiB in f32).
std::string chainProgram(const char* dt, const char* dtypeName) {
    const std::string m = tensorType("1024x1024", dt), row = tensorType("1024", dt), col = tensorType("1024x1", dt);
    auto data = [&](int id, const char* name) {
        return "(%" + std::to_string(id) + ") = \"pd_op.data\" () {dtype:(pd_op.DataType)" + dtypeName + ",name:\"" + name +
               "\",place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1024,1024],stop_gradient:[false]} : () -> " + m + "\n";
    };
    std::string t = data(0, "x") + data(1, "w");
    t += "(%2) = \"pd_op.matmul\" (%0, %1) {stop_gradient:[false],transpose_x:false,transpose_y:false} : (" + m + ", " + m + ") -> " + m + "\n";
    t += "(%3) = \"pd_op.full\" () {dtype:(pd_op.DataType)" + std::string(dtypeName) +
         ",place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1024],stop_gradient:[true],value:(Float)0.5} : () -> " + row + "\n";
    t += "(%4) = \"pd_op.add\" (%2, %3) {stop_gradient:[false]} : (" + m + ", " + row + ") -> " + m + "\n";
    t += "(%5) = \"pd_op.scale\" (%4) {bias:(Float)0,bias_after_scale:true,scale:(Float)0.001,stop_gradient:[false]} : (" + m + ") -> " + m + "\n";
    t += "(%6) = \"pd_op.exp\" (%5) {stop_gradient:[false]} : (" + m + ") -> " + m + "\n";
    t += "(%7) = \"pd_op.full_int_array\" () {dtype:(pd_op.DataType)int64,place:(pd_op.Place)Place(cpu),stop_gradient:[true],"
         "value:[(Int64)-1]} : () -> builtin.tensor<1xi64>\n";
    t += "(%8) = \"pd_op.sum\" (%6, %7) {dtype:(pd_op.DataType)Undefined,keepdim:true,stop_gradient:[false]} : (" + m +
         ", builtin.tensor<1xi64>) -> " + col + "\n";
    t += "(%9) = \"pd_op.divide\" (%6, %8) {stop_gradient:[false]} : (" + m + ", " + col + ") -> " + m + "\n";
    t += "(%10) = \"pd_op.transpose\" (%9) {perm:[(Int32)1,(Int32)0],stop_gradient:[false]} : (" + m + ") -> " + m + "\n";
    t += "(%11) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],"
         "stop_gradient:[true],value:(Float)1} : () -> builtin.tensor<1xf32>\n";
    t += "(%12, %13) = \"pd_op.dropout\" (%10, %11) {fix_seed:false,is_test:false,mode:\"upscale_in_train\",p:(Float)0.1,"
         "seed:(Int32)0,stop_gradient:[false,true]} : (" + m + ", builtin.tensor<1xf32>) -> " + m + ", " + tensorType("1024x1024", "u8") + "\n";
    t += "(%14) = \"pd_op.multiply\" (%12, %0) {stop_gradient:[false]} : (" + m + ", " + m + ") -> " + m + "\n";
    t += "(%15) = \"pd_op.fetch\" (%14) {col:(Int32)0,name:\"out\"} : (" + m + ") -> " + m + "\n";
    return t;
}

// One norm op on seeded f32 inputs (pd_op.data ops named after their operands), every result
// fetched. `inputs` are the operands' dims, `results` the results' dims.
Program normProgram(const std::string& op, const std::vector<Dims>& inputs, const std::vector<Dims>& results,
                    std::vector<NamedAttribute> attrs) {
    rx::test::ProgramBuilder b;
    std::vector<ValueId> operands;
    for (size_t i = 0; i < inputs.size(); ++i) operands.push_back(b.data("in" + std::to_string(i), DType::Float32, inputs[i]));
    std::vector<std::pair<DType, Dims>> types;
    for (const Dims& d : results) types.push_back({DType::Float32, d});
    for (ValueId v : b.tensorOps(op, operands, types, std::move(attrs))) b.fetch(v);
    return std::move(b.p);
}

struct HeapFigures {
    int64_t storagePeak = 0;  // the StorageMeter's peak (RunResult::peakBytes)
    int64_t heapAbove = 0;    // heap high-water mark during the run above the heap held before it
};

// `sinkFetches`: fetched values are handed to a sink that keeps nothing (no copy outlives
// the call), so the heap holds only the run's own storage and bookkeeping.
HeapFigures runMeasured(const Program& p, bool sinkFetches = false) {
    CpuExecutor cpu;
    RunOptions ro;
    ro.recordOpTimes = false;
    if (sinkFetches) ro.fetchSink = [](const FetchView&) {};
    const int64_t before = gHeapBytes.load();
    gHeapPeak.store(before);
    RunResult r = cpu.run(p, {}, ro);
    HeapFigures f;
    f.storagePeak = r.peakBytes;
    f.heapAbove = gHeapPeak.load() - before;
    return f;
}
std::vector<NamedAttribute> convAttrs() {
    return {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({1, 1})},
            {"dilations", Attribute::intArray({1, 1})}, {"groups", Attribute::int32(1)},
            {"data_format", Attribute::string("NCHW")}, {"padding_algorithm", Attribute::string("EXPLICIT")}};
}

// One op (or a forward and its grad) of the families issue 21 converted last, on values of
// a few MiB each, built with the shared ProgramBuilder (inputs seeded by the run; index inputs
// kept in range).
Program opProgram(const std::string& which, DType t) {
    rx::test::ProgramBuilder b;
    const DType I = DType::Int64;
    if (which == "conv2d" || which == "conv2d_grad") {  // 8 MiB images (f32), 3x3 filter
        const Dims xd{16, 32, 64, 64}, fd{32, 32, 3, 3};
        ValueId x = b.data("x", t, xd), f = b.data("f", t, fd);
        if (which == "conv2d") { b.fetch(b.tensorOps("pd_op.conv2d", {x, f}, {{t, xd}}, convAttrs())[0]); b.p.finish(); return std::move(b.p); }
        ValueId gy = b.data("gy", t, xd);
        auto r = b.tensorOps("pd_op.conv2d_grad", {x, f, gy}, {{t, xd}, {t, fd}}, convAttrs());
        b.fetch(r[0]); b.fetch(r[1]);
    } else if (which == "pool2d") {  // max pool forward, avg pool forward and grad
        const Dims xd{16, 32, 64, 64}, od{16, 32, 32, 32};
        ValueId x = b.data("x", t, xd), ks = b.tensorOps("pd_op.full_int_array", {}, {{I, {2}}}, {{"value", Attribute::intArray({2, 2})}})[0];
        auto pool = [&](const char* type) {
            return std::vector<NamedAttribute>{{"strides", Attribute::intArray({2, 2})}, {"paddings", Attribute::intArray({0, 0})},
                                               {"pooling_type", Attribute::string(type)}, {"exclusive", Attribute::boolean(true)}};
        };
        b.fetch(b.tensorOps("pd_op.pool2d", {x, ks}, {{t, od}}, pool("max"))[0]);
        ValueId y = b.tensorOps("pd_op.pool2d", {x, ks}, {{t, od}}, pool("avg"))[0], gy = b.data("gy", t, od);
        b.fetch(b.tensorOps("pd_op.pool2d_grad", {x, y, gy, ks}, {{t, xd}}, pool("avg"))[0]);
    } else if (which == "flash_attn") {  // forward and grad, 2 MiB per operand (f32)
        const Dims qd{2, 512, 8, 64}, ld{2, 8, 512};
        ValueId q = b.data("q", t, qd), k = b.data("k", t, qd), v = b.data("v", t, qd);
        auto fw = b.tensorOps("pd_op.flash_attn", {q, k, v}, {{t, qd}, {t, {0}}, {DType::Float32, ld}, {I, {2}}},
                       {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(true)}, {"return_softmax", Attribute::boolean(false)},
                        {"is_test", Attribute::boolean(false)}});
        ValueId gy = b.data("gy", t, qd);
        auto bw = b.tensorOps("pd_op.flash_attn_grad", {q, k, v, fw[0], fw[2], fw[3], kNoId, gy}, {{t, qd}, {t, qd}, {t, qd}},
                       {{"dropout", Attribute::float32(0)}, {"causal", Attribute::boolean(true)}});
        b.fetch(bw[0]); b.fetch(bw[1]); b.fetch(bw[2]);
    } else if (which == "gather_scatter") {  // 16 MiB tables (f32): gather, its grad, scatter-add, put_along_axis
        const Dims xd{4096, 1024}, gd{2048, 1024};
        ValueId x = b.data("x", t, xd), idx = b.data("index", I, {2048});
        ValueId g = b.tensorOps("pd_op.gather", {x, idx}, {{t, gd}}, {{"axis", Attribute::int32(0)}})[0];
        b.fetch(b.tensorOps("pd_op.gather_grad", {x, idx, g}, {{t, xd}}, {{"axis", Attribute::int32(0)}})[0]);
        ValueId up = b.data("updates", t, gd);
        b.fetch(b.tensorOps("pd_op.scatter", {x, idx, up}, {{t, xd}}, {{"overwrite", Attribute::boolean(false)}})[0]);
        ValueId along = b.data("along", I, {16, 1024}), vals = b.data("vals", t, {1, 1024});
        b.fetch(b.tensorOps("pd_op.put_along_axis", {x, along, vals}, {{t, xd}}, {{"axis", Attribute::int32(0)}, {"reduce", Attribute::string("add")}})[0]);
    } else if (which == "topk_cumsum") {  // 16 MiB (f32): topk and its grad, argmax, cumsum and its grad
        const Dims xd{4096, 1024}, kd{4096, 16};
        ValueId x = b.data("x", t, xd);
        auto tk = b.tensorOps("pd_op.topk", {x}, {{t, kd}, {I, kd}}, {{"k", Attribute::int32(16)}, {"axis", Attribute::int32(-1)}});
        b.fetch(b.tensorOps("pd_op.topk_grad", {x, tk[1], tk[0]}, {{t, xd}}, {{"axis", Attribute::int32(-1)}})[0]);
        b.fetch(b.tensorOps("pd_op.argmax", {x}, {{I, {4096}}}, {{"axis", Attribute::int64(-1)}, {"keepdims", Attribute::boolean(false)}})[0]);
        ValueId cs = b.tensorOps("pd_op.cumsum", {x}, {{t, xd}}, {{"axis", Attribute::int32(-1)}})[0];
        b.fetch(b.tensorOps("pd_op.cumsum_grad", {x, cs}, {{t, xd}}, {{"axis", Attribute::int32(-1)}})[0]);
    }
    b.p.finish();  // readers indexed: seeded index inputs are bounded by what they index
    return std::move(b.p);
}
}  // namespace

class KernelMemoryTest : public QObject {
    Q_OBJECT
private slots:
    // Each converted family computes on the storage it is given: the run's heap peak (fetched
    // copies discarded) is its tensor storage plus bounded scratch (an im2col window of 256 KiB
    // in f32, one lane or row of doubles, flash_attn_grad's 2 x sk x d doubles per kv head) --
    // measured 1.000x (pool, gather/scatter, topk/cumsum) to 1.03x (conv2d 1.02x: its
    // windows; flash_attn f32 1.03x: 2 x 512 x 64 doubles per kv head); at most 1.05x, where the
    // double copies of every operand and result held 2-3x.
    void opFamiliesHoldTheirStorageOnly_data() {
        QTest::addColumn<QString>("which");
        QTest::addColumn<int>("dtype");
        for (const char* w : {"conv2d", "conv2d_grad", "pool2d", "flash_attn", "gather_scatter", "topk_cumsum"}) {
            QTest::newRow((std::string(w) + " f32").c_str()) << QString(w) << static_cast<int>(DType::Float32);
            QTest::newRow((std::string(w) + " f64").c_str()) << QString(w) << static_cast<int>(DType::Float64);
        }
    }
    void opFamiliesHoldTheirStorageOnly() {
        QFETCH(QString, which);
        QFETCH(int, dtype);
        const Program p = opProgram(which.toStdString(), static_cast<DType>(dtype));
        HeapFigures f;
        try {
            f = runMeasured(p, true);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        const double ratio = static_cast<double>(f.heapAbove) / static_cast<double>(f.storagePeak);
        qInfo("%s %s: storage peak %lld bytes, heap peak above the start %lld bytes (%.3fx)", qPrintable(which),
              dtypeShortName(static_cast<DType>(dtype)).data(), static_cast<long long>(f.storagePeak), static_cast<long long>(f.heapAbove), ratio);
        QVERIFY(f.storagePeak > (int64_t(4) << 20));
        QVERIFY2(ratio <= 1.05, qPrintable(QString("heap %1x the tensor storage: a kernel copies values into another type").arg(ratio)));
    }

    // The run's heap peak is its tensor storage plus a little (index tables of small values,
    // records, the fetched copy of 4 MiB): at most 1.25x the metered peak. Kernels computing
    // through double copies hold 2x each f32 operand and result besides (the matmul alone:
    // 24 MiB over 12 MiB of storage), about 2.5-3x; f64 values copied once, about 2x.
    void runHoldsLittleBeyondItsStorage_data() {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QString>("dtypeName");
        QTest::newRow("f32") << "f32" << "float32";
        QTest::newRow("f64") << "f64" << "float64";
    }
    void runHoldsLittleBeyondItsStorage() {
        QFETCH(QString, dtype);
        QFETCH(QString, dtypeName);
        Program p = parsePir(chainProgram(dtype.toStdString().c_str(), dtypeName.toStdString().c_str()), "chain.pir");
        const HeapFigures f = runMeasured(p);
        const double ratio = static_cast<double>(f.heapAbove) / static_cast<double>(f.storagePeak);
        qInfo("%s: storage peak %lld bytes, heap peak above the start %lld bytes (%.2fx)", qPrintable(dtype),
              static_cast<long long>(f.storagePeak), static_cast<long long>(f.heapAbove), ratio);
        QVERIFY(f.storagePeak > 0);
        QVERIFY2(ratio <= 1.25, qPrintable(QString("heap %1x the tensor storage: a kernel copies values into another type").arg(ratio)));
    }

    // The norm kernels (issue 21 item 2) read and store their tensors in the dtype, holding
    // only per-row or per-channel doubles: the heap peak is the storage peak (1.00x; at most
    // 1.01x). Through whole double vectors each f32 operand and result would add 2x its bytes.
    void normKernelsHoldNothingBeyondTheirStorage_data() {
        QTest::addColumn<QString>("op");
        const Dims x4 = {32, 16, 32, 32}, ch = {16}, x2 = {1024, 1024}, row = {1024}, col = {1024, 1};
        const std::vector<NamedAttribute> eps = {{"epsilon", Attribute::float32(1e-5)}};
        auto add = [](const char* name, Program p) { QTest::newRow(name) << QString(name); normPrograms()[name] = std::move(p); };
        add("batch_norm", normProgram("pd_op.batch_norm", {x4, ch, ch, ch, ch}, {x4, ch, ch, ch, ch},
                                      {{"epsilon", Attribute::float32(1e-5)}, {"momentum", Attribute::float32(0.9)},
                                       {"is_test", Attribute::boolean(false)}, {"data_format", Attribute::string("NCHW")}}));
        add("batch_norm_grad", normProgram("pd_op.batch_norm_grad", {x4, ch, ch, ch, ch, ch, ch, {0}, x4}, {x4, ch, ch}, eps));
        add("group_norm", normProgram("pd_op.group_norm", {x4, ch, ch}, {x4, {32, 4}, {32, 4}},
                                      {{"epsilon", Attribute::float32(1e-5)}, {"groups", Attribute::int32(4)}}));
        add("group_norm_grad", normProgram("pd_op.group_norm_grad", {x4, ch, ch, x4, {32, 4}, {32, 4}, x4}, {x4, ch, ch},
                                           {{"epsilon", Attribute::float32(1e-5)}, {"groups", Attribute::int32(4)}}));
        add("instance_norm", normProgram("pd_op.instance_norm", {x4, ch, ch}, {x4, {512}, {512}}, eps));
        add("instance_norm_grad", normProgram("pd_op.instance_norm_grad", {x4, ch, {512}, {512}, x4}, {x4, ch, ch}, eps));
        add("rms_norm", normProgram("pd_op.rms_norm", {x2, row, x2, row, row}, {x2, x2, row},
                                    {{"epsilon", Attribute::float32(1e-6)}, {"begin_norm_axis", Attribute::int32(1)}}));
        add("rms_norm_grad", normProgram("pd_op.rms_norm_grad", {x2, row, x2, row, row, row, x2}, {x2, row, row},
                                         {{"epsilon", Attribute::float32(1e-6)}, {"begin_norm_axis", Attribute::int32(1)}}));
        add("layer_norm", normProgram("pd_op.layer_norm", {x2, row, row}, {x2, row, row}, {{"begin_norm_axis", Attribute::int32(1)}}));
        add("layer_norm_grad", normProgram("pd_op.layer_norm_grad", {x2, row, row, row, row, x2}, {x2, row, row},
                                           {{"begin_norm_axis", Attribute::int32(1)}}));
        add("softmax", normProgram("pd_op.softmax", {x2}, {x2}, {{"axis", Attribute::int32(-1)}}));
        add("softmax_grad", normProgram("pd_op.softmax_grad", {x2, x2}, {x2}, {{"axis", Attribute::int32(-1)}}));
        add("cross_entropy_with_softmax", normProgram("pd_op.cross_entropy_with_softmax", {x2, x2}, {x2, col},
                                                      {{"soft_label", Attribute::boolean(true)}, {"axis", Attribute::int32(-1)}}));
        add("cross_entropy_with_softmax_grad", normProgram("pd_op.cross_entropy_with_softmax_grad", {x2, x2, col}, {x2},
                                                           {{"soft_label", Attribute::boolean(true)}, {"axis", Attribute::int32(-1)}}));
    }
    void normKernelsHoldNothingBeyondTheirStorage() {
        QFETCH(QString, op);
        const Program& p = normPrograms().at(op.toStdString());
        const HeapFigures f = runMeasured(p, true);
        const double ratio = static_cast<double>(f.heapAbove) / static_cast<double>(f.storagePeak);
        qInfo("%s: storage peak %lld bytes, heap peak above the start %lld bytes (%.3fx)", qPrintable(op),
              static_cast<long long>(f.storagePeak), static_cast<long long>(f.heapAbove), ratio);
        QVERIFY(f.storagePeak > 0);
        QVERIFY2(ratio <= 1.01, qPrintable(QString("heap %1x the tensor storage: the kernel copies values into another type").arg(ratio)));
    }

private:
    static std::map<std::string, Program>& normPrograms() {
        static std::map<std::string, Program> programs;
        return programs;
    }
};

QTEST_GUILESS_MAIN(KernelMemoryTest)
#include "test_kernel_memory.moc"
