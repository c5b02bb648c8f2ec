package import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

extension FileSync {
    /// Writes `data` as the output file at `url`, the way a user expects of one: through a
    /// symlink, to its target; into a character device or a FIFO as it is (`/dev/null`, a
    /// pipe), never replacing it with a regular file; over a regular file atomically (a
    /// temporary file beside it, fsync, rename) keeping its owner, group and mode, and only when
    /// the user could write it (``replaceableFile(at:)``); anything else (a directory, a socket)
    /// is refused.
    /// - Throws: `storeIO` naming the file and what went wrong; the old file is then untouched.
    package static func writeOutput(_ data: Data, to url: URL) throws(StrataError) {
        try writeOutput(to: url) { (write) throws(StrataError) in try write(data) }
    }

    /// Writes the output file at `url` as ``writeOutput(_:to:)`` does, with the bytes that
    /// `produce` hands, chunk by chunk, to the function it is given: a large output is never
    /// whole in memory. The file is replaced only when `produce` returns.
    /// - Throws: `storeIO`, or what `produce` throws; the old file is then untouched.
    package static func writeOutput(
        to url: URL, _ produce: (_ write: (Data) throws(StrataError) -> Void) throws(StrataError) -> Void
    ) throws(StrataError) {
        let target = try resolvingSymlinks(url)
        var status = stat()
        if stat(target.path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                break
            case S_IFCHR, S_IFIFO:
                let descriptor = open(target.path, O_WRONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    throw StrataError(.storeIO, "cannot open '\(url.relativePath)' for writing: \(String(cString: strerror(errno)))", cause: .posix(errno))
                }
                defer { close(descriptor) }
                try produce { (data) throws(StrataError) in try writeAll(data, to: descriptor, path: url.path) }
                return
            default:
                throw StrataError(.storeIO, "'\(url.relativePath)' is \((status.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"); write the output to a file")
            }
        }
        let existing = try replaceableFile(at: target)
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString).tmp")
        // Private until it gets the old file's mode, as a store's replacement is.
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, existing == nil ? 0o644 : 0o600)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot write '\(url.relativePath)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        do throws(StrataError) {
            defer { close(descriptor) }
            try produce { (data) throws(StrataError) in try writeAll(data, to: descriptor, path: temporary.path) }
            if let existing { try copyAttributes(existing, to: descriptor, replacing: target) }
            try sync(descriptor: descriptor, path: temporary.path)
            try rename(temporary, over: target)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        try? sync(target.deletingLastPathComponent())
    }

    /// write(2) until every byte is written.
    private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws(StrataError) {
        let failure: Int32? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure {
            throw StrataError(.storeIO, "cannot write '\(path)': \(String(cString: strerror(failure)))")
        }
    }
}
