// The one liveness analysis (Liveness.h): buffers, aliases, last uses, bytes per op.
#include "exec/Liveness.h"

#include "model/OpTraits.h"

#include <algorithm>

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
    L.buffersOf.assign(nv, {});
    L.allocatedAt.assign(n, {});
    L.freedAfter.assign(n, {});
    L.valuesDeadAfter.assign(n, {});
    const std::vector<uint32_t> reader = lastReaders(program);
    std::vector<uint32_t> defined(nv, Liveness::kNever);

    auto allocate = [&](ValueId v, uint32_t pos) {
        const Type& t = program.types()[program.value(v).type];
        auto add = [&](uint32_t element, int64_t bytes) {
            L.buffersOf[v].push_back(uint32_t(L.buffers.size()));
            L.allocatedAt[pos].push_back(uint32_t(L.buffers.size()));
            L.buffers.push_back(Liveness::Buffer{v, element, bytes, pos, pos});
        };
        if (t.kind == Type::Kind::Vector) {
            for (uint32_t e = 0; e < t.elements.size(); ++e) add(e, program.types().bytes(t.elements[e]));
        } else if (t.kind != Type::Kind::Null) {
            add(0, program.valueBytes(v));
        }
    };

    for (uint32_t pos = 0; pos < n; ++pos) {
        const Operation& o = program.op(gops[pos]);
        const AliasKind kind = aliasKindOf(program.opName(gops[pos]));
        auto operandBuffers = [&](size_t i) -> const std::vector<uint32_t>* {
            if (i >= o.operands.size() || o.operands[i] == kNoId || defined[o.operands[i]] == Liveness::kNever) return nullptr;
            return &L.buffersOf[o.operands[i]];
        };
        bool aliased = false;
        if (kind == AliasKind::Pack && o.results.size() == 1) {
            bool all = true;
            for (size_t i = 0; i < o.operands.size() && all; ++i) all = operandBuffers(i) != nullptr;
            if (all) {
                for (size_t i = 0; i < o.operands.size(); ++i)
                    for (uint32_t b : *operandBuffers(i)) L.buffersOf[o.results[0]].push_back(b);
                aliased = true;
            }
        } else if (kind == AliasKind::Unpack) {
            const auto* in = operandBuffers(0);
            if (in && in->size() == o.results.size()) {
                for (size_t i = 0; i < o.results.size(); ++i) L.buffersOf[o.results[i]] = {(*in)[i]};
                aliased = true;
            }
        } else if (kind == AliasKind::Element && o.results.size() == 1) {
            const auto* in = operandBuffers(0);
            const int64_t index = attrInt(o, "index", 0);
            if (in && index >= 0 && index < int64_t(in->size())) {
                L.buffersOf[o.results[0]] = {(*in)[size_t(index)]};
                aliased = true;
            }
        } else if (kind == AliasKind::Same && o.results.size() == 1) {
            if (const auto* in = operandBuffers(0)) {
                L.buffersOf[o.results[0]] = *in;
                aliased = true;
            }
        }
        for (ValueId r : o.results) {
            defined[r] = pos;
            if (!aliased) allocate(r, pos);
        }
    }

    L.lastUse.assign(nv, Liveness::kNever);
    L.releaseAfter.assign(nv, Liveness::kNever);
    for (ValueId v = 0; v < nv; ++v) {
        if (defined[v] == Liveness::kNever) continue;
        const uint32_t last = reader[v] == Liveness::kNever ? defined[v] : std::max(defined[v], reader[v]);
        L.lastUse[v] = last;
        if (!isResident(v)) {
            L.releaseAfter[v] = last;
            L.valuesDeadAfter[last].push_back(v);
        }
    }
    // A buffer lives as long as the longest-lived value referring to it.
    std::vector<uint8_t> residentBuffer(L.buffers.size(), 0);
    for (ValueId v = 0; v < nv; ++v)
        for (uint32_t b : L.buffersOf[v]) {
            if (L.releaseAfter[v] == Liveness::kNever) residentBuffer[b] = 1;
            else L.buffers[b].death = std::max(L.buffers[b].death, L.releaseAfter[v]);
        }
    for (uint32_t b = 0; b < L.buffers.size(); ++b) {
        if (residentBuffer[b]) L.buffers[b].death = Liveness::kNever;
        else L.freedAfter[L.buffers[b].death].push_back(b);
    }
    return L;
}

LiveBytes liveBytesOf(const Program& program, const Liveness& liveness) {
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

}  // namespace rx::exec
