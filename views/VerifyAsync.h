#pragma once
// verifyPrograms off the calling thread, for the explorer's Verify button. Lives in views/
// (QtConcurrent) so that the library stays Qt-free; the API is the one it had there.
#include <QFuture>
#include <QString>

#include "exec/Verify.h"

namespace rx::exec {

// The programs are kept alive by the task. Errors (a program that cannot run) come back in
// VerifyOutcome::error, never as exceptions from QFuture::result().
struct VerifyOutcome {
    std::optional<VerifyReport> report;
    std::string error;                 // set when a program could not run
};
// The report in the explorer's words: "equivalent: 3 fetched values agree bit for bit;
// peak 345.1 MiB → 367.1 MiB (+6.4%)" (human units; plain text, the caller escapes it).
QString verifySummaryText(const VerifyReport& report);

QFuture<VerifyOutcome> verifyProgramsAsync(std::shared_ptr<const Program> original, std::shared_ptr<const Program> rewritten,
                                           VerifyOptions options);

}  // namespace rx::exec
