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

VerifyReport compareRuns(const RunResult& a, const RunResult& b, const VerifyOptions& o) {
    VerifyReport r;
    r.originalPeakBytes = a.peakBytes;
    r.rewrittenPeakBytes = b.peakBytes;
    r.originalMs = a.totalMs;
    r.rewrittenMs = b.totalMs;
    r.equivalent = true;
    bool bitwise = o.rtol == 0.0 && o.atol == 0.0;
    auto differ = [&](ValueDifference d) {
        if (!r.firstDifference) r.firstDifference = std::move(d);
        r.equivalent = false;
    };
    size_t n = std::max(a.fetches.size(), b.fetches.size());
    for (size_t i = 0; i < n; ++i) {
        if (i >= a.fetches.size() || i >= b.fetches.size()) {
            const FetchedValue& f = i < a.fetches.size() ? a.fetches[i] : b.fetches[i];
            differ({f.valueName, f.fetchName, -1, 0, 0, "missing"});
            continue;
        }
        const FetchedValue& fa = a.fetches[i];
        const FetchedValue& fb = b.fetches[i];
        ++r.compared;
        if (fa.tensor.dtype != fb.tensor.dtype) { differ({fa.valueName, fa.fetchName, -1, 0, 0, "dtype"}); continue; }
        if (fa.tensor.dims != fb.tensor.dims) { differ({fa.valueName, fa.fetchName, -1, 0, 0, "shape"}); continue; }
        if (fa.tensor.bytes == fb.tensor.bytes) { ++r.bitwiseEqual; continue; }
        const int eb = dtypeBytes(fa.tensor.dtype);
        bool reported = false;
        for (int64_t k = 0; k < fa.tensor.numel(); ++k) {
            if (std::memcmp(fa.tensor.bytes.data() + k * eb, fb.tensor.bytes.data() + k * eb, eb) == 0) continue;
            // Complex elements compare by the modulus of their difference (reported: real parts).
            std::complex<double> cx = fa.tensor.getComplex(k), cy = fb.tensor.getComplex(k);
            double x = cx.real(), y = cy.real();
            bool nanX = std::isnan(cx.real()) || std::isnan(cx.imag()), nanY = std::isnan(cy.real()) || std::isnan(cy.imag());
            if (nanX && nanY) continue;
            double d = std::abs(cx - cy);
            if (!std::isnan(d)) r.maxAbsDifference = std::max(r.maxAbsDifference, d);
            // Bitwise mode: any differing bits (even -0 vs 0) are a difference.
            bool ok = !bitwise && !std::isnan(d) && d <= o.atol + o.rtol * std::abs(cy);
            if (!ok && !reported) { differ({fa.valueName, fa.fetchName, k, x, y, "value"}); reported = true; }
        }
    }
    for (const auto& [name, ta] : a.values) {
        auto it = b.values.find(name);
        if (it == b.values.end()) { differ({name, "", -1, 0, 0, "missing"}); continue; }
        RunResult one, two;
        one.fetches.push_back({"", name, ta});
        two.fetches.push_back({"", name, it->second});
        VerifyReport sub = compareRuns(one, two, o);
        ++r.compared;
        r.bitwiseEqual += sub.bitwiseEqual;
        r.maxAbsDifference = std::max(r.maxAbsDifference, sub.maxAbsDifference);
        if (!sub.equivalent) differ(*sub.firstDifference);
    }
    return r;
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
    if (o.stage) o.stage->store(2);
    RunResult b = ex.run(rewritten, inputs, ro);
    if (b.cancelled) throw Error("verify cancelled");
    if (o.stage) o.stage->store(3);
    return compareRuns(a, b, o);
}

}  // namespace rx::exec
