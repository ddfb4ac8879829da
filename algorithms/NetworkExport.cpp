// Flow network exports (FORMATS.md "Flow network export"): one streaming writer per format,
// used for strings (tests, the explorer) and for atomic files (the CLI, the explorer's saves).
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "algorithms/FlowNetwork.h"
#include "model/CheckedMath.h"
#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/JsonWriter.h"

namespace rx {
namespace {

// A std::string as an output (the same interface as AtomicFile).
struct StringOut {
    std::string& text;
    using Ch = char;
    void write(std::string_view s) { text.append(s); }
    void put(char c) { text.push_back(c); }
    void Put(char c) { text.push_back(c); }
    void Flush() {}
};

template <class Out>
void writeDotString(Out& out, const std::string& s) {
    out.put('"');
    for (char c : s) {
        if (c == '"' || c == '\\') out.put('\\');
        out.put(c);
    }
    out.put('"');
}

bool nodeUsed(const FlowNetwork& net, uint32_t i) {
    return i > FlowNetwork::kSink || (i == FlowNetwork::kSource ? net.hasSource() : net.hasSink());
}

bool isCutArc(const FlowNetwork::Arc& a, const std::vector<uint8_t>* sinkSide) {
    return sinkSide && !(*sinkSide)[a.from] && (*sinkSide)[a.to];
}

template <class Out>
void writeDot(Out& out, const FlowNetwork& net, const Program& program, const std::vector<uint8_t>* sinkSide) {
    out.write("digraph flow_network {\n  rankdir=LR;\n  node [shape=ellipse, fontsize=10];\n");
    for (uint32_t i = 0; i < net.nodes.size(); ++i) {
        if (!nodeUsed(net, i)) continue;
        out.write("  ");
        writeDotString(out, net.nodeName(i, program));
        std::string attrs;
        if (i <= FlowNetwork::kSink) attrs = "shape=box";
        if (sinkSide)
            attrs += std::string(attrs.empty() ? "" : ", ") + "style=filled, fillcolor=" +
                     ((*sinkSide)[i] ? "\"#f4b6b6\"" : "\"#b6d4f4\"");
        if (!attrs.empty()) out.write(" [" + attrs + "]");
        out.write(";\n");
    }
    for (const FlowNetwork::Arc& a : net.arcs) {
        out.write("  ");
        writeDotString(out, net.nodeName(a.from, program));
        out.write(" -> ");
        writeDotString(out, net.nodeName(a.to, program));
        out.write(" [label=");
        writeDotString(out, net.capacityText(a));
        if (isCutArc(a, sinkSide)) out.write(", color=red, penwidth=2");
        out.write("];\n");
    }
    out.write("}\n");
}

// One element object per line; RapidJSON writes (and escapes) each element, the layout
// between them is ours so that large networks stay greppable.
template <class Out>
void writeJson(Out& out, const FlowNetwork& net, const Program& program, const std::vector<uint8_t>* sinkSide) {
    JsonWriter<Out> w(out);
    auto string = [&](std::string_view s) { w.String(s.data(), rapidjson::SizeType(s.size())); };
    out.write("{\n  \"scale\": " + std::to_string(net.scale) + ",\n  \"nodes\": [");
    bool first = true;
    for (uint32_t i = 0; i < net.nodes.size(); ++i) {
        if (!nodeUsed(net, i)) continue;
        out.write(first ? "\n    " : ",\n    ");
        first = false;
        const FlowNetwork::Node& n = net.nodes[i];
        const char* kind = n.kind == FlowNetwork::NodeKind::Source ? "source" : n.kind == FlowNetwork::NodeKind::Sink ? "sink"
                           : n.kind == FlowNetwork::NodeKind::In ? "in" : "out";
        w.Reset(out);
        w.StartObject();
        string("id"), string(net.nodeName(i, program));
        string("kind"), string(kind);
        if (n.value != kNoId) string("value"), string(program.value(n.value).name);
        if (sinkSide) string("side"), string((*sinkSide)[i] ? "sink" : "source");
        w.EndObject();
    }
    out.write("\n  ],\n  \"edges\": [");
    first = true;
    for (const FlowNetwork::Arc& a : net.arcs) {
        out.write(first ? "\n    " : ",\n    ");
        first = false;
        w.Reset(out);
        w.StartObject();
        string("from"), string(net.nodeName(a.from, program));
        string("to"), string(net.nodeName(a.to, program));
        string("capacity");
        if (a.infinite) {
            string("inf");
        } else {
            const std::string exact = net.capacityText(a);  // exact decimal, e.g. 0.1
            w.RawValue(exact.data(), exact.size(), rapidjson::kNumberType);
        }
        if (isCutArc(a, sinkSide)) string("cut"), w.Bool(true);
        w.EndObject();
    }
    out.write("\n  ]\n}\n");
}

template <class Out>
void writeDimacs(Out& out, const FlowNetwork& net, const Program& program) {
    // DIMACS needs integers: capacities in units of 1/scale; ∞ as a sentinel above the sum of
    // the finite capacities (summed in 128 bits: the sentinel is exact even past int64).
    WideInt sum = 0;
    for (const FlowNetwork::Arc& a : net.arcs)
        if (!a.infinite) sum += a.capacity;
    const std::string sentinel = decimal(sum + 1);
    out.write("c flow network of the auto_recompute pass (Recompute Explorer)\n");
    out.write("c capacities in units of 1/" + std::to_string(net.scale) + "; infinite arcs have capacity " + sentinel + "\n");
    out.write("p max " + std::to_string(net.nodes.size()) + " " + std::to_string(net.arcs.size()) + "\n");
    out.write("n 1 s\nn 2 t\n");
    for (uint32_t i = 0; i < net.nodes.size(); ++i)
        out.write("c node " + std::to_string(i + 1) + " " + net.nodeName(i, program) + "\n");
    for (const FlowNetwork::Arc& a : net.arcs)
        out.write("a " + std::to_string(a.from + 1) + " " + std::to_string(a.to + 1) + " " +
                  (a.infinite ? sentinel : std::to_string(a.capacity)) + "\n");
}

}  // namespace

std::string FlowNetwork::toDot(const Program& program, const std::vector<uint8_t>* sinkSide) const {
    std::string text;
    StringOut out{text};
    writeDot(out, *this, program, sinkSide);
    return text;
}

std::string FlowNetwork::toJson(const Program& program, const std::vector<uint8_t>* sinkSide) const {
    std::string text;
    StringOut out{text};
    writeJson(out, *this, program, sinkSide);
    return text;
}

std::string FlowNetwork::toDimacs(const Program& program) const {
    std::string text;
    StringOut out{text};
    writeDimacs(out, *this, program);
    return text;
}

void FlowNetwork::writeFile(const std::string& path, const Program& program,
                            const std::vector<uint8_t>* sinkSide) const {
    AtomicFile file(path);
    writeTo(file, program, sinkSide);
    file.publish();
}

void FlowNetwork::writeTo(AtomicFile& file, const Program& program, const std::vector<uint8_t>* sinkSide) const {
    const std::string& path = file.path();
    auto endsWith = [&](std::string_view s) {
        return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
    };
    enum class Format { Dot, Json, Dimacs } format;
    if (endsWith(".dot")) format = Format::Dot;
    else if (endsWith(".json")) format = Format::Json;
    else if (endsWith(".dimacs")) format = Format::Dimacs;
    else throw Error(SourceLocation{path, 0, 0}, "network file must end in .dot, .json or .dimacs");
    switch (format) {
    case Format::Dot: writeDot(file, *this, program, sinkSide); break;
    case Format::Json: writeJson(file, *this, program, sinkSide); break;
    case Format::Dimacs: writeDimacs(file, *this, program); break;
    }
    file.finish();
}

}  // namespace rx
