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
    void noResult(std::string_view name, std::vector<ValueId> operands) { ops(name, std::move(operands), std::vector<TypeId>{}); }

    // Tensor results given as (dtype, dims); inputs, constant int arrays and fetches, as the
    // executor tests build their programs.
    TypeId tensor(DType t, std::vector<int64_t> dims) { return p.tensorType(t, std::move(dims)); }
    std::vector<ValueId> tensorOps(std::string_view name, std::vector<ValueId> operands,
                                   const std::vector<std::pair<DType, std::vector<int64_t>>>& results, std::vector<NamedAttribute> attrs = {}) {
        std::vector<TypeId> types;
        for (const auto& [t, d] : results) types.push_back(tensor(t, d));
        return ops(name, std::move(operands), std::move(types), std::move(attrs));
    }
    ValueId op(std::string_view name, std::vector<ValueId> operands, DType t, std::vector<int64_t> dims,
               std::vector<NamedAttribute> attrs = {}) {
        return ops(name, std::move(operands), {tensor(t, std::move(dims))}, std::move(attrs))[0];
    }
    // A pd_op.data input fed under `name`.
    ValueId data(const std::string& inputName, DType t, std::vector<int64_t> dims) {
        return ops("pd_op.data", {}, {tensor(t, std::move(dims))}, {{"name", Attribute::string(inputName)}})[0];
    }
    ValueId ints(std::vector<int64_t> v) {
        return op("pd_op.full_int_array", {}, DType::Int64, {static_cast<int64_t>(v.size())}, {{"value", Attribute::intArray(v)}});
    }
    // pd_op.fetch of v under `fetchName` (v's own name when empty).
    void fetch(ValueId v, std::string fetchName = {}) {
        if (fetchName.empty()) fetchName = p.value(v).name;
        ops("pd_op.fetch", {v}, {p.value(v).type}, {{"name", Attribute::string(fetchName)}});
    }
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
