#pragma once
// Reader for Paddle's PIR JSON (paddle.jit.save / WriteModule, "magic":"pir"), see
// corpus/pir-json. Parameter ops ("#":"p") become builtin.parameter, "1.x" ops pd_op.x,
// "0.x" builtin.x; value ids become %0, %1 ... in order of definition.
#include <string>
#include <string_view>

#include "model/Program.h"

namespace rx {

Program parsePirJson(std::string_view json, const std::string& fileName);  // throws rx::Error
Program readPirJsonFile(const std::string& path);

}  // namespace rx
