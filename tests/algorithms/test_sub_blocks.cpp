// The seed's treatment of sub-blocks (docs/ALGORITHM.md §2, §5, §6, §8): an op holding a
// region is one node of the flow network (values defined inside get no node; a use inside
// the region is a use by the holder), and the fusion-loop judge reads inside the blocks (a
// region's use of an outside value is an arc from that value's producer to the holder).
#include "algorithms/Solver.h"  // before Qt: Analysis.h has a member named `slots`

#include <QtTest>

#include "algorithms/Analysis.h"
#include "model/PirReader.h"
#include "model/RecomputeConfig.h"
#include "model/RecomputeSpec.h"

using namespace rx;

namespace {

const char* kTensor = "builtin.tensor<4x4xf32>";

// %a = exp(x); %a2 = scale(%a); %m = matmul(%a2, %w) (compute-intensive: unrecomputable);
// %r = if (%c) { relu(<regionInput>) } else { x }; %s = multiply(%a, %r); loss; backward.
// With regionInput = %m, the only path from exp to multiply through the matmul runs through
// the if's block.
std::string program(const std::string& regionInput) {
    const std::string t = kTensor;
    auto op = [&](const std::string& res, const std::string& name, const std::string& args, int nargs) {
        std::string types;
        for (int i = 0; i < nargs; ++i) types += (i ? ", " : "") + t;
        return "    (" + res + ") = \"" + name + "\" (" + args + ") {stop_gradient:[false]} : (" + types + ") -> " + t + "\n";
    };
    std::string s = "{\n";
    s += "    (%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float32,name:\"x\",place:(pd_op.Place)Place(cpu),"
         "shape:(pd_op.IntArray)[4,4],stop_gradient:[false]} : () -> " + t + "\n";
    s += "    (%1) = \"builtin.parameter\" () {is_parameter:[true],parameter_name:\"w\",stop_gradient:[false]} : () -> " + t + "\n";
    s += "    (%2) = \"pd_op.data\" () {dtype:(pd_op.DataType)bool,name:\"c\",place:(pd_op.Place)Place(cpu),"
         "shape:(pd_op.IntArray)[1],stop_gradient:[true]} : () -> builtin.tensor<1xb>\n";
    s += op("%3", "pd_op.exp", "%0", 1);
    s += "    (%4) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[1],"
         "stop_gradient:[true],value:(Float)2} : () -> builtin.tensor<1xf32>\n";
    s += "    (%5) = \"pd_op.scale\" (%3, %4) {bias:(Float)0,bias_after_scale:true,stop_gradient:[false]} : (" + t +
         ", builtin.tensor<1xf32>) -> " + t + "\n";
    s += "    (%6) = \"pd_op.matmul\" (%5, %1) {stop_gradient:[false],transpose_x:false,transpose_y:false} : (" + t + ", " + t +
         ") -> " + t + "\n";
    s += "    (%7) = \"pd_op.if\" (%2) {stop_gradient:[false]} -> " + t + " {\n";
    s += "    " + op("%8", "pd_op.relu", regionInput, 1);
    s += "        () = \"cf.yield\" (%8) {} : (" + t + ") ->\n";
    s += "    } else {\n";
    s += "        () = \"cf.yield\" (%0) {} : (" + t + ") ->\n";
    s += "    }\n";
    s += op("%9", "pd_op.multiply", "%3, %7", 2);
    s += "    (%10) = \"pd_op.mean\" (%9) {axis:(pd_op.IntArray)[],keepdim:false,stop_gradient:[false]} : (" + t +
         ") -> builtin.tensor<f32>\n";
    // backward: the seed, then ops reading forward values (one of them inside a region)
    s += "    (%11) = \"pd_op.full\" () {dtype:(pd_op.DataType)float32,place:(pd_op.Place)Place(cpu),shape:(pd_op.IntArray)[4,4],"
         "stop_gradient:[true],value:(Float)1} : () -> " + t + "\n";
    s += op("%12", "pd_op.multiply", "%11, %7", 2);
    s += op("%13", "pd_op.multiply", "%12, %3", 2);
    s += "    (%14) = \"pd_op.if\" (%2) {stop_gradient:[false]} -> " + t + " {\n";
    s += "    " + op("%15", "pd_op.multiply", "%13, %6", 2);
    s += "        () = \"cf.yield\" (%15) {} : (" + t + ") ->\n";
    s += "    } else {\n";
    s += "        () = \"cf.yield\" (%13) {} : (" + t + ") ->\n";
    s += "    }\n";
    s += "    (%16) = \"pd_op.fetch\" (%14) {col:(Int32)0,name:\"g\",stop_gradient:[false]} : (" + t + ") -> " + t + "\n";
    s += "}\n";
    return s;
}

struct Solved {
    std::shared_ptr<const Program> program;
    RecomputeSpec spec;
    std::unique_ptr<Analysis> analysis;
};

Solved load(const std::string& regionInput) {
    Solved s;
    auto p = std::make_shared<Program>(parsePir(program(regionInput), "sub-blocks.pir"));
    s.program = p;
    s.spec = parseSpecJson(R"({"fwd_op_end_idx": 10, "backward_op_start_idx": 11, "inputs": ["%0", "%1", "%2"],
                               "outputs": ["%10"], "grad_outputs": ["%11"]})",
                           *p, "sub-blocks.spec.json");
    s.analysis = std::make_unique<Analysis>(s.program, s.spec);
    return s;
}

ValueId value(const Solved& s, const char* name) { return s.analysis->findValue(name); }

}  // namespace

class TestSubBlocks : public QObject {
    Q_OBJECT
private slots:
    // Values defined inside a region get no node; the holder's result does, and a use inside
    // a region (forward or backward) is a use by the holder.
    void regionHolderIsOneNode() {
        Solved s = load("%6");
        QVERIFY2(s.analysis->error().empty(), s.analysis->error().c_str());
        RecomputeSolver solver(s.program, s.spec);
        SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        const FlowNetwork& net = *r.network;
        for (const char* inner : {"%8", "%15"}) {
            QCOMPARE(net.inNode(value(s, inner)), kNoId);
            QCOMPARE(net.outNode(value(s, inner)), kNoId);
        }
        QVERIFY(net.inNode(value(s, "%7")) != kNoId);   // the forward if's result
        QVERIFY(net.inNode(value(s, "%14")) != kNoId);  // the backward if's result (-> sink)
        // %6 is read only inside the two ifs' blocks: its users are the holders' results.
        const auto users = s.analysis->users(value(s, "%6"), false);
        QCOMPARE(std::vector<ValueId>(users.begin(), users.end()),
                 (std::vector<ValueId>{value(s, "%7"), value(s, "%14")}));
        // ... so it is one step from the backward (the backward if): distance 1.
        QCOMPARE(s.analysis->distance(value(s, "%6")), int64_t(1));
        // An arc %6_out -> %14_in exists: the backward if stands for its block's multiply.
        bool arc = false;
        for (const FlowNetwork::Arc& a : net.arcs)
            arc = arc || (a.from == net.outNode(value(s, "%6")) && a.to == net.inNode(value(s, "%14")));
        QVERIFY(arc);
        // The rewrite clones no op of a block: clones are top-level ops.
        for (OpId c : r.clones) QCOMPARE(r.rewritten->op(c).parentBlock, Program::kGlobalBlock);
    }

    // exp -> scale -> matmul (unrecomputable) -> [if's block reads it] -> multiply(exp, if):
    // the judge sees the matmul between exp and its user multiply only through the block.
    void fusionJudgeReadsInsideBlocks() {
        Solved inside = load("%6");
        Solved outside = load("%0");  // the block reads x instead: no path through the matmul
        const OpClasses classesIn = inside.analysis->classify(RecomputeConfig::seedDefaults());
        const OpClasses classesOut = outside.analysis->classify(RecomputeConfig::seedDefaults());
        const std::vector<uint8_t> flagsIn = inside.analysis->fusionLoopFlags(classesIn);
        const std::vector<uint8_t> flagsOut = outside.analysis->fusionLoopFlags(classesOut);
        QCOMPARE(int(flagsIn[value(inside, "%3")]), 1);
        QCOMPARE(int(flagsOut[value(outside, "%3")]), 0);
        const OpId expOp = inside.program->value(value(inside, "%3")).definingOp;
        const OpId mulOp = inside.program->value(value(inside, "%9")).definingOp;
        QVERIFY(inside.analysis->hasUnfusibleOpOnAnyPath(classesIn, expOp, mulOp));
        QVERIFY(!outside.analysis->hasUnfusibleOpOnAnyPath(
            classesOut, outside.program->value(value(outside, "%3")).definingOp,
            outside.program->value(value(outside, "%9")).definingOp));
        // In the network: the judge's edges source -> %3_in and %3_out -> sink.
        RecomputeSolver solver(inside.program, inside.spec);
        SolveResult r = solver.solve(RecomputeConfig::seedDefaults());
        QVERIFY2(r.ok(), r.error.c_str());
        bool fromSource = false, toSink = false;
        const FlowNetwork& net = *r.network;
        for (const FlowNetwork::Arc& a : net.arcs) {
            fromSource = fromSource || (a.to == net.inNode(value(inside, "%3")) && a.from == FlowNetwork::kSource);
            toSink = toSink || (a.from == net.outNode(value(inside, "%3")) && a.to == FlowNetwork::kSink);
        }
        QVERIFY(fromSource);
        QVERIFY(toSink);
        QVERIFY(net.facts[value(inside, "%3")].fusionLoop);
    }
};

QTEST_GUILESS_MAIN(TestSubBlocks)
#include "test_sub_blocks.moc"
