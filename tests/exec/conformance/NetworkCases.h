#pragma once
// stub
#include "exec/conformance/Cases.h"
namespace rx::conformance {
inline std::vector<ValueCase> networkValueCases() { return {}; }
}
