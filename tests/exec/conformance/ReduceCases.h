#pragma once
// Conformance value cases for the reduction family beyond sum/mean/max/min/prod: any, all,
// argmax/argmin (first extremum wins), topk (ties keep the lower index), cumsum's modes.
#include "exec/conformance/Cases.h"

namespace rx::conformance {

inline std::vector<ValueCase> reduceValueCases() {
    std::vector<ValueCase> c;
    c.push_back({"pd_op.any", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.any", {b.input("x", B, {2, 3}, {0, 1, 0, 0, 0, 0}), b.ints({1})}, B, {2}, {{"keepdim", Attribute::boolean(false)}}));
                 },
                 {{{2}, {1, 0}}}});
    c.push_back({"pd_op.all", [](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.all", {b.input("x", B, {2, 3}, {1, 1, 1, 1, 0, 1}), b.ints({-1})}, B, {2, 1}, {{"keepdim", Attribute::boolean(true)}}));
                 },
                 {{{2, 1}, {1, 0}}}});
    c.push_back({"pd_op.all", [](CaseBuilder& b) {  // no axes: the whole tensor
                     b.fetch(b.op("pd_op.all", {b.input("x", B, {2, 2}, {1, 1, 1, 1}), b.ints({})}, B, {}));
                 },
                 {{{}, {1}}}});
    const std::vector<double> v = {1, 5, 5, 7, 2, 0};
    c.push_back({"pd_op.argmax", [v](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.argmax", {b.f64("x", {2, 3}, v), b.ints({1})}, I64, {2},
                                  {{"keepdims", Attribute::boolean(false)}, {"flatten", Attribute::boolean(false)}}));
                 },
                 {{{2}, {1, 0}}}});
    c.push_back({"pd_op.argmax", [v](CaseBuilder& b) {  // flattened
                     b.fetch(b.op("pd_op.argmax", {b.f64("x", {2, 3}, v), b.ints({0})}, I64, {},
                                  {{"keepdims", Attribute::boolean(false)}, {"flatten", Attribute::boolean(true)}}));
                 },
                 {{{}, {3}}}});
    c.push_back({"pd_op.argmin", [v](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.argmin", {b.f64("x", {2, 3}, v), b.ints({0})}, I64, {1, 3},
                                  {{"keepdims", Attribute::boolean(true)}, {"flatten", Attribute::boolean(false)}}));
                 },
                 {{{1, 3}, {0, 1, 1}}}});
    const std::vector<double> t = {3, 1, 4, 1, 5, 9, 2, 6};
    c.push_back({"pd_op.topk", [t](CaseBuilder& b) {
                     b.fetchAll(b.ops("pd_op.topk", {b.f64("x", {2, 4}, t)}, {{F, {2, 2}}, {I64, {2, 2}}},
                                      {{"k", Attribute::int32(2)}, {"axis", Attribute::int32(-1)}, {"largest", Attribute::boolean(true)}}));
                 },
                 {{{2, 2}, {4, 3, 9, 6}}, {{2, 2}, {2, 0, 1, 3}}}});
    c.push_back({"pd_op.topk", [t](CaseBuilder& b) {  // smallest, k from an operand, along axis 0
                     b.fetchAll(b.ops("pd_op.topk", {b.f64("x", {2, 4}, t), b.ints({1})}, {{F, {1, 4}}, {I64, {1, 4}}},
                                      {{"axis", Attribute::int32(0)}, {"largest", Attribute::boolean(false)}}));
                 },
                 {{{1, 4}, {3, 1, 2, 1}}, {{1, 4}, {0, 0, 1, 0}}}});
    c.push_back({"pd_op.topk", [](CaseBuilder& b) {  // ties: the lower index first
                     b.fetchAll(b.ops("pd_op.topk", {b.f64("x", {4}, {2, 7, 2, 7})}, {{F, {3}}, {I64, {3}}}, {{"k", Attribute::int32(3)}}));
                 },
                 {{{3}, {7, 7, 2}}, {{3}, {1, 3, 0}}}});
    const std::vector<double> x23 = {1, 2, 3, 4, 5, 6};
    c.push_back({"pd_op.cumsum", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.cumsum", {b.f64("x", {2, 3}, x23), b.ints({1})}, F, {2, 3}));
                 },
                 {{{2, 3}, {1, 3, 6, 4, 9, 15}}}});
    c.push_back({"pd_op.cumsum", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.cumsum", {b.f64("x", {2, 3}, x23), b.ints({0})}, F, {2, 3}));
                 },
                 {{{2, 3}, {1, 2, 3, 5, 7, 9}}}});
    c.push_back({"pd_op.cumsum", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.cumsum", {b.f64("x", {2, 3}, x23), b.ints({-1})}, F, {2, 3},
                                  {{"exclusive", Attribute::boolean(true)}, {"reverse", Attribute::boolean(true)}}));
                 },
                 {{{2, 3}, {5, 3, 0, 11, 6, 0}}}});
    c.push_back({"pd_op.cumsum", [x23](CaseBuilder& b) {
                     b.fetch(b.op("pd_op.cumsum", {b.f64("x", {2, 3}, x23), b.ints({0})}, F, {6}, {{"flatten", Attribute::boolean(true)}}));
                 },
                 {{{6}, {1, 3, 6, 10, 15, 21}}}});
    return c;
}

}  // namespace rx::conformance
