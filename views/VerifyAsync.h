#pragma once
// verifyPrograms off the calling thread, for the explorer's Verify button. Lives in views/
// (QtConcurrent) so that the library stays Qt-free; the API is the one it had there.
#include <QFuture>

#include "exec/Verify.h"

namespace rx::exec {

// The programs are kept alive by the task. Errors (a program that cannot run) come back in
// VerifyOutcome::error, never as exceptions from QFuture::result().
struct VerifyOutcome {
    std::optional<VerifyReport> report;
    std::string error;                 // set when a program could not run
};
QFuture<VerifyOutcome> verifyProgramsAsync(std::shared_ptr<const Program> original, std::shared_ptr<const Program> rewritten,
                                           VerifyOptions options);

}  // namespace rx::exec
