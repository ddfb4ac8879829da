// verifyProgramsAsync (views/VerifyAsync.h, moved out of the Qt-free library): runs off the
// calling thread and returns errors as values, never as exceptions from the future.
#include <QtTest>

#include "model/Program.h"
#include "views/VerifyAsync.h"

using namespace rx;
using namespace rx::exec;

namespace {

std::shared_ptr<const Program> oneOpProgram(const char* opName) {
    Program p;
    const TypeId t = p.tensorType(DType::Float32, {2});
    const OpId data = p.appendOp(0, "pd_op.data", {}, std::vector<TypeId>{t}, {{"name", Attribute::string("x")}});
    const ValueId x = p.op(data).results[0];
    const OpId op = p.appendOp(0, opName, std::vector<ValueId>{x}, std::vector<TypeId>{t}, {});
    const ValueId y = p.op(op).results[0];
    p.appendOp(0, "pd_op.fetch", std::vector<ValueId>{y}, std::vector<TypeId>{t}, {{"name", Attribute::string("y")}});
    p.finish();
    return std::make_shared<const Program>(std::move(p));
}

}  // namespace

class VerifyAsyncTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void runsOffThreadAndReportsErrorsAsValues() {
        auto prog = oneOpProgram("pd_op.exp");
        VerifyOutcome out = verifyProgramsAsync(prog, prog, {}).result();
        QVERIFY2(out.error.empty(), out.error.c_str());
        QVERIFY(out.report && out.report->equivalent);
        auto bad = oneOpProgram("pd_op.frobnicate");
        VerifyOutcome failed = verifyProgramsAsync(bad, bad, {}).result();
        QVERIFY(!failed.report);
        QVERIFY(failed.error.find("pd_op.frobnicate") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(VerifyAsyncTest)
#include "test_verify_async.moc"
