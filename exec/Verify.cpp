// Equivalence by execution: both programs run on the same seeded inputs (integer inputs kept
// within the tables they index, OpSemantics::seededInputFor), fetches compared.
#include "exec/Verify.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

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

StreamingComparison::StreamingComparison(const VerifyOptions& options) : options_(options) {}

StreamingComparison::~StreamingComparison() {
    if (fd_ >= 0) ::close(fd_);
}

std::function<void(const FetchView&)> StreamingComparison::firstRunSink() {
    return [this](const FetchView& produced) { record(produced); };
}

StreamingComparison::Stored StreamingComparison::store(const FetchView& produced) {
    Stored s;
    s.fetchName = std::string(produced.fetchName);
    s.valueName = std::string(produced.valueName);
    s.dtype = produced.tensor.dtype;
    s.dims = produced.tensor.dims;
    if (fd_ < 0 && !fileFailed_) {
        // Unlinked at once: the data leaves with the process, whatever ends it.
        std::string path = (std::filesystem::temp_directory_path() / "rx-verify-XXXXXX").string();
        fd_ = ::mkstemp(path.data());
        if (fd_ >= 0) ::unlink(path.c_str());
        else fileFailed_ = true;
    }
    const int64_t size = produced.tensor.byteSize();
    if (fd_ >= 0 && !fileFailed_) {
        int64_t written = 0;
        while (written < size) {
            const ssize_t n = ::pwrite(fd_, produced.tensor.bytes.data() + written, size_t(size - written), fileBytes_ + written);
            if (n <= 0) { if (n < 0 && errno == EINTR) continue; break; }
            written += n;
        }
        if (written == size) {
            s.fileOffset = fileBytes_;
            fileBytes_ += size;
            return s;
        }
        fileFailed_ = true;  // a full disk: this and later tensors stay in memory
    }
    s.held = produced.tensor;
    return s;
}

void StreamingComparison::record(const FetchView& produced) {
    if (produced.captured) values_[std::string(produced.valueName)] = store(produced);
    else fetches_.push_back(store(produced));
}

void StreamingComparison::firstRunDone(const RunResult& first) {
    firstPeakBytes_ = first.peakBytes;
    firstMs_ = first.totalMs;
}

void StreamingComparison::borrowFirstRun(const RunResult& first) {
    auto borrow = [](const std::string& fetchName, const std::string& valueName, const Tensor& t) {
        Stored s;
        s.fetchName = fetchName;
        s.valueName = valueName;
        s.dtype = t.dtype;
        s.dims = t.dims;
        s.borrowed = &t;
        return s;
    };
    for (const FetchedValue& f : first.fetches) fetches_.push_back(borrow(f.fetchName, f.valueName, f.tensor));
    for (const auto& [name, t] : first.values) values_[name] = borrow("", name, t);
    firstRunDone(first);
}

Tensor StreamingComparison::load(Stored& s) const {
    if (s.fileOffset < 0) return std::move(s.held);
    Tensor t(s.dtype, s.dims);
    const int64_t size = t.byteSize();
    int64_t done = 0;
    while (done < size) {
        const ssize_t n = ::pread(fd_, t.bytes.data() + done, size_t(size - done), s.fileOffset + done);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            throw Error("verify: cannot read back the original run's " + s.valueName + " from its temporary file: " +
                        (n < 0 ? std::strerror(errno) : "end of file"));
        }
        done += n;
    }
    return t;
}

StreamingComparison::Outcome StreamingComparison::compareWith(Stored& s, const Tensor& produced) {
    Outcome o;
    if (s.borrowed) o = compareTensors(*s.borrowed, produced, s.valueName, s.fetchName, options_);
    else o = compareTensors(load(s), produced, s.valueName, s.fetchName, options_);
    s.compared = true;
    return o;
}

std::function<void(const FetchView&)> StreamingComparison::sink() {
    return [this](const FetchView& produced) { compare(produced); };
}

void StreamingComparison::compare(const FetchView& produced) {
    if (produced.captured) {
        // As compareRuns: only names the first run captured count; a later one of the same name wins.
        auto it = values_.find(std::string(produced.valueName));
        if (it == values_.end()) return;
        Stored& s = it->second;
        if (s.compared && !s.borrowed && s.fileOffset < 0) return;  // its held copy was used up by an earlier one
        valueOutcomes_[it->first] = compareWith(s, produced.tensor);
        return;
    }
    const size_t i = fetchOutcomes_.size() + extraFetches_.size();
    if (i >= fetches_.size()) {
        extraFetches_.push_back({std::string(produced.valueName), std::string(produced.fetchName), -1, 0, 0, "missing"});
        return;
    }
    fetchOutcomes_.push_back(compareWith(fetches_[i], produced.tensor));
}

int64_t StreamingComparison::heldFirstRunBytes() const {
    int64_t bytes = 0;
    for (const Stored& s : fetches_) bytes += s.held.byteSize();
    for (const auto& [name, s] : values_) bytes += s.held.byteSize();
    return bytes;
}

VerifyReport StreamingComparison::finish(const RunResult& second) {
    VerifyReport r;
    r.originalPeakBytes = firstPeakBytes_;
    r.rewrittenPeakBytes = second.peakBytes;
    r.originalMs = firstMs_;
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
    for (size_t i = fetchOutcomes_.size(); i < fetches_.size(); ++i)
        missing({fetches_[i].valueName, fetches_[i].fetchName, -1, 0, 0, "missing"});
    for (const ValueDifference& d : extraFetches_) missing(d);
    for (const auto& [name, stored] : values_) {
        auto it = valueOutcomes_.find(name);
        if (it == valueOutcomes_.end()) missing({name, "", -1, 0, 0, "missing"});
        else add(it->second);
    }
    return r;
}

VerifyReport compareRuns(const RunResult& a, const RunResult& b, const VerifyOptions& o) {
    // The streaming comparison fed b's fetches and values in order: one provider of the rules.
    StreamingComparison comparison(o);
    comparison.borrowFirstRun(a);
    for (const FetchedValue& f : b.fetches) comparison.compare(FetchView{false, f.fetchName, f.valueName, f.tensor});
    for (const auto& [name, t] : b.values) comparison.compare(FetchView{true, {}, name, t});
    return comparison.finish(b);
}

namespace {

// The values a program without pd_op.fetch is compared on: its sinks (values nobody reads).
std::vector<std::string> sinkValues(const Program& program) {
    for (OpId op : program.globalBlock().ops)
        if (isFetchOp(program.opName(op))) return {};
    std::vector<std::string> names;
    for (OpId op : program.globalBlock().ops) {
        if (isInputOp(program.opName(op))) continue;
        for (ValueId v : program.op(op).results)
            if (program.uses(v).empty() && program.types()[program.value(v).type].kind == Type::Kind::DenseTensor)
                names.push_back(program.value(v).name);
    }
    return names;
}

}  // namespace

Verification::Verification(const VerifyOptions& options, Executor* executor)
    : options_(options),
      ownedExecutor_(executor ? nullptr : std::make_unique<CpuExecutor>()),
      executor_(executor ? executor : ownedExecutor_.get()),
      comparison_(std::make_unique<StreamingComparison>(options)) {
    inputs_.seed = options.seed;
    runOptions_.recordOpTimes = false;
    runOptions_.keepOpRecords = false;  // the report reads each run's peak and time only
    runOptions_.residentValues = options.residentValues;
    runOptions_.cancel = options.cancel;
}

Verification::~Verification() = default;

void Verification::runOriginal(const Program& original) {
    // Neither run keeps its fetches: the original's go to a temporary file, the rewritten's
    // are compared against them as they are made (StreamingComparison).
    runOptions_.captureValues = sinkValues(original);
    if (options_.stage) options_.stage->store(1);
    runOptions_.fetchSink = comparison_->firstRunSink();
    const RunResult a = executor_->run(original, inputs_, runOptions_);
    if (a.cancelled) throw Error("verify cancelled");
    comparison_->firstRunDone(a);
}

VerifyReport Verification::runRewritten(const Program& rewritten) {
    if (options_.stage) options_.stage->store(2);
    runOptions_.fetchSink = comparison_->sink();
    const RunResult b = executor_->run(rewritten, inputs_, runOptions_);
    if (b.cancelled) throw Error("verify cancelled");
    if (options_.stage) options_.stage->store(3);
    return comparison_->finish(b);
}

VerifyReport verifyPrograms(std::shared_ptr<const Program> original, const Program& rewritten, const VerifyOptions& o,
                            Executor* executor) {
    if (!original) throw Error("verifyPrograms: no original program");
    Verification verification(o, executor);
    verification.runOriginal(*original);
    original.reset();  // the caller's last reference, if it gave that up: freed before the rewritten runs
    return verification.runRewritten(rewritten);
}

VerifyReport verifyPrograms(const Program& original, const Program& rewritten, const VerifyOptions& o, Executor* executor) {
    // Not owned: an aliasing pointer that frees nothing.
    return verifyPrograms(std::shared_ptr<const Program>(std::shared_ptr<const Program>(), &original), rewritten, o, executor);
}

}  // namespace rx::exec
