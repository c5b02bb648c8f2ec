internal import Foundation
package import Strata

extension PostgresStore {
    /// What opening a store created on the server.
    package enum Creation: Sendable, Hashable {
        /// Nothing: the store existed already.
        case existing
        /// The store's tables, in a schema that existed (empty, or holding other things).
        case tables
        /// The schema, and the store's tables in it.
        case schema
    }

    /// The bytes the store takes on the server: every table of its schema with its indexes and
    /// TOAST (`pg_total_relation_size`), as `strata inspect` shows it.
    /// - Throws: `storeIO` when the server cannot be asked.
    package func storageSize() throws(StrataError) -> Int64 {
        try pool.read { (connection) throws(StrataError) -> Int64 in
            try connection.run(
                """
                SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c \
                JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
                """,
                [location.schema]).int64(0, 0) ?? 0
        }
    }

    /// Takes away what opening this store created — its schema, or its tables in a schema that
    /// existed before — as long as no save was ever made to it (`strata_history` is empty) and it
    /// is still this store: for a command that created a store and failed to fill it (a failed
    /// `strata load` leaves nothing behind, as for a file). A store some other process saved to
    /// meanwhile is kept. Under the store's advisory lock, so no save runs meanwhile.
    /// - Returns: whether anything was removed.
    @discardableResult
    package func removeIfCreatedAndUnused() throws(StrataError) -> Bool {
        guard creation != .existing else { return false }
        return try pool.write { (connection) throws(StrataError) -> Bool in
            try connection.transaction { () throws(StrataError) -> Bool in
                try connection.run("SELECT pg_advisory_xact_lock(hashtext($1))", [location.advisoryLockKey])
                guard try PostgresMetadata.read(connection, location: location)?.storeIdentifier == storeIdentifier,
                      try connection.run("SELECT 1 FROM \"strata_history\" LIMIT 1").count == 0
                else { return false }
                if creation == .schema {
                    try connection.run("DROP SCHEMA \(quoted(location.schema)) CASCADE")
                } else {
                    let tables = ["strata_metadata", "strata_keys", "strata_history"] + layout.tables.keys.sorted() + layout.joinTables.map(\.name)
                    try connection.run("DROP TABLE \(tables.map(quoted).joined(separator: ", ")) CASCADE")
                }
                return true
            }
        }
    }
}
