package import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A file as the file system knows it — device and inode — so that two paths name the same file
/// however they spell it: through a symlink, a hard link, `..` or a relative path.
package struct FileIdentity: Hashable, Sendable {
    package let device: UInt64
    package let inode: UInt64

    /// The identity of the file at `path` after following symlinks, or nil when there is none.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The files a store at `path` occupies: the file itself and, for SQLite, the `-wal`, `-shm`
    /// and `-journal` files beside it (under the name given and under the symlink's target).
    package static func storeFiles(at path: String) -> Set<FileIdentity> {
        var paths = [path]
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        if resolved != path { paths.append(resolved) }
        var identities = Set<FileIdentity>()
        for base in paths {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                if let identity = FileIdentity(path: base + suffix) { identities.insert(identity) }
            }
        }
        return identities
    }

    /// Throws when an existing `path` is not a regular file (a FIFO, a directory, a device, a
    /// socket), before anything opens it: reading a FIFO would block until a writer comes. A
    /// symlink to a regular file is fine; a missing file is left to the caller.
    /// - Throws: `storeIO` naming the path and what it is.
    package static func requireRegularFile(_ url: URL, role: String = "store") throws(StrataError) {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "a special file"
        }
        throw StrataError(.storeIO, "'\(url.relativePath)' is \(kind), not a regular file; a \(role) must be a regular file (or a symlink to one)")
    }
}
