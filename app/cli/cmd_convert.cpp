// recompute-cli convert IN OUT [--generation G1|G2|G3] [--renumber] [--program N]
// Reads a program (PIR text or JSON) and writes it back: the writer's round trip from the
// command line, or a conversion between printer generations.
#include <iostream>

#include "app/cli/Command.h"
#include "model/Diagnostic.h"
#include "model/PirReader.h"
#include "model/PirWriter.h"

namespace {

int runConvert(const rx::cli::Arguments& args) {
    if (args.positional.size() != 2) throw rx::Error("usage: recompute-cli convert IN OUT [--generation G1|G2|G3] [--renumber]");
    rx::ReadOptions read;
    read.programIndex = static_cast<int>(args.integer("--program", -1, 0));
    const rx::Program program = rx::loadProgram(args.positional[0], read);
    rx::WriteOptions write;
    write.renumber = args.has("--renumber");
    if (const auto g = args.option("--generation")) {
        write.generation = rx::parseGenerationName(*g);
        if (!write.generation) throw rx::Error("--generation expects G0, G1, G2 or G3, found '" + *g + "'");
    }
    for (const auto& w : program.warnings) std::cerr << args.positional[0] << ": warning: " << w << "\n";
    rx::writeProgramFile(program, args.positional[1], write);
    return 0;
}

rx::cli::RegisterCommand reg({"convert", "convert IN OUT [--generation G1|G2|G3] [--renumber] [--program N]",
                              {"--generation", "--program"}, &runConvert});

}  // namespace
