// verifyProgramsAsync (VerifyAsync.h): the library's verifyPrograms on Qt's thread pool.
#include "views/VerifyAsync.h"

#include <QtConcurrent/QtConcurrent>

#include "views/ProgramGraph.h"

namespace rx::exec {

QString verifySummaryText(const VerifyReport& r) {
    QString s;
    if (r.equivalent) {
        s = QObject::tr("equivalent: %1 fetched values agree").arg(r.compared);
        if (r.bitwiseEqual == r.compared) s += QObject::tr(" bit for bit");
        else s += QObject::tr(" (%1 bit for bit, max |difference| %2)").arg(r.bitwiseEqual).arg(r.maxAbsDifference, 0, 'g', 3);
    } else {
        s = QObject::tr("NOT equivalent");
        if (r.firstDifference) {
            const ValueDifference& d = *r.firstDifference;
            s += QObject::tr(": first difference in %1").arg(QString::fromStdString(d.valueName));
            if (!d.fetchName.empty()) s += QStringLiteral(" (%1)").arg(QString::fromStdString(d.fetchName));
            if (d.reason == "value")
                s += QObject::tr(" at element %1: %2 vs %3").arg(d.index).arg(d.original, 0, 'g', 8).arg(d.rewritten, 0, 'g', 8);
            else s += QObject::tr(": %1 differs").arg(QString::fromStdString(d.reason));
        }
    }
    const double before = double(r.originalPeakBytes), after = double(r.rewrittenPeakBytes);
    s += QObject::tr("; peak %1 \u2192 %2").arg(formatBytes(before), formatBytes(after));
    if (before > 0) s += QStringLiteral(" (%1%2%)").arg(after >= before ? "+" : "").arg((after - before) / before * 100, 0, 'f', 1);
    return s;
}

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
