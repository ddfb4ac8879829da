// The block interpreter's backend-independent parts: which ops it runs itself, positioned
// errors, and the check of an op's results against their declared types.
#include "exec/BlockInterpreter.h"

#include <algorithm>

#include "model/Diagnostic.h"

namespace rx::exec {

bool isStructuredOp(std::string_view name) { return name == "pd_op.if" || name == "pd_op.while"; }

bool isStackOp(std::string_view name) {
    return name == "cf.stack_create" || name == "cf.tuple_push" || name == "cf.tuple_pop" || name == "pd_op.has_elements";
}

bool isYieldOp(std::string_view name) { return name == "cf.yield"; }

bool isInterpretedOp(std::string_view name) { return isStructuredOp(name) || isStackOp(name) || isYieldOp(name); }

std::vector<std::string> interpretedOpNames() {
    std::vector<std::string> names = {"pd_op.if", "pd_op.while", "cf.yield", "cf.stack_create", "cf.tuple_push", "cf.tuple_pop",
                                      "pd_op.has_elements"};
    std::sort(names.begin(), names.end());
    return names;
}

bool backendRuns(const Operation& o, std::string_view name, bool hasKernel) {
    if (isYieldOp(name) || isStackOp(name)) return true;
    if (isStructuredOp(name)) return !o.regions.empty();  // run here, block by block
    return hasKernel && o.regions.empty();
}

void failAt(const Program& program, OpId op, const std::string& msg) { throw Error(opWhere(program, op) + ": " + msg); }

void checkProducedResults(const Program& program, OpId op, const std::vector<ProducedResult>& produced, int64_t maxBytesPerValue) {
    const Operation& o = program.op(op);
    for (size_t i = 0; i < o.results.size() && i < produced.size(); ++i) {
        const Type& t = program.types()[program.value(o.results[i]).type];
        const ProducedResult& s = produced[i];
        if (t.kind == Type::Kind::Null) continue;
        if (!s.set) failAt(program, op, "kernel produced no result " + std::to_string(i));
        if (!s.isList && s.dims && maxBytesPerValue > 0) {
            const int64_t bytes = numelOf(*s.dims) * dtypeBytes(s.dtype);
            if (bytes > maxBytesPerValue)
                failAt(program, op, "result " + program.value(o.results[i]).name + " holds " + std::to_string(bytes) + " bytes (limit " +
                                        std::to_string(maxBytesPerValue) + ", RunOptions::maxBytesPerValue)");
        }
        if (t.kind == Type::Kind::DenseTensor) {
            if (s.isList) failAt(program, op, "result " + std::to_string(i) + " is a vector, declared a tensor");
            if (!s.dims) failAt(program, op, "kernel produced no tensor for result " + std::to_string(i));
            const std::vector<int64_t>& dims = *s.dims;
            bool ok = s.dtype == t.dtype && dims.size() == t.dims.size();
            for (size_t d = 0; ok && d < t.dims.size(); ++d) ok = t.dims[d] < 0 || t.dims[d] == dims[d];
            if (!ok) {
                std::string computed, declared;
                for (int64_t d : dims) computed += std::to_string(d) + "x";
                for (int64_t d : t.dims) declared += std::to_string(d) + "x";
                failAt(program, op, "computed " + computed + std::string(dtypeShortName(s.dtype)) + " for " + program.value(o.results[i]).name +
                                        ", declared " + declared + std::string(dtypeShortName(t.dtype)));
            }
        } else if (t.kind == Type::Kind::Vector) {
            if (!s.isList || s.listSize != t.elements.size()) failAt(program, op, "result " + std::to_string(i) + " does not match its vector type");
        }
    }
}

}  // namespace rx::exec
