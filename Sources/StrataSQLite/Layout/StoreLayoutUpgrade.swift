internal import Foundation
internal import Strata
internal import StrataSQL

/// One step of the file layout: turns a store of layout `from` into one of layout `from + 1`,
/// inside the transaction ``StoreLayoutUpgrade/run(on:layout:)`` holds.
struct LayoutUpgrade: Sendable {
    /// The layout version this step starts from.
    let from: Int
    /// What the step changes, for error messages.
    let summary: String
    /// Changes the file; `layout` is the whole model's layout (every configuration's tables:
    /// one file may hold several), and only the tables that exist are touched.
    let apply: @Sendable (Database, StoreLayout) throws(StrataError) -> Void
}

/// Brings an existing store's file to the current layout when it is opened, in one
/// transaction: all steps or, when one fails or the process dies, none.
///
/// The version is read first without a lock (the common case: nothing to do); an old store is
/// then upgraded under `BEGIN IMMEDIATE`, which takes the write lock, and the version is read
/// again, so that of two processes opening the store at once the second finds the work done.
/// The steps run in order, N → N + 1, as a migration's SQLite steps will.
enum StoreLayoutUpgrade {
    /// The layout this version of Strata writes: 2 (shadow comparison columns, no Strata
    /// collation in the schema, dotted join-table and index names).
    static let currentVersion = 2

    static let steps: [LayoutUpgrade] = [
        LayoutUpgrade(from: 1, summary: "shadow comparison columns instead of Strata's collations, dotted join-table and index names", apply: upgrade1To2),
    ]

    /// Upgrades the store `database` holds to ``currentVersion``, if it is older.
    /// - Throws: `corruptStore` for a missing or unreadable `layoutVersion`, `storeIO` for a
    ///   store written by a newer Strata, or the failing step's error (the file is unchanged).
    static func run(on database: Database, layout: StoreLayout) throws(StrataError) {
        guard try version(database) < currentVersion else { return }
        try upgradeHoldingTheWriteLock(database, layout: layout)
    }

    /// The upgrade proper: under the write lock, from whatever version the file has then.
    static func upgradeHoldingTheWriteLock(_ database: Database, layout: StoreLayout) throws(StrataError) {
        try FileChange.run(on: database) { (database) throws(StrataError) -> FileChange? in
            let change = try plan(database, layout: layout)
            return change.steps.isEmpty ? nil : change
        }
    }

    /// The steps that bring the file, whose version is read now, to ``currentVersion``, and
    /// the metadata row that records it; no steps when it is current. Read under the write lock
    /// (``FileChange/run(on:planning:)``): a migration of a layout-1 store runs these steps
    /// first, in its own transaction.
    /// - Parameter layout: the layout of the model the file was written with.
    static func plan(_ database: Database, layout: StoreLayout) throws(StrataError) -> FileChange {
        var current = try version(database)
        guard current < currentVersion else { return FileChange() }
        let whole = StoreLayout(schema: layout.schema, configurationName: nil)
        var change = FileChange(metadata: [(StoreMetadata.Key.layoutVersion, String(currentVersion))])
        while current < currentVersion {
            guard let step = steps.first(where: { $0.from == current }) else {
                throw StrataError(.corruptStore, "the store has layout version \(current), which this version of Strata cannot upgrade", file: database.path)
            }
            change.steps.append(FileChange.Step(
                failure: "cannot upgrade the store's file layout from version \(current) to \(current + 1) (\(step.summary)); the file is unchanged",
                apply: { (database) throws(StrataError) in try step.apply(database, whole) }))
            current += 1
        }
        return change
    }

    /// The file's layout version, from `strata_metadata`.
    static func version(_ database: Database) throws(StrataError) -> Int {
        let value = try database.scalar("SELECT \"value\" FROM \"strata_metadata\" WHERE \"key\" = ?1", [.text(StoreMetadata.Key.layoutVersion)])
        guard case .text(let text)? = value else {
            throw StrataError(.corruptStore, "the Strata metadata has no '\(StoreMetadata.Key.layoutVersion)'; the store is damaged", file: database.path)
        }
        // The same rule, and the same messages, as reading the metadata.
        try StoreFile.checkLayoutVersion(text, file: database.path)
        guard let version = Int(text) else {
            preconditionFailure("a readable layout version is a number: \(StoreFile.readableLayoutVersions)")
        }
        return version
    }

    // MARK: - 1 → 2

    /// Layout 1 indexed strings, URIs and decimals with `COLLATE strata`/`strata_decimal`, which
    /// the `sqlite3` shell does not have, and named join tables `<Entity>_<relationship>`, which
    /// could be one table for two relationships. This step drops every index, renames the join
    /// tables (a table two relationships shared is copied into both: its rows cannot be told
    /// apart), adds and fills the shadow columns, and creates the indexes of layout 2.
    private static func upgrade1To2(_ database: Database, _ layout: StoreLayout) throws(StrataError) {
        var existing = try database.tableNames()
        let indexes = try database.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name", []) { $0.text(0) }
        for index in indexes { try database.execute("DROP INDEX \(quoted(index))") }

        var claims: [String: [JoinTableLayout]] = [:]
        for join in layout.joinTables where !existing.contains(join.name) {
            claims[join.name.replacingOccurrences(of: ".", with: "_"), default: []].append(join)
        }
        let creation = Dictionary(layout.namedCreationStatements.map { ($0.name, $0.sql) }, uniquingKeysWith: { first, _ in first })
        for old in claims.keys.sorted() where existing.contains(old) {
            let joins = claims[old]!
            if joins.count == 1 {
                try database.execute("ALTER TABLE \(quoted(old)) RENAME TO \(quoted(joins[0].name))")
            } else {
                let oldColumns = Set(try database.columnNames(of: old))
                for join in joins {
                    try database.execute(creation[join.name]!)
                    let columns = try database.columnNames(of: join.name).filter(oldColumns.contains).map(quoted).joined(separator: ", ")
                    try database.execute("INSERT INTO \(quoted(join.name)) (\(columns)) SELECT \(columns) FROM \(quoted(old))")
                }
                try database.execute("DROP TABLE \(quoted(old))")
            }
        }
        existing = try database.tableNames()

        for root in layout.tables.keys.sorted() where existing.contains(root) {
            let table = layout.tables[root]!
            let columns = Set(try database.columnNames(of: root))
            for column in table.columns where !columns.contains(column.name) {
                let type: AttributeType
                let attribute: String
                switch column.role {
                case .stringKey(let name):
                    guard case .attribute(let attributeType)? = table.column(name)?.role else { continue }
                    (type, attribute) = (attributeType, name)
                case .decimalKey(let name):
                    (type, attribute) = (.decimal, name)
                default:
                    continue
                }
                try database.execute("ALTER TABLE \(quoted(root)) ADD COLUMN \(quoted(column.name)) \(column.declaredType)")
                try fillShadowColumn(column.name, of: attribute, type, in: root, database)
            }
        }

        for index in layout.indexDefinitions where existing.contains(index.table) {
            try database.execute(index.sql)
        }
    }

    /// Writes a shadow column for every row, as a save would.
    private static func fillShadowColumn(_ shadow: String, of attribute: String, _ type: AttributeType, in table: String, _ database: Database) throws(StrataError) {
        var updates: [(key: Int64, value: String)] = []
        try database.each("SELECT \"_pk\", \(quoted(attribute)) FROM \(quoted(table)) WHERE typeof(\(quoted(attribute))) = 'text'", []) { row in
            let text = row.text(1)
            let value = type == .decimal ? ComparisonKey.decimal(text: text) : ComparisonKey.string(text)
            if let value { updates.append((row.int64(0), value)) }
        }
        let sql = "UPDATE \(quoted(table)) SET \(quoted(shadow)) = ?1 WHERE \"_pk\" = ?2"
        for update in updates { try database.run(sql, [.text(update.value), .integer(update.key)]) }
    }
}
