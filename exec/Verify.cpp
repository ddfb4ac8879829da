// Equivalence by execution: both programs run on the same seeded inputs (integer inputs kept
// within the tables they index, OpSemantics::seededInputFor), fetches compared.
#include "exec/Verify.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <sstream>

#include "exec/cpu/CpuExecutor.h"
#include "model/Diagnostic.h"
#include "model/OpTraits.h"

namespace rx::exec {

std::string VerifyReport::summary() const {
    std::ostringstream s;
    if (equivalent) {
        s << "equivalent: " << compared << " fetched values agree";
        if (bitwiseEqual == compared) s << " bit for bit";
        else s << " (" << bitwiseEqual << " bit for bit, max |difference| " << maxAbsDifference << ")";
    } else {
        s << "NOT equivalent";
        if (firstDifference) {
            const ValueDifference& d = *firstDifference;
            s << ": first difference in " << d.valueName;
            if (!d.fetchName.empty()) s << " (" << d.fetchName << ")";
            if (d.reason == "value") s << " at element " << d.index << ": " << d.original << " vs " << d.rewritten;
            else s << ": " << d.reason << " differs";
        }
    }
    s << "; peak " << originalPeakBytes << " -> " << rewrittenPeakBytes << " bytes";
    return s.str();
}

StreamingComparison::Outcome StreamingComparison::compareTensors(const Tensor& a, const Tensor& b, const std::string& valueName,
                                                                  const std::string& fetchName, const VerifyOptions& o) {
    Outcome out;
    if (a.dtype != b.dtype) { out.difference = ValueDifference{valueName, fetchName, -1, 0, 0, "dtype"}; return out; }
    if (a.dims != b.dims) { out.difference = ValueDifference{valueName, fetchName, -1, 0, 0, "shape"}; return out; }
    if (a.bytes == b.bytes) { out.bitwise = true; return out; }
    const bool bitwise = o.rtol == 0.0 && o.atol == 0.0;
    const int eb = dtypeBytes(a.dtype);
    for (int64_t k = 0; k < a.numel(); ++k) {
        if (std::memcmp(a.bytes.data() + k * eb, b.bytes.data() + k * eb, eb) == 0) continue;
        // Complex elements compare by the modulus of their difference (reported: real parts).
        std::complex<double> cx = a.getComplex(k), cy = b.getComplex(k);
        bool nanX = std::isnan(cx.real()) || std::isnan(cx.imag()), nanY = std::isnan(cy.real()) || std::isnan(cy.imag());
        if (nanX && nanY) continue;
        double d = std::abs(cx - cy);
        if (!std::isnan(d)) out.maxAbsDifference = std::max(out.maxAbsDifference, d);
        // Bitwise mode: any differing bits (even -0 vs 0) are a difference.
        bool ok = !bitwise && !std::isnan(d) && d <= o.atol + o.rtol * std::abs(cy);
        if (!ok && !out.difference) out.difference = ValueDifference{valueName, fetchName, k, cx.real(), cy.real(), "value"};
    }
    return out;
}

StreamingComparison::StreamingComparison(RunResult first, const VerifyOptions& options)
    : owned_(std::move(first)), first_(&*owned_), options_(options) {}

StreamingComparison::StreamingComparison(const RunResult* first, const VerifyOptions& options)
    : first_(first), options_(options) {}

std::function<void(const FetchView&)> StreamingComparison::sink() {
    return [this](const FetchView& produced) { compare(produced); };
}

void StreamingComparison::compare(const FetchView& produced) {
    if (produced.captured) {
        // As compareRuns: only names the first run captured count; a later one of the same name wins.
        auto it = first_->values.find(std::string(produced.valueName));
        if (it == first_->values.end()) return;
        valueOutcomes_[it->first] = compareTensors(it->second, produced.tensor, it->first, "", options_);
        return;
    }
    const size_t i = fetchOutcomes_.size() + extraFetches_.size();
    if (i >= first_->fetches.size()) {
        extraFetches_.push_back({std::string(produced.valueName), std::string(produced.fetchName), -1, 0, 0, "missing"});
        return;
    }
    const FetchedValue& f = first_->fetches[i];
    fetchOutcomes_.push_back(compareTensors(f.tensor, produced.tensor, f.valueName, f.fetchName, options_));
    if (owned_) owned_->fetches[i].tensor = Tensor{};  // compared: the first run's copy is no longer needed
}

int64_t StreamingComparison::heldFirstRunBytes() const {
    int64_t bytes = 0;
    for (const FetchedValue& f : first_->fetches) bytes += f.tensor.byteSize();
    for (const auto& [name, t] : first_->values) bytes += t.byteSize();
    return bytes;
}

VerifyReport StreamingComparison::finish(const RunResult& second) {
    VerifyReport r;
    r.originalPeakBytes = first_->peakBytes;
    r.rewrittenPeakBytes = second.peakBytes;
    r.originalMs = first_->totalMs;
    r.rewrittenMs = second.totalMs;
    r.equivalent = true;
    auto add = [&](const Outcome& o) {
        ++r.compared;
        if (o.bitwise) ++r.bitwiseEqual;
        r.maxAbsDifference = std::max(r.maxAbsDifference, o.maxAbsDifference);
        if (o.difference) {
            if (!r.firstDifference) r.firstDifference = o.difference;
            r.equivalent = false;
        }
    };
    auto missing = [&](ValueDifference d) {
        if (!r.firstDifference) r.firstDifference = std::move(d);
        r.equivalent = false;
    };
    // Fetch i against fetch i, then the fetches only one run made, then captured values by name.
    for (const Outcome& o : fetchOutcomes_) add(o);
    for (size_t i = fetchOutcomes_.size(); i < first_->fetches.size(); ++i)
        missing({first_->fetches[i].valueName, first_->fetches[i].fetchName, -1, 0, 0, "missing"});
    for (const ValueDifference& d : extraFetches_) missing(d);
    for (const auto& [name, tensor] : first_->values) {
        auto it = valueOutcomes_.find(name);
        if (it == valueOutcomes_.end()) missing({name, "", -1, 0, 0, "missing"});
        else add(it->second);
    }
    return r;
}

VerifyReport compareRuns(const RunResult& a, const RunResult& b, const VerifyOptions& o) {
    // The streaming comparison fed b's fetches and values in order: one provider of the rules.
    StreamingComparison comparison(&a, o);
    for (const FetchedValue& f : b.fetches) comparison.compare(FetchView{false, f.fetchName, f.valueName, f.tensor});
    for (const auto& [name, t] : b.values) comparison.compare(FetchView{true, {}, name, t});
    return comparison.finish(b);
}

VerifyReport verifyPrograms(const Program& original, const Program& rewritten, const VerifyOptions& o, Executor* executor) {
    CpuExecutor cpu;
    Executor& ex = executor ? *executor : cpu;
    RunInputs inputs;
    inputs.seed = o.seed;
    RunOptions ro;
    ro.recordOpTimes = false;
    ro.residentValues = o.residentValues;
    bool hasFetch = false;
    for (OpId op : original.globalBlock().ops)
        if (isFetchOp(original.opName(op))) hasFetch = true;
    if (!hasFetch) {
        for (OpId op : original.globalBlock().ops) {
            std::string_view n = original.opName(op);
            if (isInputOp(n)) continue;
            for (ValueId v : original.op(op).results)
                if (original.uses(v).empty() && original.types()[original.value(v).type].kind == Type::Kind::DenseTensor)
                    ro.captureValues.push_back(original.value(v).name);
        }
    }
    ro.cancel = o.cancel;
    if (o.stage) o.stage->store(1);
    RunResult a = ex.run(original, inputs, ro);
    if (a.cancelled) throw Error("verify cancelled");
    a.ops = {};  // per-op records are not compared
    if (o.stage) o.stage->store(2);
    // The rewritten run is compared as it fetches: only the original's fetches are held.
    StreamingComparison comparison(std::move(a), o);
    ro.fetchSink = comparison.sink();
    RunResult b = ex.run(rewritten, inputs, ro);
    if (b.cancelled) throw Error("verify cancelled");
    if (o.stage) o.stage->store(3);
    return comparison.finish(b);
}

}  // namespace rx::exec
