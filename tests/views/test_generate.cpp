// File ▸ Generate Model… driven through its real widgets (offscreen): the dialog's fields
// set a model, OK generates on a worker (busy state shown), writes the program and its spec,
// and the explorer opens and solves it; bad sizes and an unwritable path stay as an error
// in the dialog while the open program is kept.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "views/GenerateDialog.h"
#include "views/MainWindow.h"

using namespace rx;

namespace {
bool hasOp(const Program& p, std::string_view name) {
    for (OpId op : p.globalBlock().ops)
        if (p.opName(op) == name) return true;
    return false;
}
}  // namespace

class GenerateTest : public QObject {
    Q_OBJECT
    MainWindow* window_ = nullptr;
    GenerateDialog* dialog_ = nullptr;
    QTemporaryDir tmp_;

    Document* doc() { return window_->document(); }
    template <class W>
    W* field(const char* name) {
        W* w = dialog_->findChild<W*>(name);
        if (!w) qFatal("no field %s", name);
        return w;
    }
    void setFields(const QString& model, int layers, int hidden, int heads, const QString& out) {
        field<QComboBox>("model")->setCurrentText(model);
        field<QSpinBox>("layers")->setValue(layers);
        field<QSpinBox>("hidden")->setValue(hidden);
        field<QSpinBox>("heads")->setValue(heads);
        field<QSpinBox>("seq")->setValue(8);
        field<QSpinBox>("batch")->setValue(2);
        field<QLineEdit>("output")->setText(out);
    }
    void clickGenerate() {
        QPushButton* ok = field<QDialogButtonBox>(nullptr)->button(QDialogButtonBox::Ok);
        QVERIFY(ok && ok->isEnabled());
        ok->click();
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
        window_ = new MainWindow();
        window_->resize(1200, 800);
        window_->show();
    }
    void cleanupTestCase() { delete window_; }

    void fileMenuOpensDialogWithWritableDefault() {
        QAction* action = nullptr;
        for (QAction* a : window_->menuBar()->actions())
            if (a->menu() && a->text() == tr("&File"))
                for (QAction* item : a->menu()->actions())
                    if (item->text().startsWith("&Generate Model")) action = item;
        QVERIFY(action);
        action->trigger();
        dialog_ = window_->findChild<GenerateDialog*>();
        QVERIFY(dialog_ && dialog_->isVisible());
        // The default output follows model and layers, in the app's data folder.
        field<QComboBox>("model")->setCurrentText("llama");
        field<QSpinBox>("layers")->setValue(3);
        const QString def = field<QLineEdit>("output")->text();
        QVERIFY2(def.endsWith("/generated/llama-3l.pir"), qPrintable(def));
        QVERIFY(def.startsWith(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)));
    }

    void generatesTransformerAndOpensIt() {
        const QString out = tmp_.path() + "/sub/t.pir";
        setFields("transformer", 2, 32, 4, out);
        field<QComboBox>("generation")->setCurrentText("G3");
        field<QComboBox>("mode")->setCurrentIndex(1);  // composite + _grad ops (prim decomposes softmax)
        QSignalSpy generated(dialog_, &GenerateDialog::generated);
        clickGenerate();
        QVERIFY(dialog_->isBusy());                              // the work is on a worker
        QVERIFY(!field<QDialogButtonBox>(nullptr)->isEnabled());  // busy state: no second OK
        QVERIFY(generated.wait(30000));
        QVERIFY(!dialog_->isVisible());
        QVERIFY(dialog_->errorText().isEmpty());
        QVERIFY(QFile::exists(out));
        QVERIFY(QFile::exists(tmp_.path() + "/sub/t.spec.json"));
        QTRY_COMPARE_WITH_TIMEOUT(doc()->filePath(), QFileInfo(out).absoluteFilePath(), 10000);
        QVERIFY(doc()->waitForSolve(30000));
        const Program& p = doc()->program();
        QCOMPARE(p.generation(), Generation::G3);
        QVERIFY(hasOp(p, "pd_op.softmax"));
        QVERIFY(hasOp(p, "pd_op.softmax_grad"));
        QVERIFY(hasOp(p, "pd_op.layer_norm"));
        QVERIFY(hasOp(p, "builtin.parameter"));
        QVERIFY(!doc()->specDetected());  // the written spec was read back
        auto r = doc()->result();
        QVERIFY(r && r->ok());
        QVERIFY(!r->plan.savedValues.empty());
        QVERIFY(window_->errorBannerText().isEmpty());
    }

    void badSizesStayInTheDialog() {
        window_->showGenerateDialog();
        const size_t opsBefore = doc()->program().globalBlock().ops.size();
        const QString out = tmp_.path() + "/bad.pir";
        setFields("transformer", 1, 30, 4, out);  // 30 hidden over 4 heads: rejected by the zoo
        clickGenerate();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog_->isBusy() && !dialog_->errorText().isEmpty(), 30000);
        QVERIFY(dialog_->isVisible());
        QVERIFY(field<QDialogButtonBox>(nullptr)->isEnabled());
        QVERIFY(!QFile::exists(out));
        QCOMPARE(doc()->program().globalBlock().ops.size(), opsBefore);

        // A path under a regular file cannot be created: the error names it, nothing opens.
        QFile blocker(tmp_.path() + "/file");
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        setFields("conv", 1, 8, 1, tmp_.path() + "/file/conv.pir");
        clickGenerate();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog_->isBusy() && !dialog_->errorText().isEmpty(), 30000);
        QVERIFY2(dialog_->errorText().contains(tmp_.path() + "/file"), qPrintable(dialog_->errorText()));
        QCOMPARE(doc()->program().globalBlock().ops.size(), opsBefore);
    }

    void generatesConvAfterAnError() {
        const QString out = tmp_.path() + "/conv.pir";
        setFields("conv", 1, 8, 1, out);
        field<QComboBox>("mode")->setCurrentIndex(0);  // primitive ops: conv2d stays, its grad too
        QSignalSpy generated(dialog_, &GenerateDialog::generated);
        clickGenerate();
        QVERIFY(generated.wait(30000));
        QVERIFY(dialog_->errorText().isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(doc()->filePath(), QFileInfo(out).absoluteFilePath(), 10000);
        QVERIFY(doc()->waitForSolve(30000));
        QVERIFY(hasOp(doc()->program(), "pd_op.conv2d"));
        QVERIFY(hasOp(doc()->program(), "pd_op.conv2d_grad"));
        auto r = doc()->result();
        QVERIFY(r && r->ok());
        QVERIFY(!r->plan.savedValues.empty());
    }
};

QTEST_MAIN(GenerateTest)
#include "test_generate.moc"
