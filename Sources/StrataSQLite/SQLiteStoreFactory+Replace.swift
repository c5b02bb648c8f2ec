internal import CSQLite
public import Foundation
public import Strata

extension SQLiteStoreFactory {
    /// Copies the finished store at `replacement` into the existing database at `destination`
    /// with SQLite's online backup API (https://sqlite.org/backup.html): the copy takes the
    /// destination's write lock and goes through its journal or write-ahead log, so connections
    /// of other processes stay valid and see the new contents, and nothing they committed is
    /// lost before the copy. The file keeps its inode, owner, mode and place behind symlinks.
    ///
    /// The file then holds another store (another `storeIdentifier`, its own keys and
    /// versions): a ``SQLiteStore`` opened on it before refuses every later write with
    /// `storeIO` ("the store file was replaced by another store…; nothing was saved"), checked
    /// inside each write transaction; its fetches read the new contents. Open the store again
    /// to work with them.
    /// - Throws: `storeIO` when the destination may not be written (`FileSync`'s rules) or
    ///   stays locked by another connection for 30 seconds; SQLite's errors otherwise. The
    ///   destination is then as it was (the backup commits in one transaction).
    public func replaceStoreContents(at destination: URL, from replacement: URL) throws(StrataError) -> Bool {
        guard try FileSync.replaceableFile(at: destination) != nil else { return false }
        let target = try Database(path: destination.path, mode: .init(readOnly: false, create: false))
        let source = try Database(path: replacement.path, mode: .init(readOnly: true, create: false))
        guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
            throw target.error(sqlite3_errcode(target.handle), sql: nil)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, -1)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED { sqlite3_sleep(20) }
        } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED) && clock.now < deadline
        let finished = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else {
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED || rc == SQLITE_OK {
                throw StrataError(.storeIO, "another connection kept '\(destination.path)' locked for 30 seconds; nothing was replaced", file: destination.path)
            }
            throw target.error(rc, sql: nil, message: "cannot copy the converted store into it")
        }
        guard finished == SQLITE_OK else { throw target.error(finished, sql: nil, message: "cannot copy the converted store into it") }
        return true
    }
}
