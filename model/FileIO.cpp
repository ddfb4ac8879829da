// The one file module: bounded reads, atomic writes and output-path checks (FileIO.h).
#include "model/FileIO.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/Diagnostic.h"

namespace rx {
namespace {

constexpr size_t kWriteBuffer = size_t(1) << 20;
constexpr int64_t kBackgroundSyncBytes = int64_t(2) << 20;
constexpr int64_t kDetachedReleaseBytes = int64_t(4) << 20;

std::string reason(int error) { return std::strerror(error); }

const char* kindOf(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string humanLimit(uint64_t bytes) {
    if (bytes >= (uint64_t(1) << 30) && bytes % (uint64_t(1) << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
    if (bytes >= (uint64_t(1) << 20) && bytes % (uint64_t(1) << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes) + " bytes";
}

[[noreturn]] void tooLarge(const std::string& path, uint64_t size, uint64_t maxBytes) {
    throw Error(path + ": cannot read file: it has " + std::to_string(size) + " bytes, above the limit of " +
                humanLimit(maxBytes) + " for inputs");
}

}  // namespace

namespace {

struct FdCloser {
    int fd;
    ~FdCloser() {
        if (fd >= 0) ::close(fd);
    }
};

// Opens `path` for reading after the checks every read makes: a regular file (a FIFO would
// block, a device never end) within `maxBytes`. `st` is the opened file's status.
int openRegularFile(const std::string& path, uint64_t maxBytes, struct stat& st) {
    // stat first: opening a FIFO for reading would block until a writer appears.
    if (::stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open file: " + reason(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path + ": cannot read file: it is " + kindOf(st.st_mode) + ", expected a regular file");
    if (uint64_t(st.st_size) > maxBytes) tooLarge(path, uint64_t(st.st_size), maxBytes);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw Error(path + ": cannot open file: " + reason(errno));
    FdCloser closeOnError{fd};
    if (::fstat(fd, &st) != 0) throw Error(path + ": cannot read file: " + reason(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path + ": cannot read file: it is " + kindOf(st.st_mode) + ", expected a regular file");
    if (uint64_t(st.st_size) > maxBytes) tooLarge(path, uint64_t(st.st_size), maxBytes);
    closeOnError.fd = -1;
    return fd;
}

std::string readOpenFile(const std::string& path, int fd, const struct stat& st, uint64_t maxBytes) {
    std::string text;
    // Files in /proc report size 0 but have content: grow as needed, still bounded.
    text.resize(size_t(st.st_size) + 1);
    size_t used = 0;
    for (;;) {
        if (used == text.size()) {
            if (used > maxBytes) tooLarge(path, used, maxBytes);
            text.resize(std::min<uint64_t>(maxBytes + 1, std::max<size_t>(text.size() * 2, 1 << 16)));
        }
        const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(path + ": cannot read file: " + reason(errno));
        }
        if (n == 0) break;
        used += size_t(n);
    }
    if (used > maxBytes) tooLarge(path, used, maxBytes);
    text.resize(used);
    return text;
}

// The mappings withFileBytes has open, for its SIGBUS handler: a fault inside one is a page
// the file lost (truncated); zeros are mapped over it and the slot marked. A fixed table of
// atomics, as a signal handler may read nothing else; a call that finds it full reads instead.
struct GuardedMapping {
    std::atomic<uintptr_t> begin{0}, end{0};
    std::atomic<bool> lostPages{false};
};
constexpr size_t kGuardSlots = 64;
GuardedMapping guardedMappings[kGuardSlots];
std::atomic<bool> guardSlotTaken[kGuardSlots];
struct sigaction previousSigbus {};
std::atomic<uintptr_t> guardPageSize{4096};  // stored before the handler is installed

void onSigbus(int signal, siginfo_t* info, void* context) {
    // A handler installed after ours that chains to it, which we then chain to on reinstalling
    // (installSigbusGuard), would call us again for a foreign signal: end as the default does.
    static thread_local int depth = 0;
    if (depth > 0) {
        ::signal(SIGBUS, SIG_DFL);
        ::raise(SIGBUS);
        return;
    }
    struct Depth {
        Depth() { ++depth; }
        ~Depth() { --depth; }
    } inHandler;
    const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
    for (GuardedMapping& m : guardedMappings) {
        const uintptr_t begin = m.begin.load(std::memory_order_acquire);
        if (begin == 0 || at < begin || at >= m.end.load(std::memory_order_acquire)) continue;
        const uintptr_t pageSize = guardPageSize.load(std::memory_order_relaxed);
        void* page = reinterpret_cast<void*>(at & ~(pageSize - 1));
        if (::mmap(page, pageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            m.lostPages.store(true, std::memory_order_release);
            return;  // the access is retried and reads zeros
        }
        break;
    }
    // Not a mapping of ours: whatever was there before (the default: ended as without us).
    if (previousSigbus.sa_flags & SA_SIGINFO) {
        if (previousSigbus.sa_sigaction) previousSigbus.sa_sigaction(signal, info, context);
    } else if (previousSigbus.sa_handler == SIG_DFL || previousSigbus.sa_handler == SIG_IGN) {
        ::signal(SIGBUS, SIG_DFL);
        ::raise(SIGBUS);  // pending until the handler returns, then the default action
    } else {
        previousSigbus.sa_handler(signal);
    }
}

// Installs onSigbus unless it is the handler now, keeping what was there to chain to. Checked
// on every mapping, not once: a handler installed after ours (a test runner's or a crash
// reporter's) would otherwise take the signal and the guard would be gone.
bool installSigbusGuard() {
    static std::mutex installing;
    std::lock_guard<std::mutex> lock(installing);
    guardPageSize.store(uintptr_t(::sysconf(_SC_PAGESIZE)), std::memory_order_relaxed);  // the same value each time
    struct sigaction current {};
    if (::sigaction(SIGBUS, nullptr, &current) != 0) return false;
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == onSigbus) return true;
    struct sigaction action {};
    action.sa_sigaction = onSigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    previousSigbus = current;  // the handler is not ours yet, so nothing reads this meanwhile
    return ::sigaction(SIGBUS, &action, nullptr) == 0;
}

// One mapping's slot in the table, released on destruction.
class GuardSlot {
public:
    GuardSlot(uintptr_t begin, uintptr_t end) {
        if (!installSigbusGuard()) return;
        for (size_t i = 0; i < kGuardSlots; ++i) {
            bool expected = false;
            if (guardSlotTaken[i].compare_exchange_strong(expected, true)) {
                slot_ = &guardedMappings[i];
                index_ = i;
                slot_->lostPages.store(false);
                slot_->end.store(end, std::memory_order_release);
                slot_->begin.store(begin, std::memory_order_release);
                return;
            }
        }
    }
    ~GuardSlot() {
        if (!slot_) return;
        slot_->begin.store(0, std::memory_order_release);
        slot_->end.store(0, std::memory_order_release);
        guardSlotTaken[index_].store(false);
    }
    GuardSlot(const GuardSlot&) = delete;
    GuardSlot& operator=(const GuardSlot&) = delete;
    bool held() const { return slot_ != nullptr; }
    bool lostPages() const { return slot_ && slot_->lostPages.load(std::memory_order_acquire); }

private:
    GuardedMapping* slot_ = nullptr;
    size_t index_ = 0;
};

}  // namespace

std::string readFile(const std::string& path, uint64_t maxBytes) {
    struct stat st {};
    const int fd = openRegularFile(path, maxBytes, st);
    FdCloser closer{fd};
    return readOpenFile(path, fd, st, maxBytes);
}

void withFileBytes(const std::string& path, const std::function<void(std::string_view)>& use, uint64_t maxBytes) {
    struct stat st {};
    const int fd = openRegularFile(path, maxBytes, st);
    FdCloser closer{fd};
    const size_t size = size_t(st.st_size);
    void* mapped = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : MAP_FAILED;
    if (mapped == MAP_FAILED) {
        use(readOpenFile(path, fd, st, maxBytes));
        return;
    }
    struct Unmapper {
        void* at;
        size_t size;
        ~Unmapper() { ::munmap(at, size); }
    } unmapper{mapped, size};
    const auto begin = reinterpret_cast<uintptr_t>(mapped);
    GuardSlot guard(begin, begin + size);
    if (!guard.held()) {  // no guard: a plain read, which no truncation can break
        use(readOpenFile(path, fd, st, maxBytes));
        return;
    }
    auto changed = [&] {
        return Error(path + ": cannot read file: it changed (shrank) while it was read; read it again once it is written");
    };
    try {
        use(std::string_view(static_cast<const char*>(mapped), size));
    } catch (...) {
        if (guard.lostPages()) throw changed();
        throw;
    }
    if (guard.lostPages()) throw changed();
}

// ---------------------------------------------------------------- AtomicFile

// Flushes the temporary to the disk while more is being written: fdatasync on a second thread
// each time kBackgroundSyncBytes more have been written. A disk's flush takes time in
// proportion to the bytes not yet flushed (this kind of VM: ~1.7 ms per MB, also for bytes
// the kernel has already written back, as they sit in the host's cache), so commit()'s fsync
// then waits for the tail only (11 MB written over 24 ms of printing: durable 49 -> 40 ms).
// sync_file_range, which starts write-back but flushes no cache, made no fsync shorter.
class AtomicFile::BackgroundSync {
public:
    explicit BackgroundSync(int fd) : fd_(fd), thread_([this] { run(); }) {}
    ~BackgroundSync() { stop(); }
    BackgroundSync(const BackgroundSync&) = delete;
    BackgroundSync& operator=(const BackgroundSync&) = delete;

    void request() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            pending_ = true;
        }
        wake_.notify_one();
    }
    // Waits for a flush under way and ends the thread; the first flush's error (errno), or 0.
    int stop() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_one();
        if (thread_.joinable()) thread_.join();
        return error_;
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [this] { return pending_ || stopping_; });
            if (stopping_) return;
            pending_ = false;
            lock.unlock();
            const int error = ::fdatasync(fd_) == 0 ? 0 : errno;
            lock.lock();
            if (error && !error_) error_ = error;
        }
    }

    const int fd_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool pending_ = false, stopping_ = false;
    int error_ = 0;
    std::thread thread_;  // last: starts once the members above exist
};

// Freeing a big file's blocks waits for the disk where the file system is mounted with
// `discard` (cloud VMs, this one): 0.3-1 ms per MB, which at the end of a command that
// replaces its outputs is time the user waits for nothing (56k-op chain: the old 11 MB program
// and 6 MB report). The remover is a shell that starts `rm` in the background and exits:
// spawned (glibc's posix_spawn shares the address space until the exec), not forked, since a
// fork copies the page tables of a big heap and write-protects every page of it (~6 ms per
// fork, and faults after it, at 55 MB of small pages). It runs in its own session (Ctrl-C in
// the terminal does not stop it) with no descriptor of ours (a shell reading our output waits
// for no one). If the machine stops first, a file given here stays, as a temporary does after
// kill -9.

namespace {

// posix_spawn's attribute and file-action objects, destroyed with their scope.
struct SpawnSetup {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    bool ready = false;
    SpawnSetup() {
        if (::posix_spawn_file_actions_init(&actions) != 0) return;
        if (::posix_spawnattr_init(&attributes) != 0) {
            ::posix_spawn_file_actions_destroy(&actions);
            return;
        }
        ready = true;
    }
    ~SpawnSetup() {
        if (!ready) return;
        ::posix_spawnattr_destroy(&attributes);
        ::posix_spawn_file_actions_destroy(&actions);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;
};

// Starts the remover (above); false where it could not start.
bool spawnRemover(const std::string& path) {
    static constexpr const char* kShell = "/bin/sh";
    static constexpr const char* kRemover = "/bin/rm";
    if (::access(kShell, X_OK) != 0 || ::access(kRemover, X_OK) != 0) return false;
    SpawnSetup setup;
    if (!setup.ready || ::posix_spawnattr_setflags(&setup.attributes, POSIX_SPAWN_SETSID) != 0) return false;
    for (int fd = 0; fd < 3; ++fd)
        if (::posix_spawn_file_actions_addopen(&setup.actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) != 0)
            return false;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
    if (::posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3) != 0) return false;
#endif
    // The path is the script's $1, never part of its text.
    std::string script = std::string(kRemover) + " -f -- \"$1\" &";
    char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), script.data(), const_cast<char*>("sh"),
                    const_cast<char*>(path.c_str()), nullptr};
    char* noEnvironment[] = {nullptr};
    pid_t shell = -1;
    if (::posix_spawn(&shell, kShell, &setup.actions, &setup.attributes, argv, noEnvironment) != 0) return false;
    // The shell exits once `rm` is started (1-2 ms): reaped on a detached thread, so that the
    // caller does not wait for it; a process that ends first leaves it to init. Where no
    // thread can start, it is reaped here.
    const auto reap = [shell, path] {
        int status = 0;
        while (::waitpid(shell, &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ::unlink(path.c_str());  // rm never started
    };
    try {
        std::thread(reap).detach();
    } catch (const std::system_error&) {
        reap();
    }
    return true;
}

}  // namespace

bool removeFileInBackground(const std::string& path) noexcept {
    try {
        if (spawnRemover(path)) return true;
    } catch (const std::exception&) {  // no memory for the script or the reaper: remove it here
    }
    ::unlink(path.c_str());
    return false;
}

namespace {

// Where writing `path` lands: a symlink's destination (writing through it replaces that, as a
// plain open would), else the path itself.
std::string writeTarget(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec))) {
        const fs::path resolved = fs::weakly_canonical(path, ec);
        if (!ec) return resolved.string();
    }
    return path;
}

// Refuses a target no file can replace; `st` is its stat.
void refuseUnwritableKind(const std::string& path, const struct stat& st) {
    if (S_ISDIR(st.st_mode)) throw Error(path + ": cannot write file: it is a directory");
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
        throw Error(path + ": cannot write file: it is " + kindOf(st.st_mode) + ", expected a regular file or a new name");
}

// A new temporary file beside `target` (mkostemp's template filled in), or the error.
int createTemporaryBeside(const std::string& path, const std::string& target, std::string& temporary) {
    namespace fs = std::filesystem;
    const fs::path parent = fs::path(target).parent_path();
    const std::string folder = parent.empty() ? "." : parent.string();
    temporary = folder + "/." + fs::path(target).filename().string() + ".tmp-XXXXXX";
    const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        temporary.clear();
        throw Error(path + ": cannot write file: cannot create a temporary file in '" + folder + "': " + reason(error));
    }
    return fd;
}

}  // namespace

void checkWritable(const std::string& path) {
    if (path.empty()) throw Error("cannot write a file with an empty name");
    const std::string target = writeTarget(path);
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        refuseUnwritableKind(path, st);
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return;  // opening a FIFO would wait for a reader
    }
    std::string temporary;
    ::close(createTemporaryBeside(path, target, temporary));
    ::unlink(temporary.c_str());
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) throw Error("cannot write a file with an empty name");
    target_ = writeTarget(path_);
    struct stat st {};
    mode_t mode = 0666;
    if (::stat(target_.c_str(), &st) == 0) {
        refuseUnwritableKind(path_, st);
        if (S_ISREG(st.st_mode)) replacedBytes_ = int64_t(st.st_size);
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
            // A stream (/dev/stdout, a pipe, /dev/null) cannot be replaced atomically: write
            // straight to it.
            fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd_ < 0) throw Error(path_ + ": cannot write file: " + reason(errno));
            stream_ = true;
            return;
        }
        mode = st.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    fd_ = createTemporaryBeside(path_, target_, temporary_);
    if (::fchmod(fd_, mode) != 0) fail("cannot set permissions", errno);
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() noexcept {
    syncer_.reset();  // joins it before its descriptor closes
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!temporary_.empty()) ::unlink(temporary_.c_str());
    temporary_.clear();
}

void AtomicFile::fail(const std::string& what, int error) {
    discard();
    throw Error(path_ + ": cannot write file: " + what + ": " + reason(error) + " (the previous file, if any, is unchanged)");
}

void AtomicFile::write(std::string_view bytes) {
    if (fd_ < 0) throw Error(path_ + ": cannot write file: already committed or failed");
    if (bytes.size() >= kWriteBuffer) {
        drain();
        writeAll(bytes.data(), bytes.size());
        return;
    }
    if (capacity_ - used_ < bytes.size()) makeRoom();  // then there is room: bytes < kWriteBuffer
    std::memcpy(buffer_.get() + used_, bytes.data(), bytes.size());
    used_ += bytes.size();
}

void AtomicFile::makeRoom() {
    if (buffer_) return drain();
    buffer_ = std::make_unique_for_overwrite<char[]>(kWriteBuffer);
    capacity_ = kWriteBuffer;
}

void AtomicFile::drain() {
    if (fd_ < 0) throw Error(path_ + ": cannot write file: already committed or failed");
    writeAll(buffer_.get(), used_);
    used_ = 0;
}

void AtomicFile::writeAll(const char* p, size_t size) {
    size_t left = size;
    while (left) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write failed", errno);
        }
        p += n;
        left -= size_t(n);
        written_ += n;
    }
    if (!stream_ && written_ - syncRequestedAt_ >= kBackgroundSyncBytes) {
        if (!syncer_) syncer_ = std::make_unique<BackgroundSync>(fd_);
        syncer_->request();
        syncRequestedAt_ = written_;
    }
}

void AtomicFile::commit() {
    finish();
    publish();
}

void commitAll(std::initializer_list<AtomicFile*> files) {
    for (AtomicFile* f : files)
        if (f && !f->finished()) f->finish();
    for (AtomicFile* f : files)
        if (f) f->publish();
}

void AtomicFile::finish() {
    drain();
    if (syncer_) {
        const int error = syncer_->stop();
        syncer_.reset();
        if (error) fail("fsync failed", error);
    }
    if (stream_) {
        const int fd = fd_;
        fd_ = -1;
        finished_ = true;
        if (::close(fd) != 0) throw Error(path_ + ": cannot write file: close failed: " + reason(errno));
        return;
    }
    if (::fsync(fd_) != 0) fail("fsync failed", errno);
    if (::close(fd_) != 0) {
        fd_ = -1;
        fail("close failed", errno);
    }
    fd_ = -1;
    finished_ = true;
}

void AtomicFile::publish() {
    if (!finished_) throw Error(path_ + ": cannot write file: published before it was finished");
    if (stream_ || temporary_.empty()) return;  // a stream has nothing to rename; published already
    // A big old file stays reachable by a hidden link through the rename, so that the rename
    // frees none of its blocks; a detached process drops the link (see removeFileInBackground).
    std::string kept;
    const size_t suffix = temporary_.rfind(".tmp-");
    if (replacedBytes_ >= kDetachedReleaseBytes && suffix != std::string::npos) {
        kept = temporary_;
        kept.replace(suffix, 5, ".old-");
        if (::link(target_.c_str(), kept.c_str()) != 0) kept.clear();  // no hard links here: free it now
    }
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
        const int error = errno;
        if (!kept.empty()) ::unlink(kept.c_str());
        fail("rename failed", error);
    }
    temporary_.clear();
    // The rename is durable once the folder's entry is on disk too.
    const std::string folder = std::filesystem::path(target_).parent_path().string();
    const int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    if (!kept.empty()) removeFileInBackground(kept);
}

void writeFileAtomic(const std::string& path, std::string_view bytes) {
    AtomicFile file(path);
    file.write(bytes);
    file.commit();
}

// ---------------------------------------------------------------- path identity

namespace {

struct Identity {
    bool exists = false;
    dev_t device = 0;
    ino_t inode = 0;
    std::string canonical;  // canonical folder + name, for paths not there yet
};

Identity identify(const std::string& path) {
    namespace fs = std::filesystem;
    Identity id;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        id.exists = true;
        id.device = st.st_dev;
        id.inode = st.st_ino;
    }
    std::error_code ec;
    const fs::path p = fs::absolute(path, ec);
    const fs::path folder = fs::weakly_canonical(p.parent_path(), ec);
    id.canonical = ec ? p.lexically_normal().string() : (folder / p.filename()).lexically_normal().string();
    return id;
}

bool same(const Identity& a, const Identity& b) {
    if (a.exists && b.exists) return a.device == b.device && a.inode == b.inode;
    return a.canonical == b.canonical;
}

}  // namespace

bool samePath(const std::string& a, const std::string& b) { return same(identify(a), identify(b)); }

void checkOutputPaths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
    for (const auto& o : outputs) checkWritable(o.path);
    std::vector<Identity> in, out;
    for (const auto& i : inputs) in.push_back(identify(i.path));
    for (size_t o = 0; o < outputs.size(); ++o) {
        out.push_back(identify(outputs[o].path));
        for (size_t i = 0; i < inputs.size(); ++i)
            if (same(out[o], in[i]))
                throw Error(outputs[o].role + " '" + outputs[o].path + "' names the input " + inputs[i].role + " ('" +
                            inputs[i].path + "'); refusing to overwrite an input");
        for (size_t k = 0; k < o; ++k)
            if (same(out[o], out[k]))
                throw Error(outputs[o].role + " '" + outputs[o].path + "' names the same file as " + outputs[k].role +
                            " ('" + outputs[k].path + "'); give each output its own file");
    }
}

}  // namespace rx
