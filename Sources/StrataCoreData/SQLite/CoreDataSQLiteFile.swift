internal import Foundation
internal import Strata
internal import StrataSQLite

/// Opens a Core Data SQLite store for reading so that none of its files changes and every saved
/// row is seen, also rows still in its write-ahead log (`-wal`).
///
/// SQLite opened read-only on a WAL database still creates the `-wal` and `-shm` files when they
/// are missing and may write the `-shm` index (https://sqlite.org/wal.html#readonly). So the way
/// the file is opened depends on what lies beside it:
/// - a rollback-journal database: read-only (SQLite never creates a file then; a hot journal is
///   an error, as a read-only connection cannot roll it back);
/// - a WAL database with no `-wal` (or an empty one and no `-shm`): nothing is pending and no
///   connection has the store open, so the file is read as `immutable=1`, without locks or
///   sidecar files;
/// - a `-wal` and a `-shm`: read-only with `readonly_shm=1`: the index is never written; without a
///   live writer SQLite reads the log into private memory, with one it shares the writer's index
///   and locks, so a store an app has open is read consistently;
/// - a `-wal` with rows but no `-shm`: SQLite cannot read the log without creating the index, so
///   the database and its log are copied into a private temporary directory and the copy is read
///   (no connection can have the store open without its `-shm`).
///
/// Everything is read in one read transaction, so the rows form one consistent snapshot.
enum CoreDataSQLiteFile {
    /// Calls `body` with a read-only connection to the store at `url`.
    /// - Throws: `corruptStore` for a file that is not a SQLite database; `storeIO` when it
    ///   cannot be read.
    static func read<T>(_ url: URL, _ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T {
        let path = url.path
        let header = try StoreFile.checkHeader(url)
        let wal = size(path + "-wal")
        let hasIndex = FileManager.default.fileExists(atPath: path + "-shm")
        guard header.isWAL else {
            return try inTransaction(try Database(path: path, mode: .init(readOnly: true, create: false)), body)
        }
        guard let wal else {
            return try inTransaction(try Database(path: path, mode: .init(readOnly: true, create: false, immutable: true)), body)
        }
        if hasIndex {
            return try inTransaction(try Database(path: path, mode: .init(readOnly: true, create: false, readOnlySharedMemory: true)), body)
        }
        if wal == 0 {
            return try inTransaction(try Database(path: path, mode: .init(readOnly: true, create: false, immutable: true)), body)
        }
        return try readCopy(url, body)
    }

    /// Reads a copy of the database and its log, made in a private temporary directory and
    /// removed afterwards.
    private static func readCopy<T>(_ url: URL, _ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T {
        let fileManager = FileManager.default
        let directory = fileManager.temporaryDirectory.appendingPathComponent("strata-coredata-\(UUID().uuidString)")
        let copy = directory.appendingPathComponent("store.sqlite")
        defer { try? fileManager.removeItem(at: directory) }
        do {
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try fileManager.copyItem(atPath: url.path, toPath: copy.path)
            try fileManager.copyItem(atPath: url.path + "-wal", toPath: copy.path + "-wal")
        } catch {
            throw StrataError(.storeIO, "cannot read the store's write-ahead log without its '-shm' index: copying the database and its '-wal' to \(directory.path) to read them there failed: \(error.localizedDescription)", file: url.path)
        }
        do {
            return try inTransaction(try Database(path: copy.path, mode: .init(readOnly: false, create: false)), body)
        } catch {
            throw StrataError(error.code, error.message, file: url.path)
        }
    }

    /// Runs `body` in one read transaction and closes the connection.
    private static func inTransaction<T>(_ database: Database, _ body: (Database) throws(StrataError) -> T) throws(StrataError) -> T {
        try database.execute("PRAGMA query_only = 1")
        try database.execute("BEGIN")
        defer { try? database.execute("COMMIT") }
        return try body(database)
    }

    /// The size of a file; nil when there is none.
    private static func size(_ path: String) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }
}
