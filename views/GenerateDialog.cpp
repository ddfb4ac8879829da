#include "views/GenerateDialog.h"

#include "model/RecomputeSpec.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <chrono>
#include <new>

#include "model/Diagnostic.h"
#include "model/PirWriter.h"

namespace rx {

namespace {

// Writes every file's temporary first and commits only when all were written, so a full disk
// or a bad folder leaves neither a half program nor a spec without its program.
QString writeAll(const std::vector<std::pair<QString, QByteArray>>& files) {
    std::vector<std::unique_ptr<QSaveFile>> saves;
    for (const auto& [path, bytes] : files) {
        auto f = std::make_unique<QSaveFile>(path);
        if (!f->open(QIODevice::WriteOnly)) return QObject::tr("cannot write %1: %2").arg(path, f->errorString());
        if (f->write(bytes) != bytes.size()) return QObject::tr("cannot write %1: %2").arg(path, f->errorString());
        saves.push_back(std::move(f));
    }
    for (auto& f : saves)
        if (!f->commit()) return QObject::tr("cannot write %1: %2").arg(f->fileName(), f->errorString());
    return {};
}

QSpinBox* spin(const char* name, int lo, int hi, int value) {
    auto* s = new QSpinBox;
    s->setObjectName(name);
    s->setRange(lo, hi);
    s->setValue(value);
    return s;
}

QComboBox* combo(const char* name, const QStringList& items) {
    auto* c = new QComboBox;
    c->setObjectName(name);
    c->addItems(items);
    return c;
}

}  // namespace

GenerateOutcome generateAndWrite(const zoo::ZooOptions& options, const QString& programPath) {
    GenerateOutcome out;
    out.programPath = programPath;
    try {
        if (programPath.trimmed().isEmpty()) throw Error("choose an output file");
        const QFileInfo info(programPath);
        if (!QDir().mkpath(info.absolutePath()))
            throw Error("cannot create folder " + info.absolutePath().toStdString());
        const auto t0 = std::chrono::steady_clock::now();
        const zoo::GeneratedProgram g = zoo::generateModel(options);
        const auto t1 = std::chrono::steady_clock::now();
        const QString error = writeAll({{programPath, QByteArray::fromStdString(printProgram(*g.program))},
                                        {QString::fromStdString(specPathBeside(programPath.toStdString())), QByteArray::fromStdString(zoo::specJson(g))}});
        if (!error.isEmpty()) throw Error(error.toStdString());
        const auto t2 = std::chrono::steady_clock::now();
        auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
        out.summary = QObject::tr("generated %1: %2 ops, %3 parameters → %4 (generate %5 ms, write %6 ms)")
                          .arg(QString::fromStdString(options.model))
                          .arg(g.program->globalBlock().ops.size())
                          .arg(g.parameters.size())
                          .arg(programPath)
                          .arg(ms(t0, t1), 0, 'f', 0)
                          .arg(ms(t1, t2), 0, 'f', 0);
    } catch (const Error& e) {
        out.error = QString::fromStdString(e.what());
    } catch (const std::bad_alloc&) {
        out.error = QObject::tr("out of memory: choose a smaller model");
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

GenerateDialog::GenerateDialog(QWidget* parent) : QDialog(parent) {
    pool_.setMaxThreadCount(1);
    setWindowTitle(tr("Generate Model"));
    QStringList models;
    for (const std::string& m : zoo::zooModels()) models << QString::fromStdString(m);
    model_ = combo("model", models);
    layers_ = spin("layers", 1, 100000, 2);
    hidden_ = spin("hidden", 1, 1 << 20, 64);
    heads_ = spin("heads", 1, 4096, 4);
    seq_ = spin("seq", 1, 1 << 20, 16);
    batch_ = spin("batch", 1, 1 << 20, 2);
    ffn_ = spin("ffn", 0, 1 << 24, 0);
    ffn_->setSpecialValueText(tr("default (4×hidden; llama 8/3×hidden)"));
    dtype_ = combo("dtype", {"f32", "f16", "bf16", "f64"});
    mode_ = combo("mode", {tr("primitive ops (after decompose)"), tr("composite ops + _grad ops")});
    dropout_ = new QDoubleSpinBox;
    dropout_->setObjectName("dropout");
    dropout_->setRange(0.0, 0.99);
    dropout_->setSingleStep(0.05);
    generation_ = combo("generation", {"G1", "G2", "G3"});
    output_ = new QLineEdit;
    output_->setObjectName("output");
    auto* browse = new QPushButton(tr("Browse…"));

    form_ = new QWidget;
    auto* form = new QFormLayout(form_);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Model"), model_);
    form->addRow(tr("Layers (lstm, gru: stacked cells)"), layers_);
    form->addRow(tr("Hidden size (conv: channels)"), hidden_);
    form->addRow(tr("Attention heads"), heads_);
    form->addRow(tr("Sequence length (conv: image side; lstm, gru: time steps)"), seq_);
    form->addRow(tr("Batch"), batch_);
    form->addRow(tr("FFN size"), ffn_);
    form->addRow(tr("Data type"), dtype_);
    form->addRow(tr("Ops"), mode_);
    form->addRow(tr("Dropout"), dropout_);
    form->addRow(tr("Printer generation"), generation_);
    auto* outRow = new QHBoxLayout;
    outRow->addWidget(output_, 1);
    outRow->addWidget(browse);
    form->addRow(tr("Output"), outRow);

    error_ = new QLabel;
    error_->setObjectName("error");
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet("color: #b00020;");
    error_->hide();
    busyText_ = new QLabel(tr("Generating and writing…"));
    busy_ = new QProgressBar;
    busy_->setRange(0, 0);  // indeterminate: the zoo reports no progress
    busyText_->hide();
    busy_->hide();
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Generate"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(form_);
    layout->addWidget(error_);
    layout->addWidget(busyText_);
    layout->addWidget(busy_);
    layout->addWidget(buttons_);

    setOptions(zoo::ZooOptions{});
    connect(buttons_, &QDialogButtonBox::accepted, this, &GenerateDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &GenerateDialog::reject);
    connect(browse, &QPushButton::clicked, this, &GenerateDialog::browse);
    connect(output_, &QLineEdit::textEdited, this, [this] { followDefaultPath_ = false; });
    connect(model_, &QComboBox::currentTextChanged, this, &GenerateDialog::updateDefaultPath);
    connect(layers_, &QSpinBox::valueChanged, this, &GenerateDialog::updateDefaultPath);
    connect(&watcher_, &QFutureWatcher<GenerateOutcome>::finished, this, &GenerateDialog::onFinished);
    updateDefaultPath();
}

GenerateDialog::~GenerateDialog() {
    // The worker owns copies of everything it touches; wait so the write completes.
    watcher_.waitForFinished();
}

zoo::ZooOptions GenerateDialog::options() const {
    zoo::ZooOptions o;
    o.model = model_->currentText().toStdString();
    o.layers = layers_->value();
    o.hidden = hidden_->value();
    o.heads = heads_->value();
    o.seq = seq_->value();
    o.batch = batch_->value();
    o.ffn = ffn_->value();
    o.dtype = parseDTypeShort(dtype_->currentText().toStdString()).value_or(DType::Float32);
    o.composite = mode_->currentIndex() == 1;
    o.dropout = dropout_->value();
    o.generation = parseGenerationName(generation_->currentText().toStdString()).value_or(Generation::G2);
    return o;
}

void GenerateDialog::setOptions(const zoo::ZooOptions& o) {
    model_->setCurrentText(QString::fromStdString(o.model));
    layers_->setValue(o.layers);
    hidden_->setValue(int(o.hidden));
    heads_->setValue(int(o.heads));
    seq_->setValue(int(o.seq));
    batch_->setValue(int(o.batch));
    ffn_->setValue(int(o.ffn));
    dtype_->setCurrentText(QString::fromUtf8(dtypeShortName(o.dtype)));
    mode_->setCurrentIndex(o.composite ? 1 : 0);
    dropout_->setValue(o.dropout);
    generation_->setCurrentText(QString::fromUtf8(generationName(o.generation)));
}

QString GenerateDialog::outputPath() const { return output_->text().trimmed(); }

void GenerateDialog::setOutputPath(const QString& path) {
    followDefaultPath_ = false;
    output_->setText(path);
}

QString GenerateDialog::defaultOutputPath(const zoo::ZooOptions& o) {
    return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
           QStringLiteral("/generated/%1-%2l.pir").arg(QString::fromStdString(o.model)).arg(o.layers);
}

QString GenerateDialog::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void GenerateDialog::updateDefaultPath() {
    if (followDefaultPath_) output_->setText(defaultOutputPath(options()));
}

void GenerateDialog::browse() {
    const QString p = QFileDialog::getSaveFileName(this, tr("Generated program"), outputPath(), tr("PIR programs (*.pir)"));
    if (!p.isEmpty()) setOutputPath(p.endsWith(".pir") ? p : p + ".pir");
}

void GenerateDialog::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
}

void GenerateDialog::setBusy(bool busy) {
    form_->setEnabled(!busy);
    buttons_->setEnabled(!busy);
    busyText_->setVisible(busy);
    busy_->setVisible(busy);
    if (busy)
        setCursor(Qt::BusyCursor);
    else
        unsetCursor();
}

void GenerateDialog::accept() {
    if (isBusy()) return;
    showError({});
    const zoo::ZooOptions o = options();
    const QString path = outputPath();
    setBusy(true);
    watcher_.setFuture(QtConcurrent::run(&pool_, [o, path] { return generateAndWrite(o, path); }));
}

void GenerateDialog::reject() {
    if (isBusy()) return;
    QDialog::reject();
}

void GenerateDialog::onFinished() {
    const GenerateOutcome out = watcher_.result();
    setBusy(false);
    if (!out.error.isEmpty()) {
        showError(out.error);
        return;
    }
    QDialog::accept();
    Q_EMIT generated(out.programPath, out.summary);
}

}  // namespace rx
