#pragma once
// Builds small programs op by op for the tests of every area (header-only).
#include <string>
#include <vector>

#include "algorithms/Solver.h"
#include "model/Diagnostic.h"
#include "model/Program.h"

namespace rx::test {

struct ProgramBuilder {
    std::shared_ptr<Program> program = std::make_shared<Program>();
    Program& p = *program;
    OpId lastOp = kNoId;

    TypeId f32(std::vector<int64_t> dims) { return p.tensorType(DType::Float32, std::move(dims)); }
    TypeId i64(std::vector<int64_t> dims) { return p.tensorType(DType::Int64, std::move(dims)); }

    std::vector<ValueId> ops(std::string_view name, std::vector<ValueId> operands, std::vector<TypeId> types,
                             std::vector<NamedAttribute> attrs = {}) {
        lastOp = p.appendOp(Program::kGlobalBlock, name, operands, types, std::move(attrs));
        // Kept finished after every op: test programs are small, and tests query them (and
        // hand them to analyses) at any point while building.
        p.finish();
        const auto& results = p.op(lastOp).results;
        return {results.begin(), results.end()};
    }
    ValueId op(std::string_view name, std::vector<ValueId> operands, TypeId type,
               std::vector<NamedAttribute> attrs = {}) {
        return ops(name, std::move(operands), {type}, std::move(attrs))[0];
    }
    void noResult(std::string_view name, std::vector<ValueId> operands) { ops(name, std::move(operands), {}); }
    int index() const { return int(p.globalBlock().ops.size()) - 1; }  // of the last op
    std::string name(ValueId v) const { return p.value(v).name; }
    std::vector<std::string> names(const std::vector<ValueId>& vs) const {
        std::vector<std::string> out;
        for (ValueId v : vs) out.push_back(name(v));
        return out;
    }
};

inline RecomputeSpec makeSpec(int fwdEnd, int bwdStart, std::vector<ValueId> inputs, std::vector<ValueId> outputs) {
    RecomputeSpec s;
    s.fwdOpEndIdx = fwdEnd;
    s.backwardOpStartIdx = bwdStart;
    s.inputs = std::move(inputs);
    s.outputs = std::move(outputs);
    return s;
}

}  // namespace rx::test
