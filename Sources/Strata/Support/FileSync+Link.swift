package import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

extension FileSync {
    /// Puts a finished file under a name that must not exist yet, without ever replacing a file
    /// someone else put there: link(2), which fails when the name is taken.
    ///
    /// The directory is synced after, so that the new name survives a crash as the file does.
    ///
    /// - Returns: true when `source` now has the name too (the caller then removes `source`);
    ///   false when the name was taken by another file, which is left alone.
    /// - Throws: `storeIO` when the file system refuses for another reason.
    package static func link(_ source: URL, asNew destination: URL) throws(StrataError) -> Bool {
        if Foundation.link(source.path, destination.path) == 0 {
            try? sync(destination.deletingLastPathComponent())
            return true
        }
        let failure = errno
        if failure == EEXIST { return false }
        // File systems without hard links: a rename, checked just before, is the fallback (it
        // would replace a file made in the instant between the two).
        if failure == EPERM || failure == ENOTSUP || failure == EOPNOTSUPP || failure == EMLINK {
            if FileManager.default.fileExists(atPath: destination.path) { return false }
            try rename(source, over: destination)
            try? sync(destination.deletingLastPathComponent())
            return true
        }
        throw StrataError(.storeIO, "cannot create '\(destination.path)': \(String(cString: strerror(failure)))", file: destination.path)
    }
}
