#pragma once
// A backend's op context over the values it holds: each operand and result is one tensor
// handle or a vector of them (builtin.combine). The CPU backend instantiates it with host
// tensors, the CUDA backend with device tensors; OpSite's operand queries are answered here
// once for both.
#include <string>
#include <utility>
#include <vector>

#include "exec/OpSemantics.h"
#include "model/RareVector.h"

namespace rx::exec {

// One per value of a run (32 bytes with a shared_ptr handle): the vector is one pointer wide,
// as only builtin.combine and a few ops make vectors.
template <class Handle>
struct SlotOf {
    Handle tensor;
    RareVector<Handle> list;
    bool isList = false;
    bool set = false;
};

template <class Handle>
class SlotSite : public OpSite {
public:
    using Slot = SlotOf<Handle>;
    SlotSite(const Program& p, OpId op, std::vector<const Slot*> in) : OpSite(p, op), inputs(std::move(in)) {
        outputs.resize(o.results.size());
    }
    std::vector<const Slot*> inputs;
    std::vector<Slot> outputs;

    size_t operandCount() const override { return inputs.size(); }
    bool has(size_t i) const override { return i < inputs.size() && inputs[i] && inputs[i]->set; }
    bool isVector(size_t i) const override { return inputs[i]->isList; }
    // Tensor operand i (fails when it is missing or a vector).
    const Handle& handle(size_t i) const {
        needOperand(i, false);
        return inputs[i]->tensor;
    }
    // Vector operand i (fails when it is missing or a tensor).
    const RareVector<Handle>& list(size_t i) const {
        needOperand(i, true);
        return inputs[i]->list;
    }
    // Calls f on operand i's tensor, or on each element of its vector.
    template <class F>
    void forEachTensor(size_t i, F&& f) const {
        if (!has(i)) fail("operand " + std::to_string(i) + " is missing");
        if (inputs[i]->isList) for (const Handle& t : inputs[i]->list) f(*t);
        else f(*inputs[i]->tensor);
    }
    bool isFloatScalar(size_t i) const override {
        return has(i) && !inputs[i]->isList && inputs[i]->tensor->numel() == 1 && isFloatDType(inputs[i]->tensor->dtype);
    }
    // Result i's declared dtype, refused unless `runs` says the backend computes in it.
    template <class Runs>
    DType declaredDType(size_t i, Runs&& runs) const {
        const Type& t = resultType(i);
        if (t.kind != Type::Kind::DenseTensor) fail("result " + std::to_string(i) + " is not a dense tensor");
        if (!runs(t.dtype)) fail("unsupported dtype " + std::string(dtypeShortName(t.dtype)));
        return t.dtype;
    }
    bool wants(size_t i) const { return i < outputs.size() && !resultIsNull(i); }
    void needResult(size_t i) const {
        if (i >= outputs.size()) fail("has " + std::to_string(outputs.size()) + " results, the kernel writes result " + std::to_string(i));
    }
    void setOutHandle(size_t i, Handle t) {
        needResult(i);
        outputs[i].tensor = std::move(t);
        outputs[i].set = true;
    }
    void setOutList(size_t i, std::vector<Handle> l) {
        needResult(i);
        outputs[i].list = std::move(l);
        outputs[i].isList = true;
        outputs[i].set = true;
    }
};

}  // namespace rx::exec
