// The file module (model/FileIO.h) on its failure paths, for real: directories, FIFOs and
// devices refused, size limits, EFBIG from RLIMIT_FSIZE, a read-only folder, a process killed
// mid-write, and outputs that name an input or each other; and on its fast paths (background
// flushing, big old files released after the commit).
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/Diagnostic.h"
#include "model/FileIO.h"
#include "support/FileContents.h"
#include "support/ErrorOf.h"

using namespace rx;
using rx::testing::errorOf;
namespace fs = std::filesystem;

namespace {

void spit(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// Files in `dir` other than `keep` (temporaries left behind would show here).
std::vector<std::string> others(const std::string& dir, const std::vector<std::string>& keep) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (std::find(keep.begin(), keep.end(), name) == keep.end()) out.push_back(name);
    }
    return out;
}

// Rows of file names for the removal tests: a plain one, and one a shell would split, expand
// and glob (the remover must get it as an argument, never as shell text).
void addFileNames(const char* plain) {
    QTest::addColumn<QString>("name");
    QTest::newRow("plain") << plain;
    QTest::newRow("shell characters") << "-x $HOME `x` 'q\" ; *.pir";
}

// Runs `child` in a forked process; its exit status (0 = the checks there passed).
int inChild(const std::function<int()>& child) {
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(child());
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

}  // namespace

class FileIoTest : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    // A fresh folder per test function, so leftover checks see only that test's files.
    std::string dir() const {
        const std::string d = tmp_.path().toStdString() + "/" + QTest::currentTestFunction();
        fs::create_directories(d);
        return d;
    }

private Q_SLOTS:
    void readsRegularFiles() {
        const std::string p = dir() + "/a.txt";
        spit(p, "hello\n");
        QCOMPARE(readFile(p), std::string("hello\n"));
        spit(p, "");
        QCOMPARE(readFile(p), std::string());
        // /proc files report size 0 but have content.
        QVERIFY(readFile("/proc/self/status").find("Name:") != std::string::npos);
    }

    void refusesWhatIsNotARegularFile() {
        QVERIFY(errorOf([&] { readFile(dir()); }).find("it is a directory, expected a regular file") != std::string::npos);
        QVERIFY(errorOf([&] { readFile("/dev/null"); }).find("a character device") != std::string::npos);
        const std::string fifo = dir() + "/pipe";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        // Must not block waiting for a writer.
        QVERIFY(errorOf([&] { readFile(fifo); }).find("a FIFO") != std::string::npos);
        const std::string missing = errorOf([&] { readFile(dir() + "/missing.pir"); });
        QVERIFY2(missing.find("missing.pir: cannot open file: No such file or directory") != std::string::npos, missing.c_str());
    }

    void refusesFilesAboveTheLimit() {
        const std::string p = dir() + "/big.txt";
        spit(p, std::string(1000, 'x'));
        QCOMPARE(readFile(p, 1000).size(), size_t(1000));
        const std::string e = errorOf([&] { readFile(p, 999); });
        QVERIFY2(e.find("it has 1000 bytes, above the limit of 999 bytes") != std::string::npos, e.c_str());
    }

    // withFileBytes: the same bytes and refusals as readFile, through a mapping.
    void mappedReadsGiveTheFilesBytes() {
        auto mapped = [](const std::string& path, uint64_t limit = kDefaultMaxReadBytes) {
            std::string copy;
            withFileBytes(path, [&](std::string_view bytes) { copy.assign(bytes); }, limit);
            return copy;
        };
        const std::string p = dir() + "/a.txt";
        spit(p, "hello\n");
        QCOMPARE(mapped(p), std::string("hello\n"));
        spit(p, "");
        QCOMPARE(mapped(p), std::string());
        QVERIFY(mapped("/proc/self/status").find("Name:") != std::string::npos);  // size 0: read
        std::string big(3 << 20, 'x');
        for (size_t i = 0; i < big.size(); i += 4093) big[i] = char('a' + i % 26);
        spit(p, big);
        QVERIFY(mapped(p) == big);
        QVERIFY(errorOf([&] { mapped(dir()); }).find("it is a directory, expected a regular file") != std::string::npos);
        QVERIFY(errorOf([&] { mapped("/dev/null"); }).find("a character device") != std::string::npos);
        QVERIFY(errorOf([&] { mapped(p, 1000); }).find("above the limit of 1000 bytes") != std::string::npos);
        // What the user's callback throws goes through unchanged.
        QCOMPARE(errorOf([&] { withFileBytes(p, [](std::string_view) { throw rx::Error("parse failed"); }); }),
                 std::string("parse failed"));
    }

    // A file truncated while mapped (a generator rewriting it in place) must not end the process
    // by SIGBUS: the lost pages read as zeros and the call says the file changed.
    void aFileShrinkingWhileMappedIsAnErrorNotACrash() {
        const std::string p = dir() + "/shrinking.pir";
        spit(p, std::string(size_t(4) << 20, 'y'));
        std::string seen;
        const std::string e = errorOf([&] {
            withFileBytes(p, [&](std::string_view bytes) {
                ::truncate(p.c_str(), 4096);
                seen.assign(1, bytes[0]);
                seen += bytes[bytes.size() - 1];  // past the new end: SIGBUS without the guard
                seen += bytes[size_t(2) << 20];
            });
        });
        QVERIFY2(e.find("shrinking.pir: cannot read file: it changed (shrank) while it was read") != std::string::npos, e.c_str());
        QCOMPARE(seen, std::string("y\0\0", 3));
        // A parse that fails on the zeros reports the change, not its own error.
        spit(p, std::string(size_t(1) << 20, 'z'));
        const std::string e2 = errorOf([&] {
            withFileBytes(p, [&](std::string_view bytes) {
                ::truncate(p.c_str(), 0);
                if (bytes[100] == 0) throw rx::Error("line 1: unexpected character");
            });
        });
        QVERIFY2(e2.find("changed (shrank) while it was read") != std::string::npos, e2.c_str());
        // Later mappings are guarded as before (the slot was given back).
        for (int i = 0; i < 100; ++i) QCOMPARE(errorOf([&] { withFileBytes(p, [](std::string_view) {}); }), std::string());
    }

    // A SIGBUS that is not ours still ends the process as it would have.
    void aForeignSigbusStillEndsTheProcess() {
        const std::string p = dir() + "/warm.txt";
        spit(p, "x");
        const pid_t child = ::fork();
        if (child == 0) {  // the default before the guard (not QtTest's crash handler)
            ::signal(SIGBUS, SIG_DFL);
            withFileBytes(p, [](std::string_view) {});  // the guard is installed
            ::raise(SIGBUS);
            ::_exit(0);
        }
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), SIGBUS);

        // A handler installed after the guard that chains to it: the guard, reinstalled on the
        // next mapping, chains back, and a foreign signal must still end (not recurse forever).
        const pid_t second = ::fork();
        if (second == 0) {
            ::signal(SIGBUS, SIG_DFL);
            withFileBytes(p, [](std::string_view) {});
            static struct sigaction guard {};
            struct sigaction chaining {};
            chaining.sa_flags = SA_SIGINFO;
            chaining.sa_sigaction = [](int signal, siginfo_t* info, void* context) { guard.sa_sigaction(signal, info, context); };
            ::sigaction(SIGBUS, &chaining, &guard);
            withFileBytes(p, [](std::string_view) {});  // the guard takes the signal again
            ::raise(SIGBUS);
            ::_exit(0);
        }
        QCOMPARE(::waitpid(second, &status, 0), second);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), SIGBUS);
    }

    void writesAtomicallyAndKeepsTheModeOfTheOldFile() {
        const std::string p = dir() + "/out.txt";
        spit(p, "old");
        ::chmod(p.c_str(), 0640);
        {
            AtomicFile f(p);
            f.write("new ");
            for (int i = 0; i < 3 * (1 << 20); ++i) f.put('x');  // past the buffer: bytes hit the disk
            // Until commit the target is the old file; the new bytes are in the temporary.
            QCOMPARE(rx::testing::fileContents(p), std::string("old"));
            QVERIFY(fs::exists(f.temporaryPath()));
            QCOMPARE(fs::path(f.temporaryPath()).parent_path().string(), dir());
            f.commit();
        }
        const std::string now = rx::testing::fileContents(p);
        QCOMPARE(now.size(), size_t(4 + 3 * (1 << 20)));
        QCOMPARE(now.substr(0, 4), std::string("new "));
        struct stat st {};
        ::stat(p.c_str(), &st);
        QCOMPARE(int(st.st_mode & 0777), 0640);
        QCOMPARE(others(dir(), {"out.txt"}), std::vector<std::string>{});
    }

    void anUncommittedFileLeavesNothing() {
        const std::string p = dir() + "/kept.txt";
        spit(p, "old");
        std::string temporary;
        {
            AtomicFile f(p);
            f.write("half of it");
            temporary = f.temporaryPath();
        }  // e.g. an exception after the first write
        QCOMPARE(rx::testing::fileContents(p), std::string("old"));
        QVERIFY(!fs::exists(temporary));
    }

    // Past a few MiB the temporary is flushed on a second thread while more is written; small
    // writes gather in a buffer allocated on first use, big ones go straight through. Mixed
    // sizes must come out in order, byte for byte, and an abandoned file must take its flushing
    // thread with it.
    void largeFilesFlushInTheBackgroundAndReadBackExactly() {
        const std::string p = dir() + "/large.txt";
        std::string expected;
        {
            AtomicFile f(p);
            for (int i = 0; expected.size() < (9u << 20); ++i) {
                std::string piece;
                if (i % 3 == 0) piece.assign((1u << 20) + size_t(i), char('a' + i % 26));  // a printer's chunk
                else piece = "op " + std::to_string(i) + "\n";
                if (i % 5 == 1) for (char c : piece) f.put(c);
                else f.write(piece);
                expected += piece;
            }
            f.commit();
        }
        QVERIFY(rx::testing::fileContents(p) == expected);
        QCOMPARE(others(dir(), {"large.txt"}), std::vector<std::string>{});

        std::string temporary;
        {
            AtomicFile f(p);
            f.write(std::string(5u << 20, 'q'));  // the flushing thread has started
            f.put('!');
            temporary = f.temporaryPath();
        }
        QVERIFY(!fs::exists(temporary));
        QVERIFY(rx::testing::fileContents(p) == expected);
    }

    // Replacing a big file: the rename frees nothing (a hidden link keeps the old file) and a
    // detached process removes the link, so the old blocks are trimmed after the command, not
    // during it. The target is the new file at once; a reader of the old file is unaffected;
    // the hidden link goes soon after.
    void aBigReplacedFileIsReleasedAfterTheCommit_data() { addFileNames("big.pir"); }
    void aBigReplacedFileIsReleasedAfterTheCommit() {
        QFETCH(QString, name);
        const std::string p = dir() + "/" + name.toStdString();
        const std::string bystander = dir() + "/bystander.pir";  // what a glob or a split name would hit
        spit(bystander, "keep");
        const std::string oldText(5u << 20, 'o');
        spit(p, oldText);
        std::ifstream reader(p, std::ios::binary);  // opened before the replacement
        writeFileAtomic(p, "new\n");
        QCOMPARE(rx::testing::fileContents(p), std::string("new\n"));
        std::string stillOld((std::istreambuf_iterator<char>(reader)), std::istreambuf_iterator<char>());
        QVERIFY(stillOld == oldText);
        const std::string target = name.toStdString();
        std::vector<std::string> left = others(dir(), {target, "bystander.pir"});
        for (int i = 0; i < 500 && !left.empty(); ++i) {
            for (const auto& hidden : left) QVERIFY2(hidden.rfind("." + target + ".old-", 0) == 0, hidden.c_str());
            ::usleep(10 * 1000);
            left = others(dir(), {target, "bystander.pir"});
        }
        QCOMPARE(left, std::vector<std::string>{});
        // A small file is replaced in place, with nothing left even for a moment.
        writeFileAtomic(p, "newer\n");
        QCOMPARE(others(dir(), {target, "bystander.pir"}), std::vector<std::string>{});
        QCOMPARE(rx::testing::fileContents(bystander), std::string("keep"));
        fs::remove(p);
        fs::remove(bystander);
    }

    // The remover runs in its own process (the call says so by returning true) and takes the
    // name as an argument, never as shell text: a name full of shell characters goes, and
    // nothing a glob or a split name would hit does.
    void aFileIsRemovedInTheBackground_data() { addFileNames(".big.pir.old-abc123"); }
    void aFileIsRemovedInTheBackground() {
        QFETCH(QString, name);
        const std::string p = dir() + "/" + name.toStdString(), bystander = dir() + "/bystander.pir";
        spit(p, "old");
        spit(bystander, "keep");
        QVERIFY(rx::removeFileInBackground(p));
        for (int i = 0; i < 500 && fs::exists(p); ++i) ::usleep(10 * 1000);
        QVERIFY(!fs::exists(p));
        QCOMPARE(rx::testing::fileContents(bystander), std::string("keep"));
        fs::remove(bystander);
        // A missing file is no error.
        QVERIFY(rx::removeFileInBackground(p));
    }

    void aKilledWriterLeavesTheTargetUntouched() {
        const std::string p = dir() + "/killed.txt";
        spit(p, "old");
        const int status = inChild([&] {
            AtomicFile f(p);
            f.write(std::string(5 << 20, 'y'));  // on disk in the temporary by now
            ::raise(SIGKILL);                    // kill -9 mid-write: no cleanup runs
            return 0;
        });
        QCOMPARE(status, 128 + SIGKILL);
        QCOMPARE(rx::testing::fileContents(p), std::string("old"));
    }

    void aFullDiskIsAnErrorWithNothingHalfWritten() {
        const std::string p = dir() + "/efbig.txt";
        spit(p, "old");
        const std::string report = dir() + "/efbig.message";
        const int status = inChild([&] {
            ::signal(SIGXFSZ, SIG_IGN);  // then write() fails with EFBIG instead of killing us
            rlimit limit{1 << 20, 1 << 20};
            ::setrlimit(RLIMIT_FSIZE, &limit);
            const std::string e = errorOf([&] { writeFileAtomic(p, std::string(3 << 20, 'z')); });
            limit = {RLIM_INFINITY, RLIM_INFINITY};
            ::setrlimit(RLIMIT_FSIZE, &limit);
            spit(report, e);
            return e.empty() ? 1 : 0;
        });
        QCOMPARE(status, 0);
        const std::string e = rx::testing::fileContents(report);
        QVERIFY2(e.find("efbig.txt: cannot write file: write failed: File too large") != std::string::npos, e.c_str());
        QCOMPARE(rx::testing::fileContents(p), std::string("old"));
        QCOMPARE(others(dir(), {"efbig.txt", "efbig.message"}), std::vector<std::string>{});
    }

    void aReadOnlyFolderIsAnErrorWithTheReason() {
        const std::string folder = dir() + "/ro";
        fs::create_directory(folder);
        ::chmod(tmp_.path().toStdString().c_str(), 0755);  // others may walk to the folder
        ::chmod(dir().c_str(), 0755);
        ::chmod(folder.c_str(), 0555);
        int pipeFds[2];
        QCOMPARE(::pipe(pipeFds), 0);
        const int status = inChild([&] {
            // root ignores permissions: drop to nobody first where we are root.
            if (::geteuid() == 0 && ::setuid(65534) != 0) return 2;
            const std::string e = errorOf([&] { writeFileAtomic(folder + "/x.pir", "text"); });
            return ::write(pipeFds[1], e.data(), e.size()) == ssize_t(e.size()) ? 0 : 3;
        });
        ::close(pipeFds[1]);
        char buffer[4096];
        const ssize_t n = ::read(pipeFds[0], buffer, sizeof buffer);
        ::close(pipeFds[0]);
        ::chmod(folder.c_str(), 0755);
        if (status == 2) QSKIP("cannot drop privileges to test permissions");
        QCOMPARE(status, 0);
        const std::string e(buffer, size_t(std::max<ssize_t>(n, 0)));
        QVERIFY2(e.find("cannot create a temporary file in '" + folder + "': Permission denied") != std::string::npos,
                 e.c_str());
        QVERIFY(!fs::exists(folder + "/x.pir"));
    }

    void refusesADirectoryAndWritesStreamsInPlace() {
        QVERIFY(errorOf([&] { writeFileAtomic(dir(), "x"); }).find("it is a directory") != std::string::npos);
        // /dev/stdout, pipes: no old content to keep, so written directly (no temporary).
        QVERIFY(errorOf([&] { writeFileAtomic("/dev/null", "x"); }).empty());
        const std::string fifo = dir() + "/out.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        std::fflush(nullptr);
        const pid_t writer = ::fork();
        if (writer == 0) {
            const bool ok = errorOf([&] { writeFileAtomic(fifo, "through the pipe"); }).empty();
            ::_exit(ok ? 0 : 1);
        }
        const std::string got = rx::testing::fileContents(fifo);  // opens the read end: the writer proceeds
        int status = 0;
        ::waitpid(writer, &status, 0);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        QCOMPARE(got, std::string("through the pipe"));
        QCOMPARE(others(dir(), {"out.fifo"}), std::vector<std::string>{});
    }

    void writesThroughASymlinkToItsTarget() {
        const std::string target = dir() + "/real.txt", link = dir() + "/link.txt";
        spit(target, "old");
        fs::create_symlink(target, link);
        writeFileAtomic(link, "new");
        QVERIFY(fs::is_symlink(link));
        QCOMPARE(rx::testing::fileContents(target), std::string("new"));
    }

    void outputsNamingAnInputOrEachOtherAreRefused() {
        const std::string in = dir() + "/in.pir";
        spit(in, "x");
        fs::create_directory(dir() + "/sub");
        const std::string hard = dir() + "/hard.pir", soft = dir() + "/soft.pir";
        fs::create_hard_link(in, hard);
        fs::create_symlink(in, soft);
        QVERIFY(samePath(in, dir() + "/sub/../in.pir"));
        QVERIFY(samePath(in, hard));
        QVERIFY(samePath(in, soft));
        QVERIFY(!samePath(in, dir() + "/other.pir"));
        // Not yet existing outputs compare by canonical folder + name.
        QVERIFY(samePath(dir() + "/new.json", dir() + "/sub/../new.json"));

        const std::string e = errorOf([&] { checkOutputPaths({{"PROGRAM", in}}, {{"--report", hard}}); });
        QVERIFY2(e.find("--report '" + hard + "' names the input PROGRAM") != std::string::npos, e.c_str());
        const std::string twice = errorOf([&] {
            checkOutputPaths({{"PROGRAM", in}}, {{"--report", dir() + "/r.json"}, {"--network", dir() + "/sub/../r.json"}});
        });
        QVERIFY2(twice.find("names the same file as --report") != std::string::npos, twice.c_str());
        QVERIFY(errorOf([&] { checkOutputPaths({{"PROGRAM", in}}, {{"--report", dir() + "/r.json"}}); }).empty());
    }

    // Commands check their outputs before any work: what AtomicFile would refuse, refused
    // at once, with nothing left behind (a FIFO is not opened: that would wait for a reader).
    void unwritableOutputsAreRefusedBeforeAnyWork() {
        const std::string in = dir() + "/in.pir";
        spit(in, "x");
        const std::string missing = errorOf([&] { checkOutputPaths({{"PROGRAM", in}}, {{"--report", dir() + "/nodir/r.json"}}); });
        QVERIFY2(missing.find("nodir/r.json: cannot write file: cannot create a temporary file in") != std::string::npos &&
                     missing.find("No such file or directory") != std::string::npos,
                 missing.c_str());
        fs::create_directory(dir() + "/d.json");
        const std::string directory = errorOf([&] { checkWritable(dir() + "/d.json"); });
        QVERIFY2(directory.find("it is a directory") != std::string::npos, directory.c_str());
        const std::string fifo = dir() + "/out.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QVERIFY(errorOf([&] { checkWritable(fifo); }).empty());
        QVERIFY(errorOf([&] { checkWritable(dir() + "/new.json"); }).empty());
        QCOMPARE(others(dir(), {"in.pir", "d.json", "out.fifo"}), std::vector<std::string>{});
    }
};

QTEST_GUILESS_MAIN(FileIoTest)
#include "test_file_io.moc"
