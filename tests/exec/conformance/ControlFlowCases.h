#pragma once
// Conformance value cases for what the run loop executes itself rather than a kernel: feeds
// and parameters, pd_op.if (both branches), pd_op.while with two carried values, cf.yield,
// the cf stacks (last pushed, first popped) and pd_op.has_elements, written as PIR text.
#include "exec/conformance/Cases.h"

namespace rx::conformance {

// A case whose program is PIR text; `feeds` are fed by name.
inline std::function<void(CaseBuilder&)> pirCase(std::string text, std::map<std::string, Tensor> feeds) {
    return [text, feeds](CaseBuilder& b) {
        b.p = parsePir(text, "conformance.pir");
        for (const auto& [name, t] : feeds) b.inputs.byName[name] = t;
    };
}

inline std::vector<ValueCase> controlFlowValueCases() {
    std::vector<ValueCase> c;
    c.push_back({"pd_op.feed", [](CaseBuilder& b) {
                     OpId op = b.p.appendOp(0, "pd_op.feed", {}, std::vector<TypeId>{b.p.tensorType(F, {2})}, {{"name", Attribute::string("fed")}});
                     b.inputs.byName["fed"] = Tensor::fromDoubles(F, {2}, {0.5, -1});
                     b.fetch(b.p.op(op).results[0]);
                 },
                 {{{2}, {0.5, -1}}}});
    c.push_back({"builtin.parameter", [](CaseBuilder& b) {
                     OpId op = b.p.appendOp(0, "builtin.parameter", {}, std::vector<TypeId>{b.p.tensorType(F, {2, 1})},
                                            {{"parameter_name", Attribute::string("w")}});
                     b.inputs.byName["w"] = Tensor::fromDoubles(F, {2, 1}, {3, 4});
                     b.fetch(b.p.op(op).results[0]);
                 },
                 {{{2, 1}, {3, 4}}}});
    // if (c) x * x else x - 1
    const std::string ifText =
        "(%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float64,name:\"x\",shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> pd_op.tensor<2xf64>\n"
        "(%1) = \"pd_op.data\" () {dtype:(pd_op.DataType)bool,name:\"c\",shape:(pd_op.IntArray)[1],stop_gradient:[true]} : () -> pd_op.tensor<1xb>\n"
        "(%2) = \"pd_op.full\" () {dtype:(pd_op.DataType)float64,shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)1} : () -> pd_op.tensor<1xf64>\n"
        "(%3) = pd_op.if (%1) {stop_gradient:[true]} -> pd_op.tensor<2xf64>\n"
        "{\n"
        "    (%4) = \"pd_op.multiply\" (%0, %0) {stop_gradient:[true]} : (pd_op.tensor<2xf64>, pd_op.tensor<2xf64>) -> pd_op.tensor<2xf64>\n"
        "    () = \"cf.yield\" (%4) {} : (pd_op.tensor<2xf64>) ->\n"
        "} else {\n"
        "    (%5) = \"pd_op.subtract\" (%0, %2) {stop_gradient:[true]} : (pd_op.tensor<2xf64>, pd_op.tensor<1xf64>) -> pd_op.tensor<2xf64>\n"
        "    () = \"cf.yield\" (%5) {} : (pd_op.tensor<2xf64>) ->\n"
        "}\n"
        "(%6) = \"pd_op.fetch\" (%3) {name:\"out\"} : (pd_op.tensor<2xf64>) -> pd_op.tensor<2xf64>\n";
    const Tensor x = Tensor::fromDoubles(F, {2}, {3, -2});
    c.push_back({"pd_op.if", pirCase(ifText, {{"x", x}, {"c", Tensor::fromDoubles(B, {1}, {1})}}), {{{2}, {9, 4}}}});
    c.push_back({"pd_op.if", pirCase(ifText, {{"x", x}, {"c", Tensor::fromDoubles(B, {1}, {0})}}), {{{2}, {2, -3}}}});
    // while (i < 5) { i = i + 1; acc = acc * 2 }: both carried values come back.
    const std::string whileText =
        "(%0) = \"pd_op.full\" () {dtype:(pd_op.DataType)int64,shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)0} : () -> pd_op.tensor<1xi64>\n"
        "(%1) = \"pd_op.full\" () {dtype:(pd_op.DataType)int64,shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)1} : () -> pd_op.tensor<1xi64>\n"
        "(%2) = \"pd_op.full\" () {dtype:(pd_op.DataType)int64,shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)5} : () -> pd_op.tensor<1xi64>\n"
        "(%3) = \"pd_op.data\" () {dtype:(pd_op.DataType)float64,name:\"acc\",shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> pd_op.tensor<2xf64>\n"
        "(%4) = \"pd_op.full\" () {dtype:(pd_op.DataType)float64,shape:(pd_op.IntArray)[1],stop_gradient:[true],value:(Float)2} : () -> pd_op.tensor<1xf64>\n"
        "(%5) = \"pd_op.less_than\" (%0, %2) {stop_gradient:[true]} : (pd_op.tensor<1xi64>, pd_op.tensor<1xi64>) -> pd_op.tensor<1xb>\n"
        "(%6, %7) = \"pd_op.while\"(cond=%5, inputs=%0, %3) {\n"
        "^%arg_0, %arg_1\n"
        "    (%8) = \"pd_op.add\" (%arg_0, %1) {stop_gradient:[true]} : (pd_op.tensor<1xi64>, pd_op.tensor<1xi64>) -> pd_op.tensor<1xi64>\n"
        "    (%9) = \"pd_op.multiply\" (%arg_1, %4) {stop_gradient:[true]} : (pd_op.tensor<2xf64>, pd_op.tensor<1xf64>) -> pd_op.tensor<2xf64>\n"
        "    (%10) = \"pd_op.less_than\" (%8, %2) {stop_gradient:[true]} : (pd_op.tensor<1xi64>, pd_op.tensor<1xi64>) -> pd_op.tensor<1xb>\n"
        "    () = \"cf.yield\" (%10, %8, %9) {} : (pd_op.tensor<1xb>, pd_op.tensor<1xi64>, pd_op.tensor<2xf64>) ->\n"
        "}\n"
        "(%11) = \"pd_op.fetch\" (%6) {name:\"i\"} : (pd_op.tensor<1xi64>) -> pd_op.tensor<1xi64>\n"
        "(%12) = \"pd_op.fetch\" (%7) {name:\"acc\"} : (pd_op.tensor<2xf64>) -> pd_op.tensor<2xf64>\n";
    c.push_back({"pd_op.while", pirCase(whileText, {{"acc", Tensor::fromDoubles(F, {2}, {1, -0.5})}}), {{{1}, {5}}, {{2}, {32, -16}}}});
    c.push_back({"cf.yield", pirCase(ifText, {{"x", Tensor::fromDoubles(F, {2}, {0.5, 4})}, {"c", Tensor::fromDoubles(B, {1}, {1})}}), {{{2}, {0.25, 16}}}});
    // Two pushes (the second of two values), popped last first.
    const std::string stackText =
        "(%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float64,name:\"a\",shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> pd_op.tensor<2xf64>\n"
        "(%1) = \"pd_op.data\" () {dtype:(pd_op.DataType)float64,name:\"b\",shape:(pd_op.IntArray)[1],stop_gradient:[true]} : () -> pd_op.tensor<1xf64>\n"
        "(%2, %3, %4) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n"
        "() = \"cf.tuple_push\" (%3, %0) {} : (cf.inlet, pd_op.tensor<2xf64>) -> \n"
        "() = \"cf.tuple_push\" (%3, %1, %0) {} : (cf.inlet, pd_op.tensor<1xf64>, pd_op.tensor<2xf64>) -> \n"
        "(%5, %6) = \"cf.tuple_pop\" (%4) {} : (cf.outlet) -> pd_op.tensor<1xf64>, pd_op.tensor<2xf64>\n"
        "(%7) = \"cf.tuple_pop\" (%4) {} : (cf.outlet) -> pd_op.tensor<2xf64>\n"
        "(%8) = \"pd_op.fetch\" (%5) {name:\"p0\"} : (pd_op.tensor<1xf64>) -> pd_op.tensor<1xf64>\n"
        "(%9) = \"pd_op.fetch\" (%6) {name:\"p1\"} : (pd_op.tensor<2xf64>) -> pd_op.tensor<2xf64>\n"
        "(%10) = \"pd_op.fetch\" (%7) {name:\"p2\"} : (pd_op.tensor<2xf64>) -> pd_op.tensor<2xf64>\n";
    const std::map<std::string, Tensor> stackFeeds = {{"a", Tensor::fromDoubles(F, {2}, {1, 2})}, {"b", Tensor::fromDoubles(F, {1}, {7})}};
    for (const char* op : {"cf.stack_create", "cf.tuple_push", "cf.tuple_pop"})
        c.push_back({op, pirCase(stackText, stackFeeds), {{{1}, {7}}, {{2}, {1, 2}}, {{2}, {1, 2}}}});
    // has_elements: false on a new stack, true after a push, false again after the pop.
    const std::string hasElementsText =
        "(%0) = \"pd_op.data\" () {dtype:(pd_op.DataType)float64,name:\"a\",shape:(pd_op.IntArray)[2],stop_gradient:[true]} : () -> pd_op.tensor<2xf64>\n"
        "(%1, %2, %3) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n"
        "(%4) = \"pd_op.has_elements\" (%1) {} : (cf.stack) -> pd_op.tensor<1xb>\n"
        "() = \"cf.tuple_push\" (%2, %0) {} : (cf.inlet, pd_op.tensor<2xf64>) -> \n"
        "(%5) = \"pd_op.has_elements\" (%1) {} : (cf.stack) -> pd_op.tensor<1xb>\n"
        "(%6) = \"cf.tuple_pop\" (%3) {} : (cf.outlet) -> pd_op.tensor<2xf64>\n"
        "(%7) = \"pd_op.has_elements\" (%1) {} : (cf.stack) -> pd_op.tensor<1xb>\n"
        "(%8) = \"pd_op.fetch\" (%4) {name:\"before\"} : (pd_op.tensor<1xb>) -> pd_op.tensor<1xb>\n"
        "(%9) = \"pd_op.fetch\" (%5) {name:\"pushed\"} : (pd_op.tensor<1xb>) -> pd_op.tensor<1xb>\n"
        "(%10) = \"pd_op.fetch\" (%7) {name:\"popped\"} : (pd_op.tensor<1xb>) -> pd_op.tensor<1xb>\n";
    c.push_back({"pd_op.has_elements", pirCase(hasElementsText, {{"a", Tensor::fromDoubles(F, {2}, {1, 2})}}), {{{1}, {0}}, {{1}, {1}}, {{1}, {0}}}});
    return c;
}

}  // namespace rx::conformance
