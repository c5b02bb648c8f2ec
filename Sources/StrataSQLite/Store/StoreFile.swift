internal import CSQLite
package import Foundation
package import Strata

/// Checks a database file before a store touches it, and reads and writes `strata_metadata`.
///
/// A file is checked without writing to it: its header is read as bytes, then it is opened
/// read-only. A file that is not SQLite, is truncated, or is SQLite but not a Strata store is
/// refused with an error that names it, and left as it was.
package enum StoreFile {
    /// The 16 bytes every SQLite 3 database starts with (https://sqlite.org/fileformat.html).
    static let header = Data("SQLite format 3\0".utf8)

    /// The current layout version, kept in `strata_metadata` under `layoutVersion`.
    static let layoutVersion = String(StoreLayoutUpgrade.currentVersion)

    typealias Key = StoreMetadata.Key

    /// What the first 100 bytes of a database say.
    package struct Header {
        /// Whether the database is in WAL mode (read and write versions 2, file format §1.3.3):
        /// reading it needs the `-wal` and `-shm` files beside it.
        package var isWAL: Bool
    }

    /// Checks the file's header and size: a SQLite database, not cut short.
    @discardableResult
    package static func checkHeader(_ url: URL) throws(StrataError) -> Header {
        let path = url.path
        let (bytes, size) = try readStart(of: path, count: 100)
        guard bytes.count >= header.count, bytes.prefix(header.count) == header else {
            throw StrataError(.corruptStore, bytes.isEmpty
                ? "the file is empty; it is not a SQLite database. Remove it, or point the store at another path"
                : "the file is not a SQLite database (it does not start with \"SQLite format 3\"); it may be a store of another type — open it with that type", file: path)
        }
        guard bytes.count == 100 else {
            throw StrataError(.corruptStore, "the SQLite database is truncated: the file has \(size) bytes, less than its 100-byte header", file: path)
        }
        let b = [UInt8](bytes)
        let rawPageSize = Int(b[16]) << 8 | Int(b[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let pageCount = Int(b[28]) << 24 | Int(b[29]) << 16 | Int(b[30]) << 8 | Int(b[31])
        let changeCounter = b[24...27]
        let validFor = b[92...95]
        // The page count in the header is valid when the two counters agree (file format §1.3.9).
        // It says more than the file holds for a moment whenever a writer grows the file: a
        // checkpoint (WAL) or a commit (rollback journal) writes page 1 before the pages after
        // the old end. So the size is judged only when no -wal or -journal shows that a writer
        // may be at work; otherwise SQLite itself, under its locks, reports a short file.
        let writerMayBeAtWork = FileManager.default.fileExists(atPath: path + "-wal")
            || FileManager.default.fileExists(atPath: path + "-journal")
        if !writerMayBeAtWork, changeCounter.elementsEqual(validFor), pageSize >= 512, pageCount > 0, size < pageSize * pageCount {
            throw StrataError(.corruptStore, "the SQLite database is truncated: its header says \(pageCount) pages of \(pageSize) bytes (\(pageSize * pageCount) bytes), but the file has only \(size) bytes. Restore it from a backup", file: path)
        }
        return Header(isWAL: b[18] == 2 || b[19] == 2)
    }

    /// The first `count` bytes of the file and its size, read through SQLite's own file layer
    /// (its default VFS), never with a descriptor of our own: POSIX advisory locks belong to the
    /// process, and closing any descriptor of the file drops every lock the process's SQLite
    /// connections hold on it (https://sqlite.org/howtocorrupt.html, §2.2). Another process's
    /// last connection would then take itself for the last one and delete the `-wal` this
    /// process writes to. SQLite's unix VFS keeps such a descriptor open until the locks go.
    static func readStart(of path: String, count: Int) throws(StrataError) -> (bytes: Data, size: Int) {
        guard let vfs = sqlite3_vfs_find(nil) else {
            throw StrataError(.storeIO, "SQLite has no file system layer (VFS) to read the file with", file: path)
        }
        // The VFS keeps the name for as long as the file is open.
        let capacity = Int(vfs.pointee.mxPathname) + 1
        let name = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        name.initialize(repeating: 0, count: capacity)
        defer { name.deallocate() }
        // SQLITE_OK_SYMLINK (a primary code of SQLITE_OK) for a path through a symlink.
        guard vfs.pointee.xFullPathname(vfs, path, Int32(capacity), name) & 0xff == SQLITE_OK else {
            throw StrataError(.storeIO, "cannot resolve the path of the file", file: path)
        }
        let size = max(Int(vfs.pointee.szOsFile), MemoryLayout<sqlite3_file>.size)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        defer { raw.deallocate() }
        let file = raw.assumingMemoryBound(to: sqlite3_file.self)
        var flags: Int32 = 0
        let opened = vfs.pointee.xOpen(vfs, name, file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &flags)
        guard opened == SQLITE_OK, let methods = file.pointee.pMethods else {
            if let methods = file.pointee.pMethods { _ = methods.pointee.xClose(file) }
            throw StrataError(.storeIO, "cannot read the file: \(String(cString: sqlite3_errstr(opened))) (\(String(cString: strerror(errno))))", file: path, cause: .posix(errno))
        }
        defer { _ = methods.pointee.xClose(file) }
        var fileSize: sqlite3_int64 = 0
        guard methods.pointee.xFileSize(file, &fileSize) == SQLITE_OK else {
            throw StrataError(.storeIO, "cannot read the size of the file", file: path)
        }
        let wanted = Int(min(sqlite3_int64(count), fileSize))
        var buffer = [UInt8](repeating: 0, count: max(wanted, 1))
        if wanted > 0 {
            let read = buffer.withUnsafeMutableBytes { methods.pointee.xRead(file, $0.baseAddress, Int32(wanted), 0) }
            guard read == SQLITE_OK else {
                throw StrataError(
                    .storeIO, "cannot read the file: \(String(cString: sqlite3_errstr(read)))", file: path,
                    cause: StrataError.Cause(domain: .sqlite, code: read, message: String(cString: sqlite3_errstr(read))))
            }
        }
        return (Data(buffer.prefix(wanted)), Int(fileSize))
    }

    /// Creates a new store at `url` unless a file is there already (then another process has
    /// just created it, and the caller opens that one).
    ///
    /// The database is made whole in a temporary file beside `url` — tables, metadata, WAL mode —
    /// and closed, then linked under its name, which fails when the name is taken: the name never
    /// shows an empty or half-made database, and of two processes creating one store, one
    /// creates it and the other opens it. Only the temporary file, which no other process knows
    /// of, is ever removed.
    static func create(_ url: URL, layout: StoreLayout, metadata: StoreMetadata) throws(StrataError) {
        let path = url.path
        // A log without its database belongs to one that was deleted or moved; a new database
        // would take its transactions in. (The log is looked at before the database: a process
        // creating the store now links the database before its log exists.)
        if let wal = FileAccess.size(path + "-wal"), wal > 0, !FileManager.default.fileExists(atPath: path) {
            throw StrataError(.storeIO, "there is no store here, but a write-ahead log '\(url.lastPathComponent)-wal' of a database that was deleted or moved is: put the database back, or remove '\(url.lastPathComponent)-wal' and '\(url.lastPathComponent)-shm'", file: path)
        }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).creating").path
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        }
        do {
            let database = try Database(path: temporary, mode: .init(readOnly: false, create: true))
            try SQLiteStore.configure(database)
            try SQLiteStore.create(layout, metadata, database)
        } catch {
            var located = error
            located.file = path
            throw located
        }
        // The connection is closed: the log is folded into the file and removed with its index.
        // When the name is taken, another process has just created the store: it is opened.
        _ = try FileSync.link(URL(fileURLWithPath: temporary), asNew: url)
    }

    /// Opens the file for reading, checks it is a Strata store, and reads its metadata. No
    /// data is written; the connection is closed when this returns.
    ///
    /// No file is ever removed here: a `-wal` beside the database may hold another
    /// connection's committed transactions. A connection that may write the file closes as
    /// SQLite's own last connection does, folding the log back and removing `-wal` and `-shm`
    /// only when no other connection has the database open (https://sqlite.org/wal.html).
    static func readMetadata(_ url: URL) throws(StrataError) -> StoreMetadata {
        let access = try FileAccess(url, readOnly: true)
        let database = try access.open()
        return try readMetadata(database)
    }

    static func readMetadata(_ database: Database) throws(StrataError) -> StoreMetadata {
        let hasTable: SQLValue?
        do {
            hasTable = try database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'strata_metadata'")
        } catch {
            throw StrataError(.corruptStore, "the file is damaged or not a SQLite database: \(error.message)", file: database.path)
        }
        guard hasTable == .integer(1) else {
            let coreData = try? database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('Z_METADATA', 'Z_PRIMARYKEY')")
            if coreData == .integer(2) {
                throw StrataError(.corruptStore, "the file is a Core Data store (it has Z_METADATA and Z_PRIMARYKEY tables), not a Strata SQLite store: open it as type 'coredata' with its model (strata: --type coredata --schema <model>)", file: database.path)
            }
            throw StrataError(.corruptStore, "the file is a SQLite database but not a Strata store: it has no strata_metadata table. Open a store Strata wrote, or point the store at a new file", file: database.path)
        }
        var values: [String: String] = [:]
        do {
            for (key, value) in try database.rows("SELECT \"key\", \"value\" FROM \"strata_metadata\"", [], { ($0.text(0), $0.text(1)) }) {
                values[key] = value
            }
        } catch {
            throw StrataError(.corruptStore, "the Strata metadata cannot be read: \(error.message)", file: database.path)
        }
        func required(_ key: String) throws(StrataError) -> String {
            guard let value = values[key] else {
                throw StrataError(.corruptStore, "the Strata metadata has no '\(key)'; the store is damaged", file: database.path)
            }
            return value
        }
        let storeType = try required(Key.storeType)
        guard storeType == StoreType.sqlite.rawValue else {
            throw StrataError(.corruptStore, "the Strata metadata gives the store type as \(ValueCodec.shown(storeType)), but the file is a SQLite store ('sqlite'); the store is damaged", file: database.path)
        }
        try checkLayoutVersion(try required(Key.layoutVersion), file: database.path)
        let hashesJSON = try required(Key.entityVersionHashes)
        guard let object = try? JSONSerialization.jsonObject(with: Data(hashesJSON.utf8)), let hashes = object as? [String: String] else {
            throw StrataError(.corruptStore, "the Strata metadata's entityVersionHashes is not a JSON object of strings; the store is damaged", file: database.path)
        }
        var custom: [String: String] = [:]
        for (key, value) in values where key.hasPrefix(Key.customPrefix) {
            custom[String(key.dropFirst(Key.customPrefix.count))] = value
        }
        return StoreMetadata(
            storeIdentifier: try required(Key.storeIdentifier), storeType: .sqlite,
            modelName: try required(Key.modelName), modelVersionHash: try required(Key.modelVersionHash),
            entityVersionHashes: hashes, schemaJSON: try required(Key.schema), custom: custom)
    }

    /// The layout versions this version of Strata reads: the first one (stores are upgraded from
    /// it when opened for writing) and the current one.
    static let readableLayoutVersions: Set<String> = ["1", layoutVersion]

    /// Refuses a layout this version of Strata cannot read: a newer one, or one that is no
    /// layout version at all.
    static func checkLayoutVersion(_ version: String, file: String) throws(StrataError) {
        guard !readableLayoutVersions.contains(version) else { return }
        if let number = Int(version), let current = Int(layoutVersion), number > current {
            throw StrataError(.storeIO, "the store was written by a newer Strata (layout version \(number); this Strata reads layout versions up to \(current)); open it with a newer Strata", file: file)
        }
        throw StrataError(.corruptStore, "the Strata metadata's layoutVersion is \(ValueCodec.shown(version)), which no Strata writes; the store is damaged", file: file)
    }

    /// The rows of `strata_metadata` for `metadata`.
    static func rows(_ metadata: StoreMetadata) -> [(String, String)] {
        let hashes = (try? JSONSerialization.data(withJSONObject: metadata.entityVersionHashes, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        var rows: [(String, String)] = [
            (Key.storeIdentifier, metadata.storeIdentifier),
            (Key.storeType, metadata.storeType.rawValue),
            (Key.modelName, metadata.modelName),
            (Key.modelVersionHash, metadata.modelVersionHash),
            (Key.entityVersionHashes, hashes),
            (Key.schema, metadata.schemaJSON),
            (Key.layoutVersion, layoutVersion),
        ]
        for key in metadata.custom.keys.sorted() { rows.append((Key.customPrefix + key, metadata.custom[key]!)) }
        return rows
    }

    /// Replaces the custom keys of `strata_metadata`.
    static func writeCustom(_ custom: [String: String], _ database: Database) throws(StrataError) {
        try database.run("DELETE FROM \"strata_metadata\" WHERE substr(\"key\", 1, \(Key.customPrefix.count)) = ?", [.text(Key.customPrefix)])
        for key in custom.keys.sorted() {
            try database.run("INSERT INTO \"strata_metadata\" (\"key\", \"value\") VALUES (?, ?)", [.text(Key.customPrefix + key), .text(custom[key]!)])
        }
    }
}

/// The `strata_metadata` keys of a SQLite store besides the shared ones.
extension StoreMetadata.Key {
    static let layoutVersion = "layoutVersion"
    /// Custom keys are rows of their own, each under this prefix.
    static let customPrefix = custom + "."
}
