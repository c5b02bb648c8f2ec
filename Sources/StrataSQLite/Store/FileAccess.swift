internal import Foundation
internal import Strata

/// How a store's database file can be opened by this process: for writing, for reading through
/// SQLite's locks and its `-wal` and `-shm` files, or as an immutable file.
///
/// SQLite reads a WAL database only when its `-wal` and `-shm` files exist or can be created;
/// otherwise only as `immutable=1`, which skips locks and the log altogether
/// (https://sqlite.org/wal.html#readonly). That is right only when nobody can change the file
/// while it is read and no log beside it holds committed transactions, so it is chosen only then.
struct FileAccess {
    enum Mode: Equatable {
        /// Reading and writing.
        case readWrite
        /// Reading only. `fileWritable`: this process could write the file, so connections open
        /// it read-write with `query_only`, which lets SQLite's last connection fold the log
        /// back and remove the `-wal` and `-shm` files it made, as the `sqlite3` shell does.
        case readOnly(fileWritable: Bool)
        /// A WAL database nobody can write, with no log: read without locks, `-wal` or `-shm`.
        case immutable
    }

    let path: String
    let mode: Mode

    var canWrite: Bool { mode == .readWrite }

    /// Decides how to open an existing file, after checking its header.
    /// - Parameter readOnly: true when the caller only reads; otherwise the file is opened for
    ///   writing when this process can write it, and for reading when it cannot.
    /// - Throws: `corruptStore` for a file that is not a SQLite database; `storeIO` when a WAL
    ///   database cannot be read safely here.
    init(_ url: URL, readOnly: Bool) throws(StrataError) {
        path = url.path
        let header = try StoreFile.checkHeader(url)
        let directory = url.deletingLastPathComponent().path
        let wal = Self.size(path + "-wal"), shm = Self.size(path + "-shm")
        let directoryWritable = access(directory, W_OK) == 0
        let sidecarsWritable = directoryWritable
            || (wal != nil && shm != nil && access(path + "-wal", W_OK) == 0 && access(path + "-shm", W_OK) == 0)
        // A file with no write permission bit at all is read-only even for root, who may write
        // anything: such a mode is someone's deliberate "do not change" (the atomic stores
        // refuse it too, ``FileSync/replaceableFile(at:)``).
        var status = stat()
        let hasWriteBit = stat(path, &status) == 0 && status.st_mode & 0o222 != 0
        let fileWritable = hasWriteBit && access(path, W_OK) == 0 && (sidecarsWritable || !header.isWAL)
        if !readOnly && fileWritable {
            mode = .readWrite
            return
        }
        if !header.isWAL || directoryWritable || (wal != nil && shm != nil) {
            mode = .readOnly(fileWritable: fileWritable)
            return
        }
        // A WAL database whose -wal or -shm this process can neither find nor create.
        if let wal, wal > 0 {
            throw StrataError(.storeIO, "the store cannot be read here: its write-ahead log '\(path)-wal' holds transactions that are not in the file yet, and SQLite cannot create the '-shm' index it needs to read the log in this read-only directory. Open the store once where its directory is writable, so that the log is folded into the file", file: path)
        }
        guard Self.nobodyCanWrite(path, directory: directory) else {
            throw StrataError(.storeIO, "the store cannot be opened here: SQLite cannot create its '-wal' and '-shm' files in this directory, so this process cannot write the store, nor read it safely, since the file is writable and another process could change it meanwhile. Make the directory writable, or make the file read-only (chmod a-w) to read it as an immutable file", file: path)
        }
        mode = .immutable
    }

    /// Opens a connection in this mode. Connections that only read get `query_only`.
    func open() throws(StrataError) -> Database {
        switch mode {
        case .readWrite:
            return try Database(path: path, mode: .init(readOnly: false, create: false))
        case .readOnly(let fileWritable):
            let database = try Database(path: path, mode: .init(readOnly: !fileWritable, create: false))
            try database.execute("PRAGMA query_only = 1")
            return database
        case .immutable:
            let database = try Database(path: path, mode: .init(readOnly: true, create: false, immutable: true))
            try database.execute("PRAGMA query_only = 1")
            return database
        }
    }

    /// The error for a write to a store opened for reading.
    var readOnlyError: StrataError {
        StrataError(.storeIO, "the store is read-only: it was opened for reading, or this process cannot write the file or create its '-wal' and '-shm' files beside it; nothing was written", file: path)
    }

    /// The size of a file; nil when there is none.
    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// True when no one but the superuser can change the database: it is on a read-only file
    /// system, the file has no write permission for anyone, or the directory has none (then
    /// nobody can create the `-wal` a writer of a WAL database needs).
    static func nobodyCanWrite(_ path: String, directory: String) -> Bool {
        var system = statvfs()
        if statvfs(path, &system) == 0, system.f_flag & UInt(ST_RDONLY) != 0 { return true }
        let anyWrite = mode_t(S_IWUSR | S_IWGRP | S_IWOTH)
        var file = stat(), folder = stat()
        if stat(path, &file) == 0, file.st_mode & anyWrite == 0 { return true }
        if stat(directory, &folder) == 0, folder.st_mode & anyWrite == 0 { return true }
        return false
    }
}
