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

    /// What a store file has beside it: SQLite's `-wal`, `-shm` and `-journal`, and an atomic
    /// store's `.lock`.
    package static let companionSuffixes = ["-wal", "-shm", "-journal", ".lock"]

    /// The files a store at `path` occupies: the file itself and its companions (under the name
    /// given and under the symlink's target).
    package static func storeFiles(at path: String) -> Set<FileIdentity> {
        var identities = Set<FileIdentity>()
        for candidate in storePaths(at: path) {
            if let identity = FileIdentity(path: candidate) { identities.insert(identity) }
        }
        return identities
    }

    /// The paths a store at `path` occupies or may come to occupy (a `-wal` appears when a
    /// connection opens the store): the file and its companions, under the name given and
    /// under the symlink's target, each with its directory's symlinks resolved.
    package static func storePaths(at path: String) -> Set<String> {
        var bases = [path, URL(fileURLWithPath: path).resolvingSymlinksInPath().path]
        bases = bases.map(canonicalPath)
        var paths = Set<String>()
        for base in bases {
            for suffix in [""] + companionSuffixes { paths.insert(base + suffix) }
        }
        return paths
    }

    /// `path` absolute and standardized, with the symlinks of its directory resolved (the file
    /// itself need not exist), so that two spellings of one place compare equal.
    package static func canonicalPath(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
    }

    /// Whether writing `output` would write over the store at `store` or one of its companions:
    /// the same file (device and inode: symlinks and hard links count), or the path of a
    /// companion that does not exist yet (a `-wal` another connection is about to create, a
    /// lock file a save is about to take).
    package static func isPartOfStore(_ output: String, store: String) -> Bool {
        if let identity = FileIdentity(path: output), storeFiles(at: store).contains(identity) { return true }
        let paths = storePaths(at: store)
        return paths.contains(canonicalPath(output))
            || paths.contains(canonicalPath(URL(fileURLWithPath: output).resolvingSymlinksInPath().path))
    }

    /// Throws when an existing `path` is not a regular file (a FIFO, a directory, a device, a
    /// socket), before anything opens it: reading a FIFO would block until a writer comes. A
    /// symlink to a regular file is fine; a missing file is left to the caller.
    /// - Throws: `storeIO` naming the path and what it is.
    package static func requireRegularFile(_ url: URL, role: String = "store") throws(StrataError) {
        // A store on a server (postgres://…) is no file.
        guard url.isFileURL else { return }
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
