// The one solve report writer (SolveReport.h): rapidjson::PrettyWriter's layout with the
// `values` rows one per line, written in blocks (PrettyJson, RowLayout below).
#include "algorithms/SolveReport.h"

#include <rapidjson/internal/dtoa.h>

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>

#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/JsonSupport.h"
#include "model/TextBuffer.h"

namespace rx {
namespace {

// Byte for byte what rapidjson::PrettyWriter (4-space indent, `"key": value`, `[]`/`{}` when
// empty, its escapes and its shortest-round-trip doubles) writes, appended to a buffer in
// pieces and handed to the sink about every MiB. The report is mostly short strings and
// small numbers, where PrettyWriter's one call per character was a tenth of a whole solve.
template <class Sink>
class PrettyJson {
public:
    explicit PrettyJson(Sink& sink) : sink_(sink) { buf_.reserve(kChunk + 4096); }

    void StartObject() { open('{', false); }
    void EndObject() { close('}'); }
    void StartArray() { open('[', true); }
    void EndArray() { close(']'); }
    // A key that needs no escapes (the report's own names).
    void KeyLiteral(std::string_view k) {
        prefix();
        buf_ += '"';
        buf_ += k;
        buf_ += '"';
    }
    void String(const char* s, size_t n) { prefix(); quoted(std::string_view(s, n)); }
    void Int64(int64_t v) {
        prefix();
        buf_.appendDecimal(v);
    }
    void Double(double d) {
        prefix();
        if (!std::isfinite(d))  // PrettyWriter writes nothing (broken JSON): refuse, like JsonWriter.h
            throw Error("refusing to write a non-finite number to the solve report (a figure that does not fit)");
        char b[32];
        buf_.append(b, static_cast<size_t>(rapidjson::internal::dtoa(d, b) - b));
    }
    void Bool(bool b) {
        prefix();
        buf_ += b ? std::string_view("true") : std::string_view("false");
    }
    void RawValue(const char* s, size_t n) { prefix(); buf_.append(s, n); }
    void Null() { prefix(); buf_ += std::string_view("null"); }
    // A value whose text the caller appends itself (rows laid out by RowLayout below): the
    // separator and indent are written, the buffer returned. Call endRaw() after it.
    TextBuffer& beginRaw() {
        prefix();
        return buf_;
    }
    void endRaw() {
        if (buf_.size() >= kChunk) flush();
    }
    size_t depth() const { return levels_.size(); }
    // PrettyWriter's escapes: control characters (\b \t \n \f \r, else \u00XX), '"' and
    // '\\'; everything else (UTF-8 included) as is.
    static void appendQuoted(TextBuffer& buf, std::string_view s) {
        if (findInvalidUtf8(s)) {  // bytes that are not UTF-8 as U+FFFD: the report stays valid JSON
            const std::string valid = toValidUtf8(s);
            appendQuoted(buf, valid);
            return;
        }
        static constexpr auto kEscaped = [] {
            std::array<bool, 256> t{};
            for (int c = 0; c < 0x20; ++c) t[size_t(c)] = true;
            t['"'] = t['\\'] = true;
            return t;
        }();
        buf += '"';
        size_t run = 0;
        for (size_t i = 0; i < s.size(); ++i) {
            const unsigned char c = static_cast<unsigned char>(s[i]);
            if (!kEscaped[c]) continue;
            buf.append(s.data() + run, i - run);
            run = i + 1;
            buf += '\\';
            switch (c) {
            case '"': buf += '"'; break;
            case '\\': buf += '\\'; break;
            case '\b': buf += 'b'; break;
            case '\t': buf += 't'; break;
            case '\n': buf += 'n'; break;
            case '\f': buf += 'f'; break;
            case '\r': buf += 'r'; break;
            default: {
                static const char kHex[] = "0123456789ABCDEF";
                buf += "u00";
                buf += kHex[c >> 4];
                buf += kHex[c & 15];
            }
            }
        }
        buf.append(s.data() + run, s.size() - run);
        buf += '"';
    }
    // The rest of the buffer to the sink; call once at the end.
    void flush() {
        if (!buf_.empty()) sink_.write(buf_.view());
        buf_.clear();
    }

private:
    static constexpr size_t kChunk = size_t(1) << 20;
    struct Level {
        bool inArray;
        uint32_t count;  // values so far; in an object keys and values both count
    };

    void open(char c, bool array) {
        prefix();
        buf_ += c;
        levels_.push_back({array, 0});
    }
    void close(char c) {
        const bool empty = levels_.back().count == 0;
        levels_.pop_back();
        if (!empty) {
            buf_ += '\n';
            indent();
        }
        buf_ += c;
        if (buf_.size() >= kChunk) flush();
    }
    // PrettyWriter::PrettyPrefix: separator, line break and indent before a value or key.
    void prefix() {
        if (levels_.empty()) return;
        Level& l = levels_.back();
        if (l.inArray) {
            buf_ += l.count ? std::string_view(",\n") : std::string_view("\n");
            indent();
        } else if (l.count % 2) {
            buf_ += ": ";
        } else {
            buf_ += l.count ? std::string_view(",\n") : std::string_view("\n");
            indent();
        }
        ++l.count;
    }
    void indent() { buf_.appendSpaces(levels_.size() * 4); }
    void quoted(std::string_view s) { appendQuoted(buf_, s); }

    Sink& sink_;
    TextBuffer buf_;
    std::vector<Level> levels_;
};

struct StringOut {
    std::string& text;
    void write(std::string_view piece) { text.append(piece); }
};

// The `values` rows' keys, in the (sorted) order PrettyWriter's callers gave them.
constexpr std::string_view kValueKeys[] = {"ban_rule", "ban_text",  "banned", "distance", "fusion_loop",
                                           "in_network", "materialized", "materialized_backwards",
                                           "mid_hold", "name", "pin", "side", "size", "skip", "weight"};

// A `values` row: an object of fixed keys on one line, as rapidjson::Writer writes it
// (`{"key":value,...}`). One line per value keeps the report greppable (a value's whole
// story on the line of its name) and 40% smaller than PrettyWriter's line per field, and
// what comes before each value is the same in every row: built once, a row is a run of appends.
class RowLayout {
public:
    template <size_t N>
    explicit RowLayout(const std::string_view (&keys)[N]) {
        for (size_t i = 0; i < N; ++i) before_.push_back((i ? ",\"" : "{\"") + std::string(keys[i]) + "\":");
    }
    const std::string& before(size_t field) const { return before_[field]; }
    static constexpr std::string_view end() { return "}"; }

private:
    std::vector<std::string> before_;
};

std::string_view boolText(bool b) { return b ? "true" : "false"; }

template <class Out>
class ReportWriter {
    using Pretty = PrettyJson<Out>;

public:
    explicit ReportWriter(Out& out) : w_(out) {}
    void flush() { w_.flush(); }

    void key(std::string_view k) { w_.KeyLiteral(k); }
    void string(std::string_view s) { w_.String(s.data(), s.size()); }
    void integer(int64_t n) { w_.Int64(n); }
    // An exact decimal (cut values and weights are exact in units of 1/scale).
    void exact(int64_t units, int64_t scale) {
        FlowNetwork::UnitsBuffer buf;
        const std::string_view text = FlowNetwork::formatUnits(buf, units, scale);
        w_.RawValue(text.data(), text.size());
    }
    void names(const Program& p, const std::vector<ValueId>& values) {
        scalars(values, [&](TextBuffer& b, ValueId v) { Pretty::appendQuoted(b, p.value(v).name); });
    }
    // An array of scalars as one run of appends: the separator is the same before every element.
    template <class Items, class Append>
    void scalars(const Items& items, Append append) {
        w_.StartArray();
        if (!items.empty()) {
            const std::string separator = ",\n" + std::string(w_.depth() * 4, ' ');
            TextBuffer& b = w_.beginRaw();
            for (size_t i = 0; i < items.size(); ++i) {
                if (i) b += separator;
                append(b, items[i]);
            }
            w_.endRaw();
        }
        w_.EndArray();
    }
    void strings(const std::vector<std::string>& list) {
        scalars(list, [](TextBuffer& b, const std::string& s) { Pretty::appendQuoted(b, s); });
    }
    void memory(const MemoryProfile& m) {
        w_.StartObject();
        // A profile with an error has no figures: null, never a 0 that reads as a real peak.
        const auto figure = [&](int64_t n) { m.ok() ? integer(n) : w_.Null(); };
        key("boundary_activation_bytes"), figure(m.boundaryActivationBytes);
        key("boundary_bytes"), figure(m.boundaryBytes);
        if (!m.error.empty()) key("error"), string(m.error);
        key("peak_bytes"), figure(m.peakBytes);
        key("peak_op_index"), figure(m.peakOpIndex);
        key("resident_bytes"), figure(m.residentBytes);
        w_.EndObject();
    }
    void config(const RecomputeConfig& c) {
        w_.StartObject();
        key("aggressive_recomputation"), w_.Bool(c.aggressiveRecomputation);
        key("compute_intensive_ops"), strings(c.computeIntensiveOps);
        key("distance_base"), w_.Double(c.distanceBase);
        key("distance_cap"), integer(c.distanceCap);
        key("ignore_ops"), strings(c.ignoreOps);
        key("max_dist_from_bw"), integer(c.maxDistFromBw);
        key("minimum_weight"), w_.Double(c.minimumWeight);
        key("non_materialized_factor"), integer(c.nonMaterializedFactor);
        key("pinned_recomputed"), strings(c.pinnedRecomputed);
        key("pinned_saved"), strings(c.pinnedSaved);
        key("random_ops"), strings(c.randomOps);
        key("recomputable_ops"), strings(c.recomputableOps);
        key("size_ratio_ban"), w_.Double(c.sizeRatioBan);
        key("tending_to_recompute_ops"), strings(c.tendingToRecomputeOps);
        key("view_ops"), strings(c.viewOps);
        w_.EndObject();
    }

    // The keys in alphabetical order but for the figures measured after the plan (the rewritten
    // program's memory and the timings): they close the report, after `await` returns, so that
    // the CLI writes the rest while the program is rewritten.
    void report(const SolveReportInput& in, const std::function<void()>& await) {
        const Program& p = in.program;
        const SolveResult& r = in.result;
        const Plan& plan = r.plan;
        w_.StartObject();
        if (in.config) key("config"), config(*in.config);
        key("cut_value"), exact(plan.cutValueUnits, plan.scale);
        key("cut_value_text"), string(plan.cutValueText());
        // Where the seed raises under this config the plan is this project's own (issue 8).
        key("extension"), w_.Bool(r.extension);
        key("hazards"), strings(plan.hazards);
        key("memory_saved_bytes"), integer(plan.memorySavedBytes);
        key("mid_hold_values"), names(p, plan.midHoldValues);
        key("network");
        w_.StartObject();
        key("edges"), integer(r.network ? int64_t(r.network->arcs.size()) : 0);
        key("nodes"), integer(r.network ? int64_t(r.network->nodeCount()) : 0);
        key("reduced"), w_.Bool(in.reduced);
        key("solved_edges"), integer(int64_t(r.cut.solvedArcs));
        key("solved_nodes"), integer(int64_t(r.cut.solvedNodes));
        w_.EndObject();
        key("peak_bytes_before"), r.originalMemory.ok() ? integer(r.originalMemory.peakBytes) : w_.Null();
        key("program"), string(in.programPath);
        key("recompute_ops");
        scalars(plan.recomputeOps, [&](TextBuffer& b, OpId op) { b.appendDecimal(int64_t(in.analysis.opIndex(op))); });
        key("saved_values"), names(p, plan.savedValues);
        if (!r.seedError.empty()) {
            key("seed_error");
            w_.StartObject();
            key("detail"), string(r.seedError.detail);
            key("message"), string(r.seedError.message);
            key("op_index"), integer(int64_t(r.seedError.opIndex));
            key("op_name"), string(r.seedError.opName);
            key("rule"), string(r.seedError.rule);
            key("value"), string(r.seedError.value);
            w_.EndObject();
        }
        key("spec"), string(in.specSource);
        key("unchanged"), w_.Bool(r.unchanged);
        // Why, per forward value (weights, bans, sides), sorted by name.
        key("values");
        w_.StartArray();
        if (!plan.reasons.empty()) {
            std::vector<ValueId> vs;
            for (ValueId v = 0; v < p.values().size() && v < plan.reasons.size(); ++v)
                if (plan.reasons[v].valueClass == ValueClass::Forward) vs.push_back(v);
            sortValuesByName(p, vs);
            const RowLayout rows(kValueKeys);
            for (ValueId v : vs) value(p, plan, rows, v);
        }
        w_.EndArray();
        key("warnings"), strings(plan.warnings);

        if (await) await();
        key("memory");
        w_.StartObject();
        key("original"), memory(r.originalMemory);
        key("rewritten"), memory(r.rewrittenMemory);
        w_.EndObject();
        key("peak_bytes_after"), r.rewrittenMemory.ok() ? integer(r.rewrittenMemory.peakBytes) : w_.Null();
        // Figures that did not fit (null above), said at the top level where a reader looks first.
        std::vector<std::string> unknown;
        if (!r.originalMemory.ok())
            unknown.push_back("peak_bytes_before and memory.original are null: " + r.originalMemory.error);
        if (!r.rewrittenMemory.ok())
            unknown.push_back("peak_bytes_after and memory.rewritten are null: " + r.rewrittenMemory.error);
        if (!unknown.empty()) key("unknown_figures"), strings(unknown);
        key("timings_ms");
        w_.StartObject();
        key("build"), w_.Double(r.timings.buildMs);
        key("memory"), w_.Double(r.timings.memoryMs);
        key("parse"), w_.Double(in.parseMs);
        key("plan"), w_.Double(r.timings.planMs);
        key("rewrite"), w_.Double(r.timings.rewriteMs);
        key("solve"), w_.Double(r.timings.solveMs);
        key("total"), w_.Double(in.parseMs + r.timings.totalMs);
        w_.EndObject();
        w_.EndObject();
    }

    // One `values` row: the fields in kValueKeys' order.
    void value(const Program& p, const Plan& plan, const RowLayout& rows, ValueId v) {
        const ValueReason& why = plan.reasons[v];
        TextBuffer& b = w_.beginRaw();
        size_t field = 0;
        const auto next = [&]() -> TextBuffer& { return b += rows.before(field++); };
        Pretty::appendQuoted(next(), banRuleName(why.banRule));
        Pretty::appendQuoted(next(), why.banText);
        next() += boolText(why.banned);
        next().appendDecimal(why.distance);
        next() += boolText(why.fusionLoop);
        next() += boolText(why.inNetwork);
        next() += boolText(why.materialized);
        next() += boolText(why.materializedBackwards);
        next() += boolText(why.midHold);
        Pretty::appendQuoted(next(), p.value(v).name);
        Pretty::appendQuoted(next(), why.pin == ValueFacts::Pin::Saved        ? "saved"
                                     : why.pin == ValueFacts::Pin::Recomputed ? "recomputed"
                                                                              : "none");
        Pretty::appendQuoted(next(), valueSideName(why.side));
        next().appendDecimal(why.size);
        Pretty::appendQuoted(next(), skipReasonName(why.skip));
        FlowNetwork::UnitsBuffer units;
        next() += FlowNetwork::formatUnits(units, why.weightUnits, plan.scale);
        b += rows.end();
        w_.endRaw();
    }

private:
    PrettyJson<Out> w_;
};

}  // namespace

std::string solveReportJson(const SolveReportInput& input) {
    std::string text;
    StringOut out{text};
    ReportWriter<StringOut> writer(out);
    writer.report(input, {});
    writer.flush();
    text.push_back('\n');
    return text;
}

void writeSolveReport(AtomicFile& file, const SolveReportInput& input, const std::function<void()>& awaitRewritten) {
    ReportWriter<AtomicFile> writer(file);
    writer.report(input, awaitRewritten);
    writer.flush();
    file.put('\n');
    file.finish();
}

void writeSolveReportFile(const std::string& path, const SolveReportInput& input,
                          const std::function<void()>& awaitRewritten) {
    AtomicFile file(path);
    writeSolveReport(file, input, awaitRewritten);
    file.publish();
}

}  // namespace rx
