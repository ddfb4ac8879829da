// Kernels compute in the value's dtype (issue 21 item 4): the heap a CPU run holds beyond its
// tensor storage (what the StorageMeter counts) stays small, so f32 values are not copied into
// whole double vectors (which would hold 2x the storage per operand and result).
#include <QtTest>

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "exec/cpu/CpuExecutor.h"
#include "model/PirReader.h"

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

struct HeapFigures {
    int64_t storagePeak = 0;  // the StorageMeter's peak (RunResult::peakBytes)
    int64_t heapAbove = 0;    // heap high-water mark during the run above the heap held before it
};

HeapFigures runMeasured(const Program& p) {
    CpuExecutor cpu;
    RunOptions ro;
    ro.recordOpTimes = false;
    const int64_t before = gHeapBytes.load();
    gHeapPeak.store(before);
    RunResult r = cpu.run(p, {}, ro);
    HeapFigures f;
    f.storagePeak = r.peakBytes;
    f.heapAbove = gHeapPeak.load() - before;
    return f;
}
}  // namespace

class KernelMemoryTest : public QObject {
    Q_OBJECT
private slots:
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
};

QTEST_GUILESS_MAIN(KernelMemoryTest)
#include "test_kernel_memory.moc"
