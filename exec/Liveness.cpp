// The one liveness analysis (Liveness.h): buffers, aliases, last uses, bytes per op.
#include "exec/Liveness.h"

#include "model/OpTraits.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "exec/BlockInterpreter.h"
#include "exec/OpSemantics.h"
#include "model/CheckedMath.h"
#include "model/Diagnostic.h"

namespace rx::exec {

AliasKind aliasKindOf(std::string_view name) {
    if (name == "builtin.combine") return AliasKind::Pack;
    if (name == "builtin.split") return AliasKind::Unpack;
    if (name == "builtin.slice") return AliasKind::Element;
    if (name == "pd_op.fetch") return AliasKind::Same;
    return AliasKind::None;
}

std::vector<uint8_t> residentValuesOf(const Program& program, const std::vector<ValueId>& extra) {
    std::vector<uint8_t> resident(program.values().size(), 0);
    for (ValueId v : extra)
        if (v < resident.size()) resident[v] = 1;
    for (OpId op : program.globalBlock().ops) {
        const std::string_view n = program.opName(op);
        if (isInputOp(n))
            for (ValueId r : program.op(op).results) resident[r] = 1;
    }
    return resident;
}

namespace {

// Last top-level reader of every value (uses inside regions count at their ancestor).
std::vector<uint32_t> lastReaders(const Program& program) {
    const auto& gops = program.globalBlock().ops;
    std::vector<uint32_t> last(program.values().size(), Liveness::kNever);
    std::vector<BlockId> stack;
    auto read = [&](ValueId x, uint32_t i) {
        if (x == kNoId || x >= last.size()) return;
        last[x] = last[x] == Liveness::kNever ? i : std::max(last[x], i);
    };
    for (uint32_t i = 0; i < gops.size(); ++i) {
        const Operation& top = program.op(gops[i]);
        for (ValueId x : top.operands) read(x, i);
        for (const auto& region : top.regions)
            for (BlockId blk : region) stack.push_back(blk);
        while (!stack.empty()) {
            const BlockId blk = stack.back();
            stack.pop_back();
            for (OpId inner : program.block(blk).ops) {
                for (ValueId x : program.op(inner).operands) read(x, i);
                for (const auto& region : program.op(inner).regions)
                    for (BlockId b2 : region) stack.push_back(b2);
            }
        }
    }
    return last;
}

}  // namespace

int64_t Liveness::ownedBytes(ValueId v) const {
    int64_t sum = 0;
    if (v >= buffersOf.size()) return 0;
    for (uint32_t b : buffersOf[v]) {
        if (buffers[b].owner != v) continue;
        auto s = checkedAdd(sum, buffers[b].bytes);
        if (!s || buffers[b].bytes == kInt64Max) return kInt64Max;
        sum = *s;
    }
    return sum;
}

uint32_t Liveness::storageEnd(ValueId v) const {
    uint32_t end = v < lastUse.size() ? lastUse[v] : kNever;
    bool owns = false;
    for (uint32_t b : buffersOf[v]) {
        if (buffers[b].owner != v) continue;
        end = owns ? std::max(end, buffers[b].death) : buffers[b].death;
        owns = true;
    }
    return end;
}

Liveness analyzeLiveness(const Program& program, const std::vector<uint8_t>& resident) {
    const auto& gops = program.globalBlock().ops;
    const size_t n = gops.size();
    const size_t nv = program.values().size();
    auto isResident = [&](ValueId v) { return v < resident.size() && resident[v]; };
    Liveness L;
    L.buffersOf = CompactLists<uint32_t>(nv);
    L.allocatedAt = CompactLists<uint32_t>(n);
    const std::vector<uint32_t> reader = lastReaders(program);
    std::vector<uint32_t> defined(nv, Liveness::kNever);

    auto allocate = [&](ValueId v, uint32_t pos) {
        const Type& t = program.types()[program.value(v).type];
        auto add = [&](uint32_t element, int64_t bytes) {
            L.buffersOf.appendToLast(v, uint32_t(L.buffers.size()));
            L.allocatedAt.appendToLast(pos, uint32_t(L.buffers.size()));
            L.buffers.push_back(Liveness::Buffer{v, element, bytes, pos, pos});
        };
        if (t.kind == Type::Kind::Vector) {
            for (uint32_t e = 0; e < t.elements.size(); ++e) add(e, program.types().bytes(t.elements[e]));
        } else if (t.kind != Type::Kind::Null) {
            add(0, program.valueBytes(v));
        }
    };

    // An operand's buffers are copied out before an alias's list is set: setting a list
    // appends to the storage the operand's list is read from (and may move it).
    std::vector<uint32_t> operandCopy, aliasBuffers;
    for (uint32_t pos = 0; pos < n; ++pos) {
        const Operation& o = program.op(gops[pos]);
        const AliasKind kind = aliasKindOf(program.opName(gops[pos]));
        auto operandBuffers = [&](size_t i) -> const std::vector<uint32_t>* {
            if (i >= o.operands.size() || o.operands[i] == kNoId || defined[o.operands[i]] == Liveness::kNever) return nullptr;
            const std::span<const uint32_t> in = L.buffersOf[o.operands[i]];
            operandCopy.assign(in.begin(), in.end());
            return &operandCopy;
        };
        bool aliased = false;
        if (kind == AliasKind::Pack && o.results.size() == 1) {
            bool all = true;
            for (size_t i = 0; i < o.operands.size() && all; ++i) all = operandBuffers(i) != nullptr;
            if (all) {
                aliasBuffers.clear();
                for (size_t i = 0; i < o.operands.size(); ++i) {
                    const std::vector<uint32_t>& in = *operandBuffers(i);
                    aliasBuffers.insert(aliasBuffers.end(), in.begin(), in.end());
                }
                L.buffersOf.set(o.results[0], aliasBuffers);
                aliased = true;
            }
        } else if (kind == AliasKind::Unpack) {
            const auto* in = operandBuffers(0);
            if (in && in->size() == o.results.size()) {
                for (size_t i = 0; i < o.results.size(); ++i) L.buffersOf.set(o.results[i], std::span(*in).subspan(i, 1));
                aliased = true;
            }
        } else if (kind == AliasKind::Element && o.results.size() == 1) {
            const auto* in = operandBuffers(0);
            const int64_t index = attrInt(o, "index", 0);
            if (in && index >= 0 && index < int64_t(in->size())) {
                L.buffersOf.set(o.results[0], std::span(*in).subspan(size_t(index), 1));
                aliased = true;
            }
        } else if (kind == AliasKind::Same && o.results.size() == 1) {
            if (const auto* in = operandBuffers(0)) {
                L.buffersOf.set(o.results[0], *in);
                aliased = true;
            }
        }
        for (ValueId r : o.results) {
            defined[r] = pos;
            if (!aliased) allocate(r, pos);
        }
    }
    L.buffers.shrink_to_fit();

    L.lastUse.assign(nv, Liveness::kNever);
    L.releaseAfter.assign(nv, Liveness::kNever);
    for (ValueId v = 0; v < nv; ++v) {
        if (defined[v] == Liveness::kNever) continue;
        const uint32_t last = reader[v] == Liveness::kNever ? defined[v] : std::max(defined[v], reader[v]);
        L.lastUse[v] = last;
        if (!isResident(v)) L.releaseAfter[v] = last;
    }
    L.valuesDeadAfter = CompactLists<ValueId>::grouped(
        n, nv, [&](size_t v) { return L.releaseAfter[v] == Liveness::kNever ? CompactLists<ValueId>::kSkip : size_t(L.releaseAfter[v]); },
        [](size_t v) { return ValueId(v); });
    // A buffer lives as long as the longest-lived value referring to it.
    std::vector<uint8_t> residentBuffer(L.buffers.size(), 0);
    for (ValueId v = 0; v < nv; ++v)
        for (uint32_t b : L.buffersOf[v]) {
            if (L.releaseAfter[v] == Liveness::kNever) residentBuffer[b] = 1;
            else L.buffers[b].death = std::max(L.buffers[b].death, L.releaseAfter[v]);
        }
    for (uint32_t b = 0; b < L.buffers.size(); ++b)
        if (residentBuffer[b]) L.buffers[b].death = Liveness::kNever;
    L.freedAfter = CompactLists<uint32_t>::grouped(
        n, L.buffers.size(),
        [&](size_t b) { return residentBuffer[b] ? CompactLists<uint32_t>::kSkip : size_t(L.buffers[b].death); },
        [](size_t b) { return uint32_t(b); });
    L.buffersOf.shrinkToFit();
    L.allocatedAt.shrinkToFit();
    return L;
}

namespace {

// Bytes per op from the buffers' lifetimes (a program without control flow).
LiveBytes liveBytesWithoutControlFlow(const Program& program, const Liveness& liveness) {
    const auto& gops = program.globalBlock().ops;
    const size_t n = gops.size();
    LiveBytes out;
    auto fail = [&](const std::string& what) {
        LiveBytes failed;
        failed.error = "memory model: " + what + " does not fit in 64-bit byte counts (above 8 EiB)";
        return failed;
    };
    std::vector<int64_t> delta(n + 1, 0);
    for (const Liveness::Buffer& b : liveness.buffers) {
        if (b.bytes == kInt64Max) return fail("the size of value " + program.value(b.owner).name);
        if (!b.bytes) continue;
        const size_t end = b.death == Liveness::kNever ? n : size_t(b.death) + 1;
        auto up = checkedAdd(delta[b.birth], b.bytes), down = checkedSub(delta[end], b.bytes);
        if (!up || !down) return fail("the bytes allocated around value " + program.value(b.owner).name);
        delta[b.birth] = *up;
        delta[end] = *down;
        if (b.death == Liveness::kNever) {
            auto r = checkedAdd(out.residentBytes, b.bytes);
            if (!r) return fail("the resident bytes (at " + program.value(b.owner).name + ")");
            out.residentBytes = *r;
        }
    }
    out.perOp.resize(n);
    int64_t live = 0;
    for (size_t i = 0; i < n; ++i) {
        auto next = checkedAdd(live, delta[i]);
        if (!next) return fail("the live bytes at op " + std::to_string(i) + " (" + std::string(program.opName(gops[i])) + ")");
        live = *next;
        out.perOp[i] = live;
        if (live > out.peakBytes) {
            out.peakBytes = live;
            out.peakIndex = uint32_t(i);
        }
    }
    return out;
}

}  // namespace

bool hasControlFlow(const Program& program) {
    for (OpId id = 0; id < program.ops().size(); ++id) {
        const Operation& o = program.op(id);
        if (o.dead || o.parentBlock == kNoId) continue;
        if (!o.regions.empty() || hasOpTrait(program.opName(id), OpTrait::ControlFlow) || program.opName(id) == "pd_op.has_elements")
            return true;
    }
    return false;
}

namespace {

// One value as the memory model runs it: its declared dtype and dims, the storage it refers to
// (its byte count, shared with its aliases and counted while any handle refers to it; null:
// none) and the contents the model knows: small integer or bool constants and what is computed
// from them (a loop counter and its condition), pd_op.has_elements of a stack.
struct ModelValue {
    DType dtype = DType::Invalid;
    std::vector<int64_t> dims;
    std::shared_ptr<const int64_t> storage;
    std::optional<std::vector<double>> constant;
};

// The memory model's backend of the block interpreter (exec/BlockInterpreter.h): it runs no
// kernels. A result gets storage of its declared bytes, aliases (aliasKindOf) refer to their
// operands' storage; conditions follow the recorded path, else the conditions the model can
// evaluate, else the then branch and one iteration (Liveness.h).
class ModelBackend {
public:
    using Handle = std::shared_ptr<const ModelValue>;
    using Slot = SlotOf<Handle>;
    static constexpr bool kTolerant = true;
    // A loop the model knows runs on stops being followed here (a condition that never turns
    // false fails the run itself).
    static constexpr int64_t kAssumedIterationsCap = 100'000;

    ModelBackend(const Program& p, const ControlPath* path, std::vector<int64_t>& perOp)
        : p_(p), path_(path), perOp_(perOp), meter_(std::make_shared<Meter>()) {}

    bool overflowed() const { return meter_->overflow; }

    void runKernel(OpId op, size_t, std::vector<const Slot*> in, std::vector<Slot>& out) {
        const Operation& o = p_.op(op);
        const std::string_view name = p_.opName(op);
        if (alias(o, aliasKindOf(name), in, out)) return;
        for (size_t i = 0; i < out.size(); ++i) out[i] = allocateValue(o.results[i]);
        if (out.size() == 1) {
            std::optional<std::vector<double>> known = evaluate(o, name, in);
            if (known && out[0].set && !out[0].isList && out[0].tensor) {
                auto v = std::make_shared<ModelValue>(*out[0].tensor);
                v->constant = std::move(known);
                out[0].tensor = std::move(v);
            }
        }
    }
    bool conditionOf(OpId, const Handle* cond, int64_t iterationsRun) const {
        const ModelValue* v = cond ? cond->get() : nullptr;
        const int known = v && v->constant && v->constant->size() == 1 ? ((*v->constant)[0] != 0 ? 1 : 0) : -1;
        if (iterationsRun < 0) return known != 0;  // an if: the then branch unless known false
        if (known < 0) return iterationsRun < 1;
        return known == 1 && iterationsRun < kAssumedIterationsCap;
    }
    Handle boolFlag(OpId op, bool value) {
        auto v = std::make_shared<ModelValue>(*makeValue(p_.op(op).results.at(0)));
        v->constant = std::vector<double>{value ? 1.0 : 0.0};
        return v;
    }
    std::optional<uint32_t> recordedDecision(OpId op) {
        if (!path_) return std::nullopt;
        auto it = path_->decisions.find(op);
        if (it == path_->decisions.end()) return std::nullopt;
        size_t& next = nextDecision_[op];
        if (next >= it->second.size()) return std::nullopt;
        return it->second[next++];
    }
    void beginOp(size_t, OpId) { meter_->peak = meter_->current; }
    int64_t opPeakBytes() const { return meter_->peak; }
    void endOp(size_t, OpId) {}
    int64_t heldBytes() const { return meter_->current; }
    void opFinished(size_t position, const OpRecord& record) { perOp_[position] = record.peakBytes; }

private:
    struct Meter {
        int64_t current = 0, peak = 0;
        bool overflow = false;
    };
    const Program& p_;
    const ControlPath* path_;
    std::vector<int64_t>& perOp_;
    std::shared_ptr<Meter> meter_;
    std::unordered_map<OpId, size_t> nextDecision_;

    std::shared_ptr<const int64_t> allocate(int64_t bytes) {
        if (auto sum = checkedAdd(meter_->current, bytes)) meter_->current = *sum;
        else meter_->overflow = true;
        meter_->peak = std::max(meter_->peak, meter_->current);
        std::shared_ptr<Meter> meter = meter_;
        return std::shared_ptr<const int64_t>(new int64_t(bytes), [meter](const int64_t* b) {
            meter->current -= *b;
            delete b;
        });
    }
    Handle makeValue(TypeId type, int64_t bytes) {
        auto m = std::make_shared<ModelValue>();
        const Type& t = p_.types()[type];
        m->dtype = t.dtype;
        m->dims = t.dims;
        m->storage = allocate(bytes);
        return m;
    }
    Handle makeValue(ValueId v) { return makeValue(p_.value(v).type, p_.valueBytes(v)); }
    // A new value of the result's declared bytes (a vector: one storage per element).
    Slot allocateValue(ValueId v) {
        const Type& t = p_.types()[p_.value(v).type];
        Slot s;
        if (t.kind == Type::Kind::Null) return s;
        s.set = true;
        if (t.kind == Type::Kind::Vector) {
            s.isList = true;
            for (TypeId e : t.elements) s.list.push_back(makeValue(e, p_.types().bytes(e)));
        } else if (t.kind != Type::Kind::Opaque) {
            s.tensor = makeValue(v);
        }
        return s;
    }
    // The storages a slot refers to: a tensor's one, a vector's elements, none for a handle.
    static std::vector<Handle> parts(const Slot& s) {
        if (s.isList) return std::vector<Handle>(s.list.begin(), s.list.end());
        if (s.tensor) return {s.tensor};
        return {};
    }
    // The element of an unpacked vector: the same storage, no known contents.
    static Handle elementOf(const Handle& h) {
        auto v = std::make_shared<ModelValue>(*h);
        v->constant.reset();
        return v;
    }
    static Slot tensorSlot(Handle h) {
        Slot s;
        s.set = true;
        s.tensor = std::move(h);
        return s;
    }
    // Results that refer to their operands' storage; false when the operands do not fit (the
    // results then allocate their own, as Liveness does).
    static bool alias(const Operation& o, AliasKind kind, const std::vector<const Slot*>& in, std::vector<Slot>& out) {
        auto operand = [&](size_t i) -> const Slot* { return i < in.size() ? in[i] : nullptr; };
        if (kind == AliasKind::Pack && out.size() == 1) {
            for (size_t i = 0; i < o.operands.size(); ++i)
                if (!operand(i)) return false;
            out[0].set = out[0].isList = true;
            for (size_t i = 0; i < o.operands.size(); ++i)
                for (const Handle& h : parts(*operand(i))) out[0].list.push_back(h);
            return true;
        }
        if (kind == AliasKind::Unpack) {
            const Slot* s = operand(0);
            if (!s) return false;
            const std::vector<Handle> ps = parts(*s);
            if (ps.size() != out.size()) return false;
            for (size_t i = 0; i < out.size(); ++i) out[i] = tensorSlot(elementOf(ps[i]));
            return true;
        }
        if (kind == AliasKind::Element && out.size() == 1) {
            const int64_t index = attrInt(o, "index", 0);
            const Slot* s = operand(0);
            if (!s) return false;
            const std::vector<Handle> ps = parts(*s);
            if (index < 0 || index >= int64_t(ps.size())) return false;
            out[0] = tensorSlot(elementOf(ps[size_t(index)]));
            return true;
        }
        if (kind == AliasKind::Same && out.size() == 1) {
            if (!operand(0)) return false;
            out[0] = *operand(0);
            return true;
        }
        return false;
    }

    // The contents of a small integer or bool result computed from known contents (exact in
    // doubles), so that a counted loop's iterations are known without running it.
    std::optional<std::vector<double>> evaluate(const Operation& o, std::string_view name, const std::vector<const Slot*>& in) const {
        constexpr size_t kMaxElements = 16;
        auto integral = [&](ValueId v) {
            const Type& t = p_.types()[p_.value(v).type];
            return t.kind == Type::Kind::DenseTensor &&
                   (t.dtype == DType::Bool || t.dtype == DType::Int8 || t.dtype == DType::UInt8 || t.dtype == DType::Int16 ||
                    t.dtype == DType::Int32 || t.dtype == DType::Int64);
        };
        const ValueId r = o.results[0];
        if (!integral(r)) return std::nullopt;
        const Type& rt = p_.types()[p_.value(r).type];
        if (name == "pd_op.full") {
            int64_t n = 1;
            for (int64_t d : rt.dims) {
                if (d < 0 || d > int64_t(kMaxElements)) return std::nullopt;
                n *= d;
            }
            if (n > int64_t(kMaxElements)) return std::nullopt;
            const double v = attrFloat(o, "value", 0.0);
            if (v != std::trunc(v) || std::fabs(v) > 9.0e15) return std::nullopt;
            return std::vector<double>(size_t(n), rt.dtype == DType::Bool ? double(v != 0) : v);
        }
        static const std::unordered_map<std::string_view, int> kBinary = {
            {"pd_op.add", 0}, {"pd_op.subtract", 1}, {"pd_op.multiply", 2}, {"pd_op.less_than", 3}, {"pd_op.less_equal", 4},
            {"pd_op.greater_than", 5}, {"pd_op.greater_equal", 6}, {"pd_op.equal", 7}, {"pd_op.not_equal", 8},
            {"pd_op.logical_and", 9}, {"pd_op.logical_or", 10}};
        auto it = kBinary.find(name);
        if (it == kBinary.end() || o.operands.size() != 2 || in.size() != 2) return std::nullopt;
        auto known = [](const Slot* s) -> const std::vector<double>* {
            return s && !s->isList && s->tensor && s->tensor->constant ? &*s->tensor->constant : nullptr;
        };
        const std::vector<double>* a = known(in[0]);
        const std::vector<double>* b = known(in[1]);
        if (!a || !b || !integral(o.operands[0]) || !integral(o.operands[1])) return std::nullopt;
        const std::vector<double>& x = *a;
        const std::vector<double>& y = *b;
        if (x.size() != y.size() && x.size() != 1 && y.size() != 1) return std::nullopt;
        std::vector<double> out(std::max(x.size(), y.size()));
        for (size_t i = 0; i < out.size(); ++i) {
            const double u = x[x.size() == 1 ? 0 : i], w = y[y.size() == 1 ? 0 : i];
            switch (it->second) {
                case 0: out[i] = u + w; break;
                case 1: out[i] = u - w; break;
                case 2: out[i] = u * w; break;
                case 3: out[i] = u < w; break;
                case 4: out[i] = u <= w; break;
                case 5: out[i] = u > w; break;
                case 6: out[i] = u >= w; break;
                case 7: out[i] = u == w; break;
                case 8: out[i] = u != w; break;
                case 9: out[i] = u != 0 && w != 0; break;
                default: out[i] = u != 0 || w != 0; break;
            }
            if (std::fabs(out[i]) > 9.0e15) return std::nullopt;  // past exact doubles: not known
        }
        if (rt.dtype == DType::Bool)
            for (double& v : out) v = v != 0;
        return out;
    }
};

}  // namespace

LiveBytes liveBytesOf(const Program& program, const Liveness& liveness, const ControlPath* path) {
    LiveBytes out = liveBytesWithoutControlFlow(program, liveness);
    if (!out.error.empty() || !hasControlFlow(program)) return out;
    std::vector<int64_t> perOp(program.globalBlock().ops.size(), 0);
    // The interpreter every backend runs control flow with, its values reduced to byte counts.
    RunOptions options;
    options.maxBytesPerValue = 0;
    options.maxTotalBytes = 0;
    const RunControl control(options, ProgramCheck{}, {}, perOp.size());
    RunResult run;
    ModelBackend backend(program, path, perOp);
    try {
        BlockInterpreter<ModelBackend>(program, backend, options, control, run).runGlobalBlock(liveness.valuesDeadAfter);
    } catch (const Error& e) {
        LiveBytes failed;
        failed.error = std::string("memory model: ") + e.what();
        return failed;
    }
    if (backend.overflowed()) {
        LiveBytes failed;
        failed.error = "memory model: the live bytes inside a control-flow op do not fit in 64-bit byte counts (above 8 EiB)";
        return failed;
    }
    out.perOp = std::move(perOp);
    out.peakBytes = 0;
    out.peakIndex = 0;
    for (size_t i = 0; i < out.perOp.size(); ++i)
        if (out.perOp[i] > out.peakBytes) {
            out.peakBytes = out.perOp[i];
            out.peakIndex = uint32_t(i);
        }
    return out;
}

}  // namespace rx::exec
