// Binding the dynamic dims (-1) of a program's inputs to sizes, so that a run can make them.
#include "exec/InputDims.h"

#include <charconv>

#include "exec/OpSemantics.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"

namespace rx::exec {

namespace {

// The global block's input ops, with the tensor type of their result (null: not a tensor).
template <class Visit>
void forEachInput(const Program& program, Visit&& visit) {
    for (OpId op : program.globalBlock().ops) {
        if (!isInputOp(program.opName(op)) || program.op(op).results.empty()) continue;
        const ValueId v = program.op(op).results[0];
        const Type& t = program.types()[program.value(v).type];
        if (t.kind == Type::Kind::DenseTensor) visit(op, v, t);
    }
}

bool isDynamic(const std::vector<int64_t>& dims) {
    for (int64_t d : dims)
        if (d < 0) return true;
    return false;
}

}  // namespace

// grammar: NAME '=' (DIM ('x' DIM)*)?   DIM: a whole number from 1
InputDims parseInputDims(std::string_view text, std::string_view option) {
    const std::string expected = (option.empty() ? std::string() : std::string(option) + " ") + "expects NAME=DIMS (e.g. x=4x30, dims joined by 'x'; NAME= for a scalar), found '" +
                                 std::string(text) + "'";
    const size_t eq = text.rfind('=');
    if (eq == std::string_view::npos || eq == 0) throw Error(expected);
    InputDims out;
    out.name = std::string(text.substr(0, eq));
    std::string_view rest = text.substr(eq + 1);
    while (!rest.empty()) {
        const size_t x = rest.find('x');
        const std::string_view part = rest.substr(0, x);
        int64_t d = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), d);
        if (part.empty() || ec != std::errc() || end != part.data() + part.size() || d < 1)
            throw Error(expected + ": each dim a whole number from 1, found '" + std::string(part) + "'");
        out.dims.push_back(d);
        if (x == std::string_view::npos) break;
        rest = rest.substr(x + 1);
        if (rest.empty()) throw Error(expected + ": a dim after the last 'x'");
    }
    return out;
}

std::vector<InputDims> dynamicInputs(const Program& program) {
    std::vector<InputDims> out;
    forEachInput(program, [&](OpId op, ValueId, const Type& t) {
        if (isDynamic(t.dims)) out.push_back({inputName(program, op), t.dims});
    });
    return out;
}

void bindInputDims(Program& program, const std::vector<InputDims>& given) {
    for (const InputDims& g : given) {
        bool found = false;
        std::string names;
        std::vector<std::pair<ValueId, TypeId>> bind;
        forEachInput(program, [&](OpId op, ValueId v, const Type& t) {
            const std::string name = inputName(program, op);
            names += (names.empty() ? "" : ", ") + name;
            if (name != g.name) return;
            found = true;
            bool fits = t.dims.size() == g.dims.size();
            for (size_t i = 0; fits && i < t.dims.size(); ++i) fits = t.dims[i] < 0 || t.dims[i] == g.dims[i];
            if (!fits)
                throw Error("input " + name + " is declared " + dimsString(t.dims) + ": dims " + dimsString(g.dims) +
                            " do not fit it (the same rank, every fixed dim the same)");
            Type bound = t;
            bound.dims = g.dims;
            bind.emplace_back(v, program.internType(bound));
        });
        if (!found)
            throw Error("no input is named " + g.name + (names.empty() ? std::string(" (the program has no tensor inputs)")
                                                                        : " (the inputs: " + names + ")"));
        for (const auto& [v, type] : bind) program.setValueType(v, type);
    }
    if (!given.empty()) program.finish();
}

}  // namespace rx::exec
