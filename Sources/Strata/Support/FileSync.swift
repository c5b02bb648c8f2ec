package import Foundation
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The POSIX steps of an atomic file replacement, with errors that say which step failed.
///
/// A replacement writes a new file beside the real file (symlinks resolved), gives it the old
/// file's owner, group and mode, fsyncs it, renames it over the old file (the commit point) and
/// fsyncs the directory. It refuses to replace a file the user could not have written in place,
/// and a file whose owner or group it could not keep.
package enum FileSync {
    /// fsync(2) a file or directory so its data (or its entries) reach the disk.
    package static func sync(_ url: URL) throws(StrataError) {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot open '\(url.path)' to sync it: \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        defer { close(descriptor) }
        try sync(descriptor: descriptor, path: url.path)
    }

    /// fsync(2) an open file.
    package static func sync(descriptor: Int32, path: String) throws(StrataError) {
        guard fsync(descriptor) == 0 else {
            throw StrataError(.storeIO, "cannot sync '\(path)' to disk: \(String(cString: strerror(errno)))", cause: .posix(errno))
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
            throw StrataError(.storeIO, "cannot move the new store file over '\(destination.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
    }

    /// The file a path finally names: symlinks followed (up to 40, as the kernel does), relative
    /// targets read against the link's directory. The file itself need not exist, so that a
    /// symlink to a store not yet created creates the store where the link points.
    package static func resolvingSymlinks(_ url: URL) throws(StrataError) -> URL {
        var path = url.standardizedFileURL.path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK else { return URL(fileURLWithPath: path) }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(path, &buffer, buffer.count - 1)
            guard length >= 0 else {
                throw StrataError(.storeIO, "cannot read the symbolic link '\(path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
            }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            path = target.hasPrefix("/")
                ? URL(fileURLWithPath: target).standardizedFileURL.path
                : URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(target).standardizedFileURL.path
        }
        throw StrataError(.storeIO, "'\(url.path)' is a chain of more than 40 symbolic links (a loop?)")
    }

    /// What a replacement keeps of the file it replaces.
    package struct ExistingFile: Sendable {
        package var mode: mode_t
        package var owner: uid_t
        package var group: gid_t
    }

    /// The owner, group and mode of the file at `url` (symlinks resolved by the caller), after
    /// checking that replacing it is allowed; nil when there is no file.
    ///
    /// Refused: a file that is not a regular file; a file the effective user may not write
    /// (`faccessat(AT_EACCESS)`); and a file with no write permission bit at all, even for root,
    /// who may write anything — a mode without write bits is someone's deliberate "do not
    /// change", and a rename would silently override it where an in-place write as an ordinary
    /// user would have failed.
    package static func replaceableFile(at url: URL) throws(StrataError) -> ExistingFile? {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            if errno == ENOENT { return nil }
            throw StrataError(.storeIO, "cannot read the attributes of '\(url.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw StrataError(.storeIO, "'\(url.path)' is not a regular file; a store is replaced only when it is one")
        }
        let mode = status.st_mode & 0o7777
        if mode & 0o222 == 0 {
            throw StrataError(.storeIO, "'\(url.path)' is read-only (mode \(String(mode, radix: 8))); nothing was written. Make it writable (chmod u+w) to save to it")
        }
        if faccessat(AT_FDCWD, url.path, W_OK, AT_EACCESS) != 0 {
            throw StrataError(.storeIO, "you may not write '\(url.path)' (\(String(cString: strerror(errno)))); nothing was written. A save replaces the whole file, which it does only when you could write the file itself", cause: .posix(errno))
        }
        return ExistingFile(mode: mode, owner: status.st_uid, group: status.st_gid)
    }

    /// Gives the open file `descriptor` (a replacement not yet renamed) the owner, group and mode
    /// of `existing`. Changing the owner needs root; when the file's owner or group cannot be
    /// kept the replacement is refused rather than handing the file to the current user.
    package static func copyAttributes(_ existing: ExistingFile, to descriptor: Int32, replacing url: URL) throws(StrataError) {
        if existing.owner != geteuid() || existing.group != getegid() {
            if fchown(descriptor, existing.owner, existing.group) != 0 {
                let reason = String(cString: strerror(errno))
                var status = stat()
                let owned = fstat(descriptor, &status) == 0 && status.st_uid == existing.owner && status.st_gid == existing.group
                if !owned {
                    let what = existing.owner != status.st_uid ? "owner (uid \(existing.owner))" : "group (gid \(existing.group))"
                    throw StrataError(.storeIO, "cannot keep the \(what) of '\(url.path)' (\(reason)): a save writes a new file and renames it over the old one, so it would change hands; nothing was written. Save as the file's owner or as root")
                }
            }
        }
        // After fchown, which clears set-user-ID and set-group-ID bits.
        guard fchmod(descriptor, existing.mode) == 0 else {
            throw StrataError(.storeIO, "cannot give the new version of '\(url.path)' the mode \(String(existing.mode, radix: 8)): \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
    }

    /// Same as ``copyAttributes(_:to:replacing:)`` for a file named by path.
    package static func copyAttributes(_ existing: ExistingFile, toFileAt file: URL, replacing url: URL) throws(StrataError) {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot open '\(file.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        defer { close(descriptor) }
        try copyAttributes(existing, to: descriptor, replacing: url)
    }

    /// Creates a new empty file for a replacement: readable by its owner only when it will
    /// replace a file (it gets that file's mode just before the rename, so that a 0600 store's
    /// data are never readable by others on the way), 0644 less the umask for a new store.
    /// - Returns: the descriptor, open for reading.
    package static func createTemporaryFile(_ url: URL, replacing existing: ExistingFile?) throws(StrataError) -> Int32 {
        let descriptor = open(url.path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, existing == nil ? 0o644 : 0o600)
        guard descriptor >= 0 else {
            throw StrataError(.storeIO, "cannot create '\(url.path)': \(String(cString: strerror(errno)))", cause: .posix(errno))
        }
        return descriptor
    }
}
