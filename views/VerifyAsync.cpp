// verifyProgramsAsync (VerifyAsync.h): the library's verifyPrograms on Qt's thread pool.
#include "views/VerifyAsync.h"

#include <QtConcurrent/QtConcurrent>

namespace rx::exec {

QFuture<VerifyOutcome> verifyProgramsAsync(std::shared_ptr<const Program> original, std::shared_ptr<const Program> rewritten,
                                           VerifyOptions options) {
    return QtConcurrent::run([original, rewritten, options]() {
        VerifyOutcome out;
        try {
            out.report = verifyPrograms(*original, *rewritten, options);
        } catch (const std::exception& e) {
            out.error = e.what();
        }
        return out;
    });
}

}  // namespace rx::exec
