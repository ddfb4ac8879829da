#pragma once
// Conformance value cases for the shape family: inputs and plumbing (data, fetch,
// shadow_output, combine/split/slice of vectors), shape queries, views, indexing (gather_nd,
// index_sample, index_select, put_along_axis, scatter), pad, unbind, one-rank collectives.
#include "exec/conformance/Cases.h"

namespace rx::conformance {

inline std::vector<ValueCase> shapeValueCases() {
    std::vector<ValueCase> c;
    const std::vector<double> x23 = {1, 2, 3, 4, 5, 6};
    c.push_back({"pd_op.data", [](CaseBuilder& b) { b.fetch(b.input("x", I32, {2}, {-7, 9})); }, {{{2}, {-7, 9}}}});
    c.push_back({"pd_op.fetch", [](CaseBuilder& b) {  // one value fetched twice
                     ValueId x = b.f64("x", {3}, {1, 2, 3});
                     b.fetch(x);
                     b.fetch(x);
                 },
                 {{{3}, {1, 2, 3}}, {{3}, {1, 2, 3}}}});
    c.push_back({"builtin.shadow_output", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2}, {4, 5});
                     b.p.appendOp(0, "builtin.shadow_output", std::vector<ValueId>{x}, std::vector<TypeId>{}, {{"output_name", Attribute::string("out")}});
                 },
                 {{{2}, {4, 5}}}});
    c.push_back({"builtin.combine", [](CaseBuilder& b) {  // combine then split hands back both parts
                     ValueId x = b.f64("x", {1}, {1}), y = b.f64("y", {2}, {2, 3});
                     b.fetchAll(b.ops("builtin.split", {b.combine({x, y})}, {{F, {1}}, {F, {2}}}));
                 },
                 {{{1}, {1}}, {{2}, {2, 3}}}});
    c.push_back({"builtin.split", [](CaseBuilder& b) {  // only the second part fetched
                     ValueId x = b.f64("x", {1}, {1}), y = b.f64("y", {2}, {2, 3});
                     b.fetch(b.ops("builtin.split", {b.combine({x, y})}, {{F, {1}}, {F, {2}}})[1]);
                 },
                 {{{2}, {2, 3}}}});
    c.push_back({"builtin.slice", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {1}, {1}), y = b.f64("y", {2}, {2, 3});
                     b.fetch(b.op("builtin.slice", {b.combine({x, y})}, F, {2}, {{"index", Attribute::int32(1)}}));
                 },
                 {{{2}, {2, 3}}}});
    c.push_back({"pd_op.full_int_array", [](CaseBuilder& b) { b.fetch(b.ints({3, -1, 0})); }, {{{3}, {3, -1, 0}}}});
    c.push_back({"pd_op.shape", [](CaseBuilder& b) { b.fetch(b.op("pd_op.shape", {b.f64("x", {2, 3, 4}, iota(24))}, I32, {3})); },
                 {{{3}, {2, 3, 4}}}});
    c.push_back({"pd_op.shape64", [](CaseBuilder& b) { b.fetch(b.op("pd_op.shape64", {b.f64("x", {5, 1}, iota(5))}, I64, {2})); },
                 {{{2}, {5, 1}}}});
    c.push_back({"pd_op.assign", [](CaseBuilder& b) { b.fetch(b.op("pd_op.assign", {b.i64("x", {2}, {3, -4})}, I64, {2})); },
                 {{{2}, {3, -4}}}});
    c.push_back({"pd_op.view_shape", [x23](CaseBuilder& b) {
                     b.fetch(b.ops("pd_op.view_shape", {b.f64("x", {2, 3}, x23), b.ints({3, -1})}, {{F, {3, 2}}, {F, {0, 2, 3}}})[0]);
                 },
                 {{{3, 2}, x23}}});
    c.push_back({"pd_op.expand_as", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {1, 3}, {1, 2, 3}), y = b.f64("y", {2, 3}, std::vector<double>(6, 0));
                     b.fetch(b.op("pd_op.expand_as", {x, y}, F, {2, 3}));
                 },
                 {{{2, 3}, {1, 2, 3, 1, 2, 3}}}});
    c.push_back({"pd_op.expand_as", [](CaseBuilder& b) {  // target_shape attribute, new leading dim
                     b.fetch(b.op("pd_op.expand_as", {b.f64("x", {2, 1}, {1, 2})}, F, {2, 2, 2}, {{"target_shape", Attribute::intArray({2, 2, 2})}}));
                 },
                 {{{2, 2, 2}, {1, 1, 2, 2, 1, 1, 2, 2}}}});
    c.push_back({"pd_op.split_with_num", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 4}, iota(8, 1));
                     b.fetchAll(b.vectorOp("pd_op.split_with_num", {x, b.ints({-1})}, {{F, {2, 2}}, {F, {2, 2}}}, {{"num", Attribute::int32(2)}}));
                 },
                 {{{2, 2}, {1, 2, 5, 6}}, {{2, 2}, {3, 4, 7, 8}}}});
    c.push_back({"pd_op.unbind", [x23](CaseBuilder& b) {
                     b.fetchAll(b.vectorOp("pd_op.unbind", {b.f64("x", {2, 3}, x23)}, {{F, {2}}, {F, {2}}, {F, {2}}}, {{"axis", Attribute::int32(-1)}}));
                 },
                 {{{2}, {1, 4}}, {{2}, {2, 5}}, {{2}, {3, 6}}}});
    c.push_back({"pd_op.gather_nd", [](CaseBuilder& b) {  // full-depth index: elements
                     b.fetch(b.op("pd_op.gather_nd", {b.f64("x", {2, 3}, iota(6)), b.i64("i", {2, 2}, {1, 2, 0, -3})}, F, {2}));
                 },
                 {{{2}, {5, 0}}}});
    c.push_back({"pd_op.gather_nd", [](CaseBuilder& b) {  // depth 1: rows
                     b.fetch(b.op("pd_op.gather_nd", {b.f64("x", {2, 3}, iota(6)), b.i64("i", {1, 1}, {1})}, F, {1, 3}));
                 },
                 {{{1, 3}, {3, 4, 5}}}});
    c.push_back({"pd_op.index_sample", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.index_sample", {b.f64("x", {2, 3}, x23), b.i64("i", {2, 2}, {2, 0, 1, 1})}, F, {2, 2}));
                 },
                 {{{2, 2}, {3, 1, 5, 5}}}});
    c.push_back({"pd_op.index_select", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.index_select", {b.f64("x", {2, 3}, x23), b.i64("i", {3}, {2, 0, 2})}, F, {2, 3}, {{"axis", Attribute::int32(1)}}));
                 },
                 {{{2, 3}, {3, 1, 3, 6, 4, 6}}}});
    auto put = [&](const std::string& reduce, std::vector<double> out) {
        c.push_back({"pd_op.put_along_axis", [reduce, x23](CaseBuilder& b) {
                         ValueId arr = b.f64("a", {2, 3}, x23), idx = b.i64("i", {2, 1}, {2, -3}), val = b.f64("v", {1}, {9});
                         b.fetch(b.op("pd_op.put_along_axis", {arr, idx, val}, F, {2, 3}, {{"axis", Attribute::int32(1)}, {"reduce", Attribute::string(reduce)}}));
                     },
                     {{{2, 3}, std::move(out)}}});
    };
    put("assign", {1, 2, 9, 9, 5, 6});
    put("add", {1, 2, 12, 13, 5, 6});
    put("mul", {1, 2, 27, 36, 5, 6});
    c.push_back({"pd_op.scatter", [](CaseBuilder& b) {  // overwrite: rows 2 and 0 replaced
                     ValueId x = b.f64("x", {3, 2}, iota(6, 1)), i = b.i64("i", {2}, {2, 0}), u = b.f64("u", {2, 2}, {10, 11, 20, 21});
                     b.fetch(b.op("pd_op.scatter", {x, i, u}, F, {3, 2}, {{"overwrite", Attribute::boolean(true)}}));
                 },
                 {{{3, 2}, {20, 21, 3, 4, 10, 11}}}});
    c.push_back({"pd_op.scatter", [](CaseBuilder& b) {  // accumulate: row 0 zeroed, then both updates added
                     ValueId x = b.f64("x", {3, 2}, iota(6, 1)), i = b.i64("i", {2}, {0, 0}), u = b.f64("u", {2, 2}, {10, 11, 20, 21});
                     b.fetch(b.op("pd_op.scatter", {x, i, u}, F, {3, 2}, {{"overwrite", Attribute::boolean(false)}}));
                 },
                 {{{3, 2}, {30, 32, 3, 4, 5, 6}}}});
    c.push_back({"pd_op.pad", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.pad", {b.f64("x", {2, 2}, {1, 2, 3, 4})}, F, {3, 3},
                                  {{"paddings", Attribute::intArray({1, 0, 0, 1})}, {"pad_value", Attribute::float32(9)}}));
                 },
                 {{{3, 3}, {9, 9, 9, 1, 2, 9, 3, 4, 9}}}});
    // One rank: every collective hands its operand back unchanged (a copy).
    for (const char* op : {"pd_op.all_reduce", "pd_op.all_reduce_", "pd_op.reduce_", "pd_op.c_broadcast_", "pd_op.c_allreduce_sum",
                           "pd_op.c_allreduce_sum_"})
        c.push_back({op, [op](CaseBuilder& b) { b.fetch(b.op(op, {b.f64("x", {3}, {1, -2, 3})}, F, {3}, {{"ring_id", Attribute::int32(0)}})); },
                     {{{3}, {1, -2, 3}}}});
    return c;
}

}  // namespace rx::conformance
