#pragma once
// Writes a model-zoo program and its spec (STEM.pir + STEM.spec.json) for tests that open files
// the way a user does (explorer tests, CLI tests).
#include <QByteArray>
#include <QFile>
#include <QString>
#include <string>

#include "algorithms/zoo/ModelZoo.h"
#include "model/PirWriter.h"

namespace rx::testing {

// DIR/STEM.pir and DIR/STEM.spec.json; returns the program's path, or empty if the spec
// could not be written.
inline QString writeGeneratedFiles(const QString& dir, const zoo::GeneratedProgram& g, const QString& stem) {
    const QString path = dir + "/" + stem + ".pir";
    writeProgramFile(*g.program, path.toStdString());
    QFile spec(dir + "/" + stem + ".spec.json");
    if (!spec.open(QIODevice::WriteOnly)) return {};
    spec.write(QByteArray::fromStdString(zoo::specJson(g)));
    return path;
}

// A zoo model of `layers` layers (other options default) as DIR/MODEL-LAYERS.pir + spec.
inline QString writeGeneratedModel(const QString& dir, const std::string& model, int layers) {
    zoo::ZooOptions o;
    o.model = model;
    o.layers = layers;
    return writeGeneratedFiles(dir, zoo::generateModel(o),
                               QStringLiteral("%1-%2").arg(QString::fromStdString(model)).arg(layers));
}

}  // namespace rx::testing
