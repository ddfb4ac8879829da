// The one liveness analysis (Liveness.h): buffers, aliases, last uses, bytes per op.
#include "exec/Liveness.h"

#include "model/OpTraits.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "exec/OpSemantics.h"
#include "model/CheckedMath.h"

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

// The memory of a run with control flow, walked as the block interpreter runs it (exec/
// BlockInterpreter.h) but with storage reduced to its byte count: slots refer to shared
// storage, storage is counted while any slot, yielded value or stack entry refers to it.
class ControlFlowMemory {
public:
    static constexpr uint32_t kAssumedIterationsCap = 100'000;

    ControlFlowMemory(const Program& p, const Liveness& L, const ControlPath* path)
        : p_(p), L_(L), path_(path), meter_(std::make_shared<Meter>()), slots_(p.values().size()) {}

    // Bytes held while each top-level op runs; false when a sum passed int64.
    bool run(std::vector<int64_t>& perOp) {
        const auto& gops = p_.globalBlock().ops;
        perOp.assign(gops.size(), 0);
        for (uint32_t pos = 0; pos < gops.size(); ++pos) {
            meter_->peak = meter_->current;
            runOp(gops[pos]);
            perOp[pos] = meter_->peak;
            for (ValueId v : L_.valuesDeadAfter[pos]) slots_[v] = Slot{};
            if (meter_->overflow) return false;
        }
        return true;
    }

private:
    struct Meter {
        int64_t current = 0, peak = 0;
        bool overflow = false;
    };
    using Storage = std::shared_ptr<const int64_t>;
    struct Slot {
        bool set = false;
        std::vector<Storage> parts;  // a tensor: one; a vector: its elements; a cf handle: none
        // Contents the model knows: small integer or bool constants and what is computed from
        // them (a loop counter and its condition), pd_op.has_elements of a stack.
        std::optional<std::vector<double>> constant;
        // 1 or 0 for a condition the model knows, -1 otherwise.
        int truth() const { return constant && constant->size() == 1 ? ((*constant)[0] != 0 ? 1 : 0) : -1; }
    };
    const Program& p_;
    const Liveness& L_;
    const ControlPath* path_;
    std::shared_ptr<Meter> meter_;
    std::vector<Slot> slots_;
    std::vector<std::vector<std::vector<Slot>>> stacks_;
    std::unordered_map<ValueId, size_t> stackOf_;
    std::unordered_map<OpId, size_t> nextDecision_;

    Storage allocate(int64_t bytes) {
        if (auto sum = checkedAdd(meter_->current, bytes)) meter_->current = *sum;
        else meter_->overflow = true;
        meter_->peak = std::max(meter_->peak, meter_->current);
        std::shared_ptr<Meter> meter = meter_;
        return Storage(new int64_t(bytes), [meter](const int64_t* b) {
            meter->current -= *b;
            delete b;
        });
    }
    Slot allocateValue(ValueId v) {
        const Type& t = p_.types()[p_.value(v).type];
        Slot s;
        if (t.kind == Type::Kind::Null) return s;
        s.set = true;
        if (t.kind == Type::Kind::Vector) {
            for (TypeId e : t.elements) s.parts.push_back(allocate(p_.types().bytes(e)));
        } else if (t.kind != Type::Kind::Opaque) {
            s.parts.push_back(allocate(p_.valueBytes(v)));
        }
        return s;
    }
    const Slot* operand(const Operation& o, size_t i) const {
        if (i >= o.operands.size() || o.operands[i] == kNoId || !slots_[o.operands[i]].set) return nullptr;
        return &slots_[o.operands[i]];
    }
    // The run's decision for this execution of `op`, if it recorded one.
    std::optional<uint32_t> decision(OpId op) {
        if (!path_) return std::nullopt;
        auto it = path_->decisions.find(op);
        if (it == path_->decisions.end()) return std::nullopt;
        size_t& next = nextDecision_[op];
        if (next >= it->second.size()) return std::nullopt;
        return it->second[next++];
    }

    void runOp(OpId id) {
        const Operation& o = p_.op(id);
        const std::string_view name = p_.opName(id);
        std::vector<Slot> out(o.results.size());
        bool made = true;
        if (name == "pd_op.if") out = runIf(id);
        else if (name == "pd_op.while") out = runWhile(id);
        else if (name == "cf.stack_create") {
            for (size_t i = 0; i < out.size(); ++i) {
                out[i].set = true;
                stackOf_[o.results[i]] = stacks_.size();
            }
            stacks_.emplace_back();
        } else if (name == "cf.tuple_push" || name == "cf.tuple_pop" || name == "pd_op.has_elements") {
            auto st = o.operands.empty() ? stackOf_.end() : stackOf_.find(o.operands[0]);
            if (st != stackOf_.end()) {
                auto& stack = stacks_[st->second];
                if (name == "cf.tuple_push") {
                    std::vector<Slot> tuple;
                    for (size_t i = 1; i < o.operands.size(); ++i) tuple.push_back(operand(o, i) ? *operand(o, i) : Slot{});
                    stack.push_back(std::move(tuple));
                } else if (name == "cf.tuple_pop") {
                    if (!stack.empty()) {
                        std::vector<Slot> tuple = std::move(stack.back());
                        stack.pop_back();
                        for (size_t i = 0; i < out.size() && i < tuple.size(); ++i) out[i] = std::move(tuple[i]);
                    }
                } else {
                    if (!out.empty()) {
                        out[0] = allocateValue(o.results[0]);
                        out[0].constant = std::vector<double>{stack.empty() ? 0.0 : 1.0};
                    }
                }
            } else {
                made = false;
            }
        } else {
            made = false;
            const AliasKind kind = aliasKindOf(name);
            if (kind == AliasKind::Pack && out.size() == 1) {
                bool all = true;
                for (size_t i = 0; i < o.operands.size() && all; ++i) all = operand(o, i) != nullptr;
                if (all) {
                    out[0].set = made = true;
                    for (size_t i = 0; i < o.operands.size(); ++i)
                        for (const Storage& s : operand(o, i)->parts) out[0].parts.push_back(s);
                }
            } else if (kind == AliasKind::Unpack) {
                if (const Slot* in = operand(o, 0); in && in->parts.size() == out.size()) {
                    for (size_t i = 0; i < out.size(); ++i) out[i] = Slot{true, {in->parts[i]}, std::nullopt};
                    made = true;
                }
            } else if (kind == AliasKind::Element && out.size() == 1) {
                const int64_t index = attrInt(o, "index", 0);
                if (const Slot* in = operand(o, 0); in && index >= 0 && index < int64_t(in->parts.size())) {
                    out[0] = Slot{true, {in->parts[size_t(index)]}, std::nullopt};
                    made = true;
                }
            } else if (kind == AliasKind::Same && out.size() == 1) {
                if (const Slot* in = operand(o, 0)) {
                    out[0] = *in;
                    made = true;
                }
            }
        }
        if (!made) {
            for (size_t i = 0; i < out.size(); ++i) out[i] = allocateValue(o.results[i]);
            if (out.size() == 1) out[0].constant = evaluate(o, name);
        }
        for (size_t i = 0; i < o.results.size(); ++i) slots_[o.results[i]] = std::move(out[i]);
    }

    // The contents of a small integer or bool result computed from known contents (exact in
    // doubles), so that a counted loop's iterations are known without running it.
    std::optional<std::vector<double>> evaluate(const Operation& o, std::string_view name) const {
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
        if (it == kBinary.end() || o.operands.size() != 2) return std::nullopt;
        const Slot* a = operand(o, 0);
        const Slot* b = operand(o, 1);
        if (!a || !b || !a->constant || !b->constant || !integral(o.operands[0]) || !integral(o.operands[1])) return std::nullopt;
        const std::vector<double>& x = *a->constant;
        const std::vector<double>& y = *b->constant;
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

    // A block's ops up to its cf.yield; its values (and arguments) are dropped when it ends.
    std::vector<Slot> runBlock(BlockId b) {
        const Block& block = p_.block(b);
        std::vector<Slot> yielded;
        for (OpId op : block.ops) {
            if (p_.op(op).dead) continue;
            if (p_.opName(op) == "cf.yield") {
                for (ValueId v : p_.op(op).operands) yielded.push_back(v != kNoId ? slots_[v] : Slot{});
                break;
            }
            runOp(op);
        }
        for (OpId op : block.ops)
            for (ValueId r : p_.op(op).results) slots_[r] = Slot{};
        for (ValueId a : block.args) slots_[a] = Slot{};
        for (ValueId a : block.kwargs) slots_[a] = Slot{};
        return yielded;
    }

    std::vector<Slot> runIf(OpId id) {
        const Operation& o = p_.op(id);
        std::vector<Slot> out(o.results.size());
        // The run's branch; else the condition's if the model knows it; else the then branch.
        const Slot* cond = operand(o, 0);
        const int truth = cond ? cond->truth() : -1;
        const uint32_t region = decision(id).value_or(truth == 0 ? 1u : 0u);
        if (region >= o.regions.size() || o.regions[region].empty()) return out;
        std::vector<Slot> yielded = runBlock(o.regions[region][0]);
        for (size_t i = 0; i < out.size() && i < yielded.size(); ++i) out[i] = std::move(yielded[i]);
        return out;
    }

    std::vector<Slot> runWhile(OpId id) {
        const Operation& o = p_.op(id);
        std::vector<Slot> carried;
        for (size_t i = 1; i < o.operands.size(); ++i) carried.push_back(operand(o, i) ? *operand(o, i) : Slot{});
        if (o.regions.empty() || o.regions[0].empty()) return carried;
        const BlockId body = o.regions[0][0];
        const Block& block = p_.block(body);
        const std::optional<uint32_t> planned = decision(id);
        int known = operand(o, 0) ? operand(o, 0)->truth() : -1;
        for (uint32_t iteration = 0;; ++iteration) {
            // Without the run's count: while the model knows the condition holds (up to
            // kAssumedIterationsCap: a condition that never turns false fails the run itself),
            // else once.
            const bool again = planned ? iteration < *planned : known >= 0 ? known == 1 && iteration < kAssumedIterationsCap : iteration < 1;
            if (!again) break;
            for (size_t i = 0; i < block.args.size() && i < carried.size(); ++i) slots_[block.args[i]] = carried[i];
            std::vector<Slot> yielded = runBlock(body);
            if (yielded.empty()) break;
            known = yielded[0].truth();
            carried.assign(std::make_move_iterator(yielded.begin() + 1), std::make_move_iterator(yielded.end()));
        }
        carried.resize(o.results.size());
        return carried;
    }
};

}  // namespace

LiveBytes liveBytesOf(const Program& program, const Liveness& liveness, const ControlPath* path) {
    LiveBytes out = liveBytesWithoutControlFlow(program, liveness);
    if (!out.error.empty() || !hasControlFlow(program)) return out;
    std::vector<int64_t> perOp;
    if (!ControlFlowMemory(program, liveness, path).run(perOp)) {
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
