#pragma once
// Attributes, kept structured and remembering how they were printed so that a program
// written back reproduces its input. `spelling` holds the exact text of a scalar as read
// (e.g. "1e-05", "3"), `typed` whether it carried a "(Float)"-style prefix (G0-G2).
#include <cstdint>
#include <string>
#include <vector>

#include "model/InternedString.h"

namespace rx {

struct Attribute {
    enum class Kind : uint8_t {
        Bool, Int32, Int64, Index, Float, Double, String, Array, DataType, Place, IntArray,
        DataLayout, Pointer, Opaque
    };
    Kind kind = Kind::Opaque;
    bool boolValue = false;
    bool typed = false;               // printed with a type prefix such as "(Float)"
    int64_t intValue = 0;
    double floatValue = 0.0;
    std::string text;                 // String value; DataType/Place/DataLayout/Pointer/Opaque text
    std::vector<Attribute> elements;  // Array, IntArray
    // Exact printed form of a scalar where it matters ("1e-05"); may be empty. Interned:
    // attributes are the bulk of a program's memory.
    InternedString spelling;

    static Attribute boolean(bool v) { Attribute a; a.kind = Kind::Bool; a.boolValue = v; return a; }
    static Attribute int32(int64_t v) { Attribute a; a.kind = Kind::Int32; a.intValue = v; return a; }
    static Attribute int64(int64_t v) { Attribute a; a.kind = Kind::Int64; a.intValue = v; return a; }
    static Attribute float32(double v) { Attribute a; a.kind = Kind::Float; a.floatValue = v; return a; }
    static Attribute float64(double v) { Attribute a; a.kind = Kind::Double; a.floatValue = v; return a; }
    static Attribute string(std::string v) { Attribute a; a.kind = Kind::String; a.text = std::move(v); return a; }
    static Attribute dataType(std::string longName) { Attribute a; a.kind = Kind::DataType; a.text = std::move(longName); return a; }
    static Attribute place(std::string text) { Attribute a; a.kind = Kind::Place; a.text = std::move(text); return a; }
    static Attribute array(std::vector<Attribute> e) { Attribute a; a.kind = Kind::Array; a.elements = std::move(e); return a; }
    static Attribute intArray(const std::vector<int64_t>& v);
    // For Array/IntArray of integers; empty if not such.
    std::vector<int64_t> toIntVector() const;

    bool operator==(const Attribute&) const = default;
};

struct NamedAttribute {
    std::string name;
    Attribute value;
    bool operator==(const NamedAttribute&) const = default;
};

}  // namespace rx
