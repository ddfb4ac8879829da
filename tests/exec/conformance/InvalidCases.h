#pragma once
// Conformance invalid ops, per family that validates its parameters: conv/pool strides and
// dilations of 0, repeated and out-of-range axes, shapes whose element count overflows,
// split sections, broadcasts that do not match, reshapes, and the scalar parameters (p,
// k, step, ranges). Every backend refuses each before running it, with this exact message.
#include "exec/conformance/Cases.h"

namespace rx::conformance {

inline std::vector<InvalidCase> familyInvalidCases() {
    std::vector<InvalidCase> c;
    const std::vector<double> x23 = {1, 2, 3, 4, 5, 6};
    auto on23 = [x23](const std::string& op, std::vector<ValueId> (*extra)(CaseBuilder&), Dims od, std::vector<NamedAttribute> a) {
        return [=](CaseBuilder& b) {
            std::vector<ValueId> operands = {b.f64("x", {2, 3}, x23)};
            for (ValueId v : extra(b)) operands.push_back(v);
            b.fetch(b.op(op, operands, F, od, a));
        };
    };
    auto none = [](CaseBuilder&) { return std::vector<ValueId>{}; };
    auto convAttrs = [](Dims stride, Dims dil, int64_t groups) {
        return std::vector<NamedAttribute>{{"strides", Attribute::intArray(stride)}, {"paddings", Attribute::intArray({0, 0})},
                                           {"dilations", Attribute::intArray(dil)}, {"groups", Attribute::int32(static_cast<int32_t>(groups))},
                                           {"padding_algorithm", Attribute::string("EXPLICIT")}, {"data_format", Attribute::string("NCHW")}};
    };
    auto conv = [](const std::string& op, Dims wd, std::vector<NamedAttribute> a) {
        return [=](CaseBuilder& b) {
            ValueId x = b.f64("x", {1, 2, 4, 4}, std::vector<double>(32, 1)), w = b.f64("w", wd, std::vector<double>(static_cast<size_t>(exec::numelOf(wd)), 1));
            b.fetch(b.op(op, {x, w}, F, {-1, -1, -1, -1}, a));
        };
    };
    // -- conv / pool geometry --
    c.push_back({"conv2d dilation 0", conv("pd_op.conv2d", {1, 2, 2, 2}, convAttrs({1, 1}, {1, 0}, 1)), "op 2 (pd_op.conv2d -> %2): attribute dilations = [1,0]: every entry must be > 0"});
    c.push_back({"conv2d groups do not divide the channels", conv("pd_op.conv2d", {3, 1, 2, 2}, convAttrs({1, 1}, {1, 1}, 2)), "op 2 (pd_op.conv2d -> %2): attribute groups = 2: input channels 2, filter [3,1,2,2] do not match"});
    c.push_back({"conv2d filter channels differ", conv("pd_op.conv2d", {1, 3, 2, 2}, convAttrs({1, 1}, {1, 1}, 1)), "op 2 (pd_op.conv2d -> %2): attribute groups = 1: input channels 2, filter [1,3,2,2] do not match", true});
    c.push_back({"depthwise_conv2d stride 0", conv("pd_op.depthwise_conv2d", {2, 1, 2, 2}, convAttrs({1, 0}, {1, 1}, 2)), "op 2 (pd_op.depthwise_conv2d -> %2): attribute strides = [1,0]: every entry must be > 0"});
    c.push_back({"conv2d_grad stride 0", [convAttrs](CaseBuilder& b) {
                     ValueId x = b.f64("x", {1, 1, 3, 3}, std::vector<double>(9, 1)), w = b.f64("w", {1, 1, 2, 2}, {1, 1, 1, 1}), g = b.f64("g", {1, 1, 2, 2}, {1, 1, 1, 1});
                     b.fetchAll(b.ops("pd_op.conv2d_grad", {x, w, g}, {{F, {1, 1, 3, 3}}, {F, {1, 1, 2, 2}}}, convAttrs({0, 0}, {1, 1}, 1)));
                 },
                 "op 3 (pd_op.conv2d_grad -> %3): attribute strides = [0,0]: every entry must be > 0"});
    c.push_back({"pool2d window 0", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.pool2d", {b.f64("x", {1, 1, 4, 4}, std::vector<double>(16, 1)), b.ints({0, 2})}, F, {-1, -1, -1, -1},
                                  {{"strides", Attribute::intArray({1, 1})}, {"paddings", Attribute::intArray({0, 0})}, {"pooling_type", Attribute::string("avg")}}));
                 },
                 "op 2 (pd_op.pool2d -> %2): attribute kernel_size = [0,2]: every entry must be > 0"});
    c.push_back({"max_pool2d_with_index stride 0", [](CaseBuilder& b) {
                     b.fetchAll(b.ops("pd_op.max_pool2d_with_index", {b.f64("x", {1, 1, 4, 4}, std::vector<double>(16, 1))}, {{F, {-1, -1, -1, -1}}, {I32, {-1, -1, -1, -1}}},
                                      {{"kernel_size", Attribute::intArray({2, 2})}, {"strides", Attribute::intArray({0, 2})}, {"paddings", Attribute::intArray({0, 0})}}));
                 },
                 "op 1 (pd_op.max_pool2d_with_index -> %1): attribute strides = [0,2]: every entry must be > 0"});
    // -- axes: repeated, out of range --
    c.push_back({"transpose axis out of range", on23("pd_op.transpose", none, {3, 2}, {{"perm", Attribute::intArray({0, 2})}}), "op 1 (pd_op.transpose -> %1): attribute perm [0,2]: axis = 2: out of range for rank 2"});
    c.push_back({"transpose perm of the wrong length", on23("pd_op.transpose", none, {3, 2}, {{"perm", Attribute::intArray({1, 0, 2})}}), "op 1 (pd_op.transpose -> %1): attribute perm = [1,0,2]: expected 2 entries (the operand's rank)"});
    c.push_back({"max axis out of range", on23("pd_op.max", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({2})}; }, {2}, {}), "op 2 (pd_op.max -> %2): axis [2]: axis = 2: out of range for rank 2"});
    c.push_back({"mean repeated axis", on23("pd_op.mean", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({0, -2})}; }, {3}, {}), "op 2 (pd_op.mean -> %2): axis = [0,-2]: axis -2 is repeated"});
    c.push_back({"sum_grad axis out of range", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.sum_grad", {b.f64("x", {2, 3}, x23), b.f64("g", {2}, {1, 1}), b.ints({-3})}, F, {2, 3}));
                 },
                 "op 3 (pd_op.sum_grad -> %3): axis -3 out of range for rank 2"});
    c.push_back({"squeeze axis out of range", on23("pd_op.squeeze", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({5})}; }, {2, 3}, {}), "op 2 (pd_op.squeeze -> %2): axis [5]: axis = 5: out of range for rank 2"});
    c.push_back({"unsqueeze axis out of range", on23("pd_op.unsqueeze", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({4})}; }, {2, 3, 1}, {}), "op 2 (pd_op.unsqueeze -> %2): axis [4]: axis = 4: out of range for rank 3"});
    c.push_back({"slice axis out of range", on23("pd_op.slice", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({0}), b.ints({1})}; }, {2, 1},
                                                 {{"axes", Attribute::intArray({2})}, {"decrease_axis", Attribute::intArray(Dims{})}}),
                 "op 3 (pd_op.slice -> %3): attribute axes [2]: axis = 2: out of range for rank 2"});
    c.push_back({"concat axis out of range", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2}, {1, 2}), y = b.f64("y", {2}, {3, 4});
                     b.fetch(b.op("pd_op.concat", {b.combine({x, y}), b.ints({1})}, F, {4}));
                 },
                 "op 4 (pd_op.concat -> %4): axis = 1: out of range for rank 1"});
    c.push_back({"concat of mismatched parts", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2, 2}, {1, 2, 3, 4}), y = b.f64("y", {3, 1}, {5, 6, 7});
                     b.fetch(b.op("pd_op.concat", {b.combine({x, y}), b.ints({1})}, F, {2, 3}));
                 },
                 "op 4 (pd_op.concat -> %4): concat of [2,2] and [3,1] along axis 1", true});
    c.push_back({"stack axis out of range", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2}, {1, 2}), y = b.f64("y", {2}, {3, 4});
                     b.fetch(b.op("pd_op.stack", {b.combine({x, y})}, F, {2, 2}, {{"axis", Attribute::int32(3)}}));
                 },
                 "op 3 (pd_op.stack -> %3): axis = 3: out of range for rank 2"});
    c.push_back({"gather axis out of range", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.gather", {b.f64("x", {2, 3}, x23), b.i64("i", {1}, {0})}, F, {2, 1}, {{"axis", Attribute::int32(2)}}));
                 },
                 "op 2 (pd_op.gather -> %2): attribute axis = 2: out of range for rank 2"});
    c.push_back({"softmax axis out of range", on23("pd_op.softmax", none, {2, 3}, {{"axis", Attribute::int32(-3)}}), "op 1 (pd_op.softmax -> %1): attribute axis = -3: out of range for rank 2"});
    c.push_back({"cumsum axis out of range", on23("pd_op.cumsum", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({2})}; }, {2, 3}, {}), "op 2 (pd_op.cumsum -> %2): axis 2 out of range for rank 2"});
    c.push_back({"flatten start after stop", [](CaseBuilder& b) {
                     b.fetch(b.ops("pd_op.flatten", {b.f64("x", {2, 1, 3}, iota(6))}, {{F, {6}}, {F, {0, 2, 1, 3}}},
                                   {{"start_axis", Attribute::int32(2)}, {"stop_axis", Attribute::int32(0)}})[0]);
                 },
                 "op 1 (pd_op.flatten -> %1): attributes start_axis, stop_axis: start 2 is after stop 0"});
    // -- element counts past int64 --
    c.push_back({"expand shape overflows", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.expand", {b.f64("x", {1, 1}, {1}), b.ints({int64_t(1) << 40, int64_t(1) << 40})}, F, {-1, -1}));
                 },
                 "op 2 (pd_op.expand -> %2): shape [1099511627776,1099511627776] has 1208925819614629174706176.000000 elements (limit 134217728, RunLimits::maxElementsPerValue)"});
    c.push_back({"uniform shape overflows", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.uniform", {b.ints({int64_t(1) << 62, 4})}, F, {-1, -1}, {{"min", Attribute::float32(0)}, {"max", Attribute::float32(1)}}));
                 },
                 "op 1 (pd_op.uniform -> %1): shape [4611686018427387904,4] has 18446744073709551616.000000 elements (limit 134217728, RunLimits::maxElementsPerValue)"});
    c.push_back({"full_with_tensor shape overflows", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.full_with_tensor", {b.f64("v", {1}, {1}), b.ints({int64_t(1) << 32, int64_t(1) << 32})}, F, {-1, -1}));
                 },
                 "op 2 (pd_op.full_with_tensor -> %2): shape [4294967296,4294967296] has more elements than 64-bit arithmetic counts"});
    // -- split sections --
    auto split = [](Dims sections, int64_t axis) {
        return [=](CaseBuilder& b) {
            b.fetch(b.vectorOp("pd_op.split", {b.f64("x", {5}, iota(5)), b.ints(sections), b.ints({axis})}, {{F, {-1}}, {F, {-1}}})[0]);
        };
    };
    c.push_back({"split with two inferred sections", split({-1, -1}, 0), "op 3 (pd_op.split -> %3): split sections [-1,-1]: two inferred (-1) sections"});
    c.push_back({"split sections past the axis", split({7, -1}, 0), "op 3 (pd_op.split -> %3): split sections [7,-2] exceed the axis size 5"});
    c.push_back({"split axis out of range", split({2, 3}, 1), "op 3 (pd_op.split -> %3): axis 1 out of range for rank 1"});
    c.push_back({"split_with_num does not divide", [](CaseBuilder& b) {
                     b.fetch(b.vectorOp("pd_op.split_with_num", {b.f64("x", {5}, iota(5)), b.ints({0})}, {{F, {-1}}, {F, {-1}}}, {{"num", Attribute::int32(2)}})[0]);
                 },
                 "op 2 (pd_op.split_with_num -> %2): attribute num = 2 does not divide dim 5"});
    // -- broadcasting --
    c.push_back({"add of shapes that do not broadcast", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.add", {b.f64("x", {2, 3}, x23), b.f64("y", {2}, {1, 2})}, F, {2, 3}));
                 },
                 "op 2 (pd_op.add -> %2): shapes [2,3] and [2] do not broadcast", true});
    c.push_back({"where of shapes that do not broadcast", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.where", {b.input("c", B, {2, 1}, {1, 0}), b.f64("x", {2, 3}, x23), b.f64("y", {4}, {1, 2, 3, 4})}, F, {2, 3}));
                 },
                 "op 3 (pd_op.where -> %3): shapes [2,3] and [4] do not broadcast", true});
    c.push_back({"expand to an incompatible shape", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.expand", {b.f64("x", {2, 3}, iota(6)), b.ints({2, 4})}, F, {2, 4}));
                 },
                 "op 2 (pd_op.expand -> %2): cannot expand [2,3] to [2,4]", true});
    c.push_back({"expand to a smaller dim", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.expand", {b.f64("x", {2, 3}, iota(6)), b.ints({2, 1})}, F, {2, 1}));
                 },
                 "op 2 (pd_op.expand -> %2): cannot expand [2,3] to [2,1]", true});
    c.push_back({"matmul inner dims differ", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.matmul", {b.f64("x", {2, 3}, x23), b.f64("y", {2, 3}, x23)}, F, {2, 3}));
                 },
                 "op 2 (pd_op.matmul -> %2): inner dims differ: [2,3] x [2,3] (transpose_x 0, transpose_y 0)", true});
    c.push_back({"matmul batch dims do not broadcast", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.matmul", {b.f64("x", {2, 2, 3}, iota(12)), b.f64("y", {3, 3, 2}, iota(18))}, F, {-1, 2, 2}));
                 },
                 "op 2 (pd_op.matmul -> %2): batch dims of [2,2,3] and [3,3,2] do not broadcast", true});
    c.push_back({"matmul of a 0-d tensor", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.matmul", {b.f64("x", {}, {2}), b.f64("y", {3}, {1, 2, 3})}, F, {3}));
                 },
                 "op 2 (pd_op.matmul -> %2): matmul of a 0-d tensor", true});
    c.push_back({"where with a condition that does not broadcast", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.where", {b.input("c", B, {3, 1}, {1, 0, 1}), b.f64("x", {2, 3}, x23), b.f64("y", {3}, {1, 2, 3})}, F, {2, 3}));
                 },
                 "op 3 (pd_op.where -> %3): shapes [3,1] and [2,3] do not broadcast", true});
    // -- shapes only a kernel works out (no check-pass rule): one provider all the same --
    c.push_back({"stack of parts of different shapes", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2}, {1, 2}), y = b.f64("y", {3}, {3, 4, 5});
                     b.fetch(b.op("pd_op.stack", {b.combine({x, y})}, F, {2, 2}, {{"axis", Attribute::int32(0)}}));
                 },
                 "op 3 (pd_op.stack -> %3): stack of [2] and [3]: shapes differ", true});
    c.push_back({"add_n of different shapes", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {2}, {1, 2}), y = b.f64("y", {3}, {3, 4, 5});
                     b.fetch(b.op("pd_op.add_n", {b.combine({x, y})}, F, {2}));
                 },
                 "op 3 (pd_op.add_n -> %3): add_n of different shapes: [2] and [3]", true});
    c.push_back({"swiglu without y on an odd last axis", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.swiglu", {b.f64("x", {2, 3}, iota(6))}, F, {2, 1}));
                 },
                 "op 1 (pd_op.swiglu -> %1): swiglu without y needs an even last axis, got x [2,3]", true});
    c.push_back({"tril of a 1-d tensor", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.tril", {b.f64("x", {3}, {1, 2, 3})}, F, {3}, {{"diagonal", Attribute::int32(0)}}));
                 },
                 "op 1 (pd_op.tril -> %1): operand 0 has rank 1, expected >= 2", true});
    c.push_back({"gather_nd index deeper than x", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.gather_nd", {b.f64("x", {2, 2}, {1, 2, 3, 4}), b.i64("i", {1, 3}, {0, 0, 0})}, F, {1}));
                 },
                 "op 2 (pd_op.gather_nd -> %2): gather_nd index depth 3 is outside [0, 2] (x [2,2])", true});
    c.push_back({"add_grad whose out_grad does not reduce to x", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {4}, iota(4)), y = b.f64("y", {3}, iota(3)), g = b.f64("g", {2, 3}, iota(6));
                     b.fetchAll(b.ops("pd_op.add_grad", {x, y, g}, {{F, {4}}, {F, {3}}}));
                 },
                 "op 3 (pd_op.add_grad -> %3): cannot reduce [2,3] to [4]", true});
    // -- reshape --
    c.push_back({"reshape with two -1", on23("pd_op.reshape", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({-1, -1})}; }, {-1, -1}, {}), "op 2 (pd_op.reshape -> %2): shape [-1,-1]: more than one -1"});
    c.push_back({"reshape with a dim below -1", on23("pd_op.reshape", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({-2, 3})}; }, {-1, 3}, {}), "op 2 (pd_op.reshape -> %2): shape [-2,3]: dims must be >= -1"});
    c.push_back({"reshape to another element count", on23("pd_op.reshape", [](CaseBuilder& b) { return std::vector<ValueId>{b.ints({4, 2})}; }, {4, 2}, {}), "op 2 (pd_op.reshape -> %2): reshape of [2,3] to [4,2] changes the element count", true});
    // -- scalar parameters --
    c.push_back({"dropout p above 1", [](CaseBuilder& b) {
                     b.fetch(b.ops("pd_op.dropout", {b.f64("x", {3}, {1, 2, 3})}, {{F, {3}}, {DType::UInt8, {3}}},
                                   {{"p", Attribute::float32(1.5)}, {"is_test", Attribute::boolean(false)}})[0]);
                 },
                 "op 1 (pd_op.dropout -> %1): attribute p = 1.500000: must be in [0, 1]"});
    c.push_back({"randint high not above low", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.randint", {b.ints({3})}, I64, {3}, {{"low", Attribute::int32(4)}, {"high", Attribute::int32(4)}}));
                 },
                 "op 1 (pd_op.randint -> %1): attributes low, high: high must be > low"});
    c.push_back({"arange step 0", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.arange", {b.f64("s", {1}, {0}), b.f64("e", {1}, {3}), b.f64("d", {1}, {0})}, F, {-1}));
                 },
                 "op 3 (pd_op.arange -> %3): arange with step 0", true});
    c.push_back({"arange step 0 (constant operands: the check pass refuses it)", [](CaseBuilder& b) {
                     auto scalar = [&](double v) { return b.op("pd_op.full", {}, F, {1}, {{"shape", Attribute::intArray({1})}, {"value", Attribute::float32(static_cast<float>(v))}}); };
                     b.fetch(b.op("pd_op.arange", {scalar(0), scalar(3), scalar(0)}, F, {-1}));
                 },
                 "op 3 (pd_op.arange -> %3): arange with step 0"});
    c.push_back({"topk k past the axis", [](CaseBuilder& b) {
                     b.fetchAll(b.ops("pd_op.topk", {b.f64("x", {3}, {1, 2, 3})}, {{F, {4}}, {I64, {4}}}, {{"k", Attribute::int32(4)}}));
                 },
                 "op 1 (pd_op.topk -> %1): k = 4 is outside [1, 3]", true});
    c.push_back({"pad with negative paddings", on23("pd_op.pad", none, {2, 3}, {{"paddings", Attribute::intArray({0, 0, -1, 0})}}), "op 1 (pd_op.pad -> %1): attribute paddings = [0,0,-1,0]: must be >= 0"});
    c.push_back({"builtin.slice index out of range", [](CaseBuilder& b) {
                     ValueId x = b.f64("x", {1}, {1});
                     b.fetch(b.op("builtin.slice", {b.combine({x})}, F, {1}, {{"index", Attribute::int32(1)}}));
                 },
                 "op 2 (builtin.slice -> %2): attribute index = 1: out of range for a vector of 1"});
    c.push_back({"embedding weight not 2-d", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.embedding", {b.i64("i", {1}, {0}), b.f64("w", {4}, {1, 2, 3, 4})}, F, {1, 4}));
                 },
                 "op 2 (pd_op.embedding -> %2): operand 1 (weight) has rank 1, expected 2"});
    return c;
}

}  // namespace rx::conformance
