#pragma once
// A small fixed program for the fuzz targets whose input is read against a program (spec,
// profile report): parsed once per process from text that names inputs, outputs and ops.
#include "model/PirReader.h"

namespace rx::fuzz {

inline const Program& fixedProgram() {
    static const Program program = parsePir(
        "{\n"
        "    (%0) = \"pd_op.data\" () {name:\"x\",stop_gradient:[false]} : () -> builtin.tensor<4x8xf32>\n"
        "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[false]} : (builtin.tensor<4x8xf32>) -> builtin.tensor<4x8xf32>\n"
        "    (%2) = \"pd_op.exp\" (%1) {stop_gradient:[false]} : (builtin.tensor<4x8xf32>) -> builtin.tensor<4x8xf32>\n"
        "    (%3) = \"pd_op.full\" () {value:(Float)1} : () -> builtin.tensor<4x8xf32>\n"
        "    (%4) = \"pd_op.multiply\" (%2, %3) {stop_gradient:[false]} : (builtin.tensor<4x8xf32>, builtin.tensor<4x8xf32>) -> builtin.tensor<4x8xf32>\n"
        "    (%5) = \"pd_op.relu_grad\" (%1, %4) {stop_gradient:[false]} : (builtin.tensor<4x8xf32>, builtin.tensor<4x8xf32>) -> builtin.tensor<4x8xf32>\n"
        "    () = \"pd_op.fetch\" (%5) {name:\"out\"} : (builtin.tensor<4x8xf32>) -> \n"
        "}\n",
        "fixed.pir");
    return program;
}

}  // namespace rx::fuzz
