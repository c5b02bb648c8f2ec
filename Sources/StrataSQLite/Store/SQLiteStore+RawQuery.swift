public import Strata

extension SQLiteStore {
    /// Runs one read-only SQL statement and returns its rows as dictionaries keyed by column
    /// name — an escape hatch for power users; fetch requests are the way to read objects.
    ///
    /// The statement runs on a reader connection and must not change the database: anything
    /// but a query (`SELECT`, `WITH … SELECT`, read-only `PRAGMA`s) is refused, as SQLite
    /// judges it (https://sqlite.org/c3ref/stmt_readonly.html). Values are always bound:
    /// write `?` (or `?NNN`) in the SQL and pass the values in `arguments`. Columns come back
    /// as SQLite stores them: see the store's layout for how each attribute type is kept
    /// (dates as seconds since 2001-01-01, decimals as text, NaN as the text `"NaN"`, …);
    /// integers as `.integer`, reals as `.double`, text as `.string`, blobs as `.binary`, NULL
    /// as nil.
    ///
    /// ```swift
    /// let rows = try store.rawQuery("SELECT title, priority FROM Todo WHERE priority > ?", [.integer(2)])
    /// ```
    /// - Throws: `StrataError` `invalidPredicate` for a statement that would write or does
    ///   not compile, or a store error.
    public func rawQuery(_ sql: String, _ arguments: [AttributeValue?]) throws(StrataError) -> [[String: AttributeValue?]] {
        let bound = arguments.map { ValueCodec.encode($0) }
        return try pool.read { (database) throws(StrataError) -> [[String: AttributeValue?]] in
            let statement: Statement
            do throws(StrataError) {
                statement = try Statement(database: database, sql: sql)
            } catch {
                throw StrataError(.invalidPredicate, "the raw query does not compile: \(error.message)", file: error.file)
            }
            guard statement.isReadOnly else {
                throw StrataError(.invalidPredicate, "rawQuery runs read-only statements only (SELECT); this one would change the database: \(sql)", file: url?.path)
            }
            guard statement.parameterCount == bound.count else {
                throw StrataError(.invalidPredicate, "the raw query has \(statement.parameterCount) parameter(s) but \(bound.count) argument(s) were given: \(sql)", file: url?.path)
            }
            let names = (0..<statement.columnCount).map { statement.columnName($0) }
            return try statement.rows(bound) { row in
                var result: [String: AttributeValue?] = [:]
                for (index, name) in names.enumerated() {
                    switch row.value(at: Int32(index)) {
                    case .null: result[name] = .some(nil)
                    case .integer(let v): result[name] = .integer(v)
                    case .real(let v): result[name] = .double(v)
                    case .text(let v): result[name] = .string(v)
                    case .blob(let v): result[name] = .binary(v)
                    }
                }
                return result
            }
        }
    }
}
