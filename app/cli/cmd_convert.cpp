// recompute-cli convert IN OUT [--generation G1|G2|G3] [--renumber] [--program N]
// Reads a program (PIR text or JSON) and writes it back: the writer's round trip from the
// command line, or a conversion between printer generations.
#include <iostream>
#include <limits>

#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"

namespace {

struct ConvertArgs {
    std::string in, out, generation;
    bool renumber = false;
    int program = -1;
};

int runConvert(const ConvertArgs& a) {
    rx::checkOutputPaths({{"IN", a.in}}, {{"OUT", a.out}});
    rx::ReadOptions read;
    read.programIndex = a.program;
    const rx::Program& program = rx::cli::keepUntilExit(std::make_shared<rx::Program>(rx::loadProgram(a.in, read)));
    rx::WriteOptions write;
    write.renumber = a.renumber;
    if (!a.generation.empty()) {
        write.generation = rx::parseGenerationName(a.generation);
        if (!write.generation) throw rx::Error("--generation expects G0, G1, G2 or G3, found '" + a.generation + "'");
    }
    for (const auto& w : program.warnings()) std::cerr << a.in << ": warning: " << w << "\n";
    rx::writeProgramFile(program, a.out, write);
    return 0;
}

rx::cli::RegisterCommand reg("convert", "Read a program (PIR text or JSON) and write it back as PIR text",
                             [](CLI::App& app) {
                                 auto a = std::make_shared<ConvertArgs>();
                                 app.add_option("IN", a->in, "program to read (PIR text or JSON)")->required();
                                 app.add_option("OUT", a->out, "PIR text to write (atomically)")->check(rx::cli::kNonEmpty)->required();
                                 app.add_option("--generation", a->generation, "printer generation: G0, G1, G2 or G3");
                                 app.add_flag("--renumber", a->renumber, "rename values %0, %1 ... in print order");
                                 app.add_option("--program", a->program, "which program of a multi-program file (0-based)")
                                     ->check(CLI::Range(0, std::numeric_limits<int>::max()));
                                 return [a] { return runConvert(*a); };
                             });

}  // namespace
