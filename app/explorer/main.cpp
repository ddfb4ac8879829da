// recompute-explorer: the desktop app (work in progress: canvas only).
#include <QApplication>

#include "views/GraphCanvas.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    rx::GraphCanvas canvas("main");
    canvas.resize(1200, 800);
    canvas.show();
    return app.exec();
}
