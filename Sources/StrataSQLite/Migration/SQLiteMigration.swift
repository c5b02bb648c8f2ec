internal import Foundation
internal import Strata
internal import StrataSQL

/// Carries out one ``MigrationStep`` on a store's file with SQL, inside the migration's
/// transaction (``FileChange``): the way Core Data's SQLite lightweight migration works, never
/// through objects.
///
/// Each table of the destination layout is made from the source layout's tables (both of the
/// whole model: a file may hold one configuration, so only tables that exist are touched):
/// - **in place** (``TablePlan/alter(_:)``) when one source table holds exactly its rows and
///   the hierarchy keeps or lacks its `_entity` column: `ALTER TABLE … RENAME TO` for a renamed
///   root, `RENAME COLUMN` for renamed attributes and to-ones (and their `_x_nfc`, `_x_key`,
///   `_x_entity` columns), `ADD COLUMN … DEFAULT` for added ones (existing rows read the
///   default from the schema: no row is written), `DROP COLUMN` for removed ones. Widening
///   numbers keeps the column (its type is the same: ``ValueKind/columnType(_:)``).
/// - **rebuilt** (``TablePlan/rebuild(_:)``) otherwise — a hierarchy gains or loses a parent:
///   a new table, `INSERT … SELECT` from each source table, the old ones dropped, the new one
///   renamed (https://sqlite.org/lang_altertable.html#otheralter). Primary keys are kept;
///   when two hierarchies merge and keys collide, the moved rows get new keys first and every
///   reference follows (``renumberCollidingKeys()``).
///
/// Relationships whose storage changes (to-one ↔ to-many moving between a foreign key and a
/// join table, an inverse added or removed) have their (owner, member, position) pairs read
/// into temporary tables before the tables change and written into the new storage after.
/// Then `strata_keys` follows the roots, and the indexes become the destination's exactly.
/// Data the destination model refuses (nil in a required attribute, more than one member in
/// what became a to-one, duplicates of a new uniqueness constraint) is refused with
/// `migrationRefused` naming the objects, which rolls the whole migration back.
struct SQLiteMigration {
    let step: MigrationStep
    let source: StoreLayout
    let destination: StoreLayout
    let database: Database
    let progress: (String, Int?) -> Void
    /// Source entity name → the destination entity it became.
    private let destinationNames: [String: String]

    /// Tables in the file when the step starts.
    var existing: Set<String> = []
    /// What becomes of each destination table, by name.
    var plans: [String: TablePlan] = [:]
    /// Join tables of the destination carried over from a source join table (by name).
    var carriedJoins: [String: JoinTableLayout] = [:]
    /// Pairs read before the tables change, by the destination storage they fill.
    var pairs: [PairUnit: String] = [:]
    /// The storages filled from ``pairs``, in order.
    var pendingFills: [PairFill] = []
    /// Unique indexes that could not be created because of duplicates, retried after the
    /// custom stage's didMigrate (which may remove them).
    var deferredUniqueIndexes: [(name: String, table: String, sql: String)] = []
    /// Attributes (destination entity, attribute) that may hold nil against the destination
    /// model when the SQL is done: checked after didMigrate.
    var requiredChecks: [(entity: String, attribute: String)] = []
    /// Roots whose rows were given new keys, for the report.
    var renumbered: [String] = []

    /// What becomes of a destination table.
    enum TablePlan {
        /// Changed in place from the source table of this name.
        case alter(String)
        /// Made anew from these source tables.
        case rebuild([String])
        /// Created empty: no source table holds rows of it.
        case create
    }

    /// A destination storage filled from pairs: the foreign-key column of a to-one
    /// relationship (`table`, `column`), or a join table (`table`, column nil).
    struct PairUnit: Hashable {
        var table: String
        var column: String?
    }

    init(step: MigrationStep, database: Database, progress: @escaping (String, Int?) -> Void) {
        self.step = step
        source = StoreLayout(schema: step.source, configurationName: nil)
        destination = StoreLayout(schema: step.destination, configurationName: nil)
        self.database = database
        self.progress = progress
        destinationNames = Dictionary(step.diff.entityMatches.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    var diff: SchemaDiff { step.diff }
    var file: String { database.path }

    /// The source entity of a destination entity.
    func sourceEntity(_ destinationEntity: String) -> String? {
        diff.entityMatches[destinationEntity]
    }

    /// The destination entity of a source entity; nil when it was removed.
    func destinationEntity(_ sourceEntity: String) -> String? {
        destinationNames[sourceEntity]
    }


    /// The source property a destination property was matched with, when the source entity
    /// has it.
    func sourceProperty(_ property: String, of destinationEntity: String) -> PropertyDescription? {
        diff.sourceProperty(of: property, in: destinationEntity)
    }

    // MARK: - The step

    /// The step's SQL: everything between willMigrate and didMigrate.
    mutating func migrate() throws(StrataError) {
        existing = try database.tableNames()
        planTables()
        try renumberCollidingKeys()
        try readPairs()
        try changeTables()
        try resetGainedAttributes()
        try checkAbstractEntities()
        try writePairs()
        try checkNarrowedDestinations()
        try clearReferencesToRemovedObjects()
        try fillDefaults()
        try updateKeyCounters()
        for table in pairs.values { try database.execute("DROP TABLE temp.\(quoted(table))") }
        pairs = [:]
        try reconcileIndexes(deferringDuplicates: step.didMigrate != nil)
    }

    /// What the destination model requires that a custom stage could still have provided:
    /// run after didMigrate (or right after ``migrate()`` in an inferred step).
    mutating func check() throws(StrataError) {
        try checkRequiredValues()
        let deferred = deferredUniqueIndexes
        deferredUniqueIndexes = []
        for index in deferred { try createUniqueIndex(index, deferring: false) }
    }

    // MARK: - Plans

    /// Decides, for every destination table, whether it is altered in place, rebuilt or
    /// created.
    mutating func planTables() {
        for name in destination.tables.keys.sorted() {
            let table = destination.tables[name]!
            var feeding: Set<String> = []
            for entity in table.entityNames {
                guard let from = sourceEntity(entity), let layout = source.entities[from], existing.contains(layout.rootName) else { continue }
                feeding.insert(layout.rootName)
            }
            guard !feeding.isEmpty else {
                // A new hierarchy: created when the file holds the whole source model. A file
                // of one configuration gets its new tables when a store of that configuration
                // opens it (only what exists is touched here).
                let wholeModel = source.tables.keys.allSatisfy(existing.contains)
                plans[name] = wholeModel && (!existing.contains(name) || source.tables[name] != nil) ? .create : nil
                continue
            }
            if feeding.count == 1, let only = feeding.first, let from = source.tables[only], from.hasEntityColumn == table.hasEntityColumn,
               from.entityNames.allSatisfy({ entity in destinationEntity(entity).map(table.entityNames.contains) ?? true }) {
                plans[name] = .alter(only)
            } else {
                plans[name] = .rebuild(feeding.sorted())
            }
        }
    }

    /// The source tables a destination table is made from.
    func froms(of plan: TablePlan) -> [String] {
        switch plan {
        case .alter(let from): [from]
        case .rebuild(let tables): tables
        case .create: []
        }
    }

    /// Whether a destination column keeps the values of a source column for the rows of
    /// every source table its table is made from (nothing to fill or compute).
    func isCarried(_ column: ColumnLayout, of table: TableLayout, plan: TablePlan) -> Bool {
        froms(of: plan).allSatisfy { from in
            if case .column = columnSource(column, of: table, from: source.tables[from]!) { return true }
            return false
        }
    }

    /// The source tables no destination table is made from in place: dropped at the end.
    var replacedTables: [String] {
        let altered = Set(plans.values.compactMap { plan -> String? in if case .alter(let table) = plan { table } else { nil } })
        let joins = Set(carriedJoins.values.map(\.name))
        return (source.tables.keys.filter { !altered.contains($0) } + source.joinTables.map(\.name).filter { !joins.contains($0) })
            .filter(existing.contains).sorted()
    }

    /// The temporary name a table is built or renamed under; a space occurs in no model name.
    static func temporaryName(_ table: String) -> String { "strata migrating \(table)" }

    // MARK: - Errors

    /// `Mood 3, Mood 7, …` — at most 20, then how many more.
    static func objectList(_ objects: [(entity: String, key: Int64)], total: Int) -> String {
        MigrationStep.objectList(objects.map { "\($0.entity) \($0.key)" }, total: total)
    }

    func refused(_ message: String) -> StrataError {
        StrataError(.migrationRefused, "the step \(step.summary) is refused, and the store is unchanged: \(message)", file: file)
    }
}
