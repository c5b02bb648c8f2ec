package import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// An advisory lock that serialises the writers of one file across processes (and across
/// stores in one process): `flock(2)` on a sidecar `<file>.lock`.
///
/// Why a sidecar: the file itself is replaced by rename on every save, so a lock on it would
/// lock an inode that is no longer the file, and the next writer would lock the new one
/// unhindered. The sidecar is never replaced or deleted (deleting it while another process waits
/// on it would let a third process lock a new file beside them). `flock` rather than `fcntl`
/// locks: an `fcntl` lock belongs to the process and is dropped when *any* descriptor of the file
/// closes, and two stores in one process would not exclude each other; a `flock` lock belongs to
/// the open file description, so it works between threads and processes alike, needs only read
/// access (a user who may read the store's directory can take it), and Linux emulates it over
/// NFS with byte-range locks.
package enum FileLock {
    /// How long a writer waits for another process's save before giving up.
    package static let timeout: Duration = .seconds(60)

    /// The lock file of `file`: `<file>.lock` beside it.
    package static func lockFile(of file: URL) -> URL {
        file.deletingLastPathComponent().appendingPathComponent(file.lastPathComponent + ".lock")
    }

    /// Runs `body` holding the exclusive lock of `file` (symlinks already resolved), creating
    /// the lock file when missing.
    /// - Throws: `storeIO` when the lock file cannot be created or the lock is not free within
    ///   ``timeout``; whatever `body` throws.
    package static func withLock<Result>(of file: URL, _ body: () throws(StrataError) -> Result) throws(StrataError) -> Result {
        let url = lockFile(of: file)
        let descriptor = open(url.path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot open the lock file '\(url.path)' that serialises writers of '\(file.lastPathComponent)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        // Closing the descriptor releases the lock.
        defer { close(descriptor) }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause: Duration = .milliseconds(1)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw StrataError(.storeIO, "cannot lock '\(url.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
            }
            guard clock.now < deadline else {
                throw StrataError(.storeIO, "another process has held the lock of '\(file.path)' for more than \(timeout) (saving, or stopped mid-save); nothing was written. Try again when it is done")
            }
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18)
            pause = min(pause * 2, .milliseconds(50))
        }
        return try body()
    }
}

/// Which file a path names and which version of it: device and inode (``FileIdentity``), plus size and the
/// modification and change times to the nanosecond.
///
/// A saved store file is always a new inode (saves rename a new file over the old one), and
/// ``HeldFile`` keeps the loaded inode open so that the kernel cannot hand its number to another
/// file meanwhile; the times and size catch a file rewritten in place by some other tool.
package struct FileVersion: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var changed: timespec

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        #if canImport(Darwin)
        modified = status.st_mtimespec
        changed = status.st_ctimespec
        #else
        modified = status.st_mtim
        changed = status.st_ctim
        #endif
    }

    /// The identity of the file a path names now; nil when there is none.
    package static func current(_ url: URL) throws(StrataError) -> FileVersion? {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw StrataError(.storeIO, "cannot read the attributes of '\(url.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        return FileVersion(status)
    }

    package static func == (a: FileVersion, b: FileVersion) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }
}

/// A file kept open for its identity: as long as the descriptor is open, the inode stays
/// allocated and no other file can get its number.
package final class HeldFile: Sendable {
    private let descriptor: Int32
    package let path: String

    /// Takes ownership of an open descriptor.
    package init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Opens `url` for reading; anything but a regular file is refused (without blocking on a
    /// FIFO, which `O_NONBLOCK` lets `open` return from).
    package convenience init(opening url: URL) throws(StrataError) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot open '\(url.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw StrataError(.storeIO, "'\(url.path)' is not a regular file; a store is a regular file")
        }
        self.init(descriptor: descriptor, path: url.path)
    }

    deinit { close(descriptor) }

    /// The identity of the open file now (its times change when it is renamed or rewritten).
    package func identity() throws(StrataError) -> FileVersion {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw StrataError(.storeIO, "cannot read the attributes of '\(path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        return FileVersion(status)
    }
}
