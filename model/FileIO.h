#pragma once
// The one file module: bounded reads of regular files, atomic writes (temporary beside the
// target, fsync, rename) and the check that a command's outputs name neither an input nor
// each other. Every error is an rx::Error naming the path and the system's reason.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rx {

// Inputs above this are refused before anything is allocated (real programs reach a few
// hundred MB; the largest generated ones about 1 GB).
inline constexpr uint64_t kDefaultMaxReadBytes = uint64_t(4) << 30;  // 4 GiB

// The whole file as bytes. Refuses directories, devices, FIFOs and sockets (a read would
// block or never end) and files above `maxBytes`, with a message saying which.
std::string readFile(const std::string& path, uint64_t maxBytes = kDefaultMaxReadBytes);

// Reads the file through a read-only mapping and hands its bytes to `use`, which must be done
// with them when it returns (parsers copy what they keep). Mapping skips the copy into fresh
// memory (a 178 MB program: ~60 ms against ~550 ms for readFile on this kind of VM, where
// each first-touched page costs the host a fault). Same checks and messages as readFile; files
// that report size 0 (/proc) or cannot be mapped are read instead. A file truncated while
// mapped (rewritten in place) would raise SIGBUS on the vanished pages: they read as zeros
// instead, and the call throws "changed while it was read" whatever `use` returned or threw.
void withFileBytes(const std::string& path, const std::function<void(std::string_view)>& use,
                   uint64_t maxBytes = kDefaultMaxReadBytes);

// A file that appears at `path` complete or not at all. Bytes go to a temporary file in the
// target's folder (so the rename stays on one file system); commit() flushes, fsyncs and
// renames it over the target. Until then the old file is untouched; on any error, or when
// the object dies uncommitted, the temporary is removed. Writes are buffered: stream large
// outputs through write()/put() instead of building them in memory. An existing character
// device or FIFO (/dev/stdout, a pipe) is written directly: a stream has no old content.
class AtomicFile {
public:
    explicit AtomicFile(std::string path);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(std::string_view bytes);
    void put(char c) {
        if (used_ == capacity_) makeRoom();
        buffer_[used_++] = c;
    }
    void commit();  // finish() then publish(); throws rx::Error; the target is then the new content
    // The two halves of commit(), for outputs that go together (commitAll): finish() writes
    // out the buffer, fsyncs and closes the temporary (the target untouched, any failure
    // leaves it as it was); publish() renames it over the target.
    void finish();
    void publish();
    bool finished() const { return finished_; }
    const std::string& path() const { return path_; }
    const std::string& temporaryPath() const { return temporary_; }

    // RapidJSON's output stream concept, so a rapidjson::Writer streams into the file.
    using Ch = char;
    void Put(char c) { put(c); }
    void Flush() {}

private:
    class BackgroundSync;
    void drain();
    void makeRoom();  // allocates the buffer on first use, else drains it
    void writeAll(const char* bytes, size_t size);
    [[noreturn]] void fail(const std::string& what, int error);
    void discard() noexcept;

    std::string path_;       // the target as given (messages)
    std::string target_;     // where the rename goes (a symlink's destination)
    std::string temporary_;
    int fd_ = -1;
    bool stream_ = false;    // a device or FIFO, written in place
    bool finished_ = false;  // finish() succeeded: only the rename is left
    // Small writes gather here; the printers hand over ~1 MiB pieces, which go straight to the
    // kernel, so the buffer is allocated only when a small write comes (its pages are a cost:
    // first touch of memory is much of a big solve's time on a VM).
    std::unique_ptr<char[]> buffer_;
    size_t capacity_ = 0;
    size_t used_ = 0;
    int64_t written_ = 0;    // bytes handed to the kernel so far
    int64_t replacedBytes_ = 0;  // size of the regular file this replaces (0: none)
    int64_t syncRequestedAt_ = 0;            // written_ when the last background flush was asked for
    std::unique_ptr<BackgroundSync> syncer_;  // started once a file passes a few MiB
};

// The outputs of one command, all or none: every file is finished (written, fsynced) before any
// is published (renamed over its target), so a failure while writing (a full disk) leaves every
// target as it was. Null entries are skipped. Only a failing rename, after the others
// succeeded, could leave a part: renames within a folder do not need new space.
void commitAll(std::initializer_list<AtomicFile*> files);

// writeFileAtomic(path, bytes): an AtomicFile written and committed in one call.
void writeFileAtomic(const std::string& path, std::string_view bytes);

// Removes the file `path` names in a detached process and returns at once (true), or, where
// that process cannot start, removes it here (false). For big files a command no longer needs:
// on a `discard` mount freeing their blocks takes the disk's time (AtomicFile::commit uses it
// for the file it replaced).
bool removeFileInBackground(const std::string& path) noexcept;

// Throws the error AtomicFile(path) would (a directory, a folder that is missing or not
// writable, ...) without writing anything: a temporary file is made beside it and removed.
void checkWritable(const std::string& path);

// Whether two paths name the same file: by device and inode where both exist, else by
// canonical folder + name (for outputs not written yet).
bool samePath(const std::string& a, const std::string& b);

// One path of a command with its role in messages ("--report", "OUT", "input").
struct NamedPath {
    std::string role;
    std::string path;
};
// Throws rx::Error when an output cannot be written (checkWritable) or names an input or
// another output, e.g. "--report 'in.pir' names the input PROGRAM; refusing to overwrite
// it". Commands call it before any work, so that a bad output path costs no minutes.
void checkOutputPaths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace rx
