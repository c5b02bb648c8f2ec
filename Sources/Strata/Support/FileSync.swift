package import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The POSIX steps of an atomic file replacement, with errors that say which step failed.
package enum FileSync {
    /// fsync(2) a file or directory so its data (or its entries) reach the disk.
    package static func sync(_ url: URL) throws(StrataError) {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot open '\(url.path)' to sync it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StrataError(.storeIO, "cannot sync '\(url.path)' to disk: \(String(cString: strerror(errno)))")
        }
    }

    /// rename(2): atomically replaces `destination` with `source` on the same file system.
    package static func rename(_ source: URL, over destination: URL) throws(StrataError) {
        #if canImport(Glibc) || canImport(Musl)
        let result = Glibc.rename(source.path, destination.path)
        #else
        let result = Darwin.rename(source.path, destination.path)
        #endif
        guard result == 0 else {
            throw StrataError(.storeIO, "cannot move the new store file over '\(destination.path)': \(String(cString: strerror(errno)))")
        }
    }
}
