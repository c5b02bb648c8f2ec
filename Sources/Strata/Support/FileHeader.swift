internal import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Reads the first bytes of a file without ever closing a descriptor of a SQLite database.
///
/// POSIX advisory locks belong to the process: closing *any* descriptor of a file drops every
/// lock the process holds on it, those of its SQLite connections included
/// (https://sqlite.org/howtocorrupt.html, §2.2). Another process's last connection would then
/// take itself for the last one and delete the `-wal` this process still writes to. SQLite
/// itself keeps such descriptors open while its locks last; here, a descriptor of a file that
/// starts like a SQLite database is kept open for the life of the process (one per file,
/// reused by later reads), since it cannot be known whether a connection of this process has
/// the file open. Other files' descriptors are closed at once.
enum FileHeader {
    private static let sqliteMagic = Array("SQLite format 3\0".utf8)
    /// Descriptors kept open, by file identity.
    private static let kept = Locked<[FileIdentity: Int32]>([:])

    /// Up to `count` bytes from the start of the file at `url`; nil when it cannot be read.
    static func read(_ url: URL, count: Int) -> Data? {
        guard let identity = FileIdentity(path: url.path) else { return nil }
        return kept.withLock { kept -> Data? in
            if let descriptor = kept[identity] { return readStart(descriptor, count) }
            let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { return nil }
            let bytes = readStart(descriptor, count)
            if let bytes, bytes.starts(with: sqliteMagic), FileIdentity(descriptor: descriptor) == identity {
                kept[identity] = descriptor
            } else {
                close(descriptor)
            }
            return bytes
        }
    }

    private static func readStart(_ descriptor: Int32, _ count: Int) -> Data? {
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        return read < 0 ? nil : Data(buffer.prefix(read))
    }
}

extension FileIdentity {
    /// The identity of an open file.
    init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
