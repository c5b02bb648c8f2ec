import Foundation
import Strata
import Testing

/// A store of one kind written with an old model, closed, then migrated and opened again.
///
/// A file kind's store is written through a context, its coordinator released (so nothing
/// holds the file), migrated with ``StoreMigrator`` and reopened in a new coordinator. The
/// in-memory kind has no file: its contents are taken when the old coordinator lets go,
/// migrated with ``AtomicStoreMigration``, and opened as an in-memory ``AtomicStore`` on them.
final class MigrationFixture {
    let kind: StoreKind
    /// The store file; nil for the in-memory kind.
    let url: URL?
    /// The in-memory kind's contents, replaced by each successful migration.
    private(set) var contents: AtomicStoreContents?
    let storeIdentifier: String
    /// The custom metadata every migration must keep.
    static let custom = ["app.launches": "7"]

    /// A store of `schema` holding what `fill` inserted (saved once), with ``custom`` metadata.
    init(_ kind: StoreKind, _ schema: Schema, fill: (ManagedObjectContext) throws -> Void) throws {
        self.kind = kind
        let description = try kind.makeDescription()
        url = description.url
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: kind.storeTypes)
        let store = try coordinator.addStore(description)
        let context = ManagedObjectContext(coordinator: coordinator)
        try fill(context)
        try context.save()
        for (key, value) in Self.custom { try coordinator.setMetadata(value, forKey: key, in: store) }
        storeIdentifier = store.storeIdentifier
        if url == nil {
            contents = try #require(store as? AtomicStore).snapshot
        }
        coordinator.removeStore(store)
    }

    deinit {
        StoreKind.removeStoreDirectory(of: url)
    }

    /// Migrates the store to the last of `versions`.
    @discardableResult
    func migrate(_ versions: [Schema], stages: [MigrationStage] = []) throws -> MigrationReport {
        let versions = try SchemaVersions(versions)
        guard let url else {
            let current = try #require(contents)
            let plan = try MigrationPlan(storeSchema: try current.metadata.schema(), versions: versions, stages: stages)
            contents = try AtomicStoreMigration.migrate(current, plan: plan, type: .inMemory)
            return plan.isEmpty ? MigrationReport(wasAlreadyCurrent: true) : MigrationReport(plan: plan)
        }
        return try StoreMigrator(storeTypes: kind.storeTypes).migrateStore(at: url, versions: versions, stages: stages)
    }

    /// Expects the migration to `versions` to fail with `code` and to leave the store exactly as
    /// it was (the file's bytes; the in-memory contents); returns the error's message.
    func expectRefusal(
        _ versions: [Schema], stages: [MigrationStage] = [], code: StrataError.Code = .migrationRefused,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> String {
        let before = try state()
        var message = ""
        do {
            try migrate(versions, stages: stages)
            Issue.record("expected the migration to fail with \(code)", sourceLocation: sourceLocation)
        } catch let error as StrataError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            message = error.message
        }
        #expect(try state() == before, "the store changed although the migration failed", sourceLocation: sourceLocation)
        return message
    }

    /// What the store holds, exactly: the file's bytes, or the in-memory records and metadata.
    func state() throws -> Data {
        guard let url else {
            let current = try #require(contents)
            return Data("\(current.metadata)\n\(current.orderedRecords)\n\(current.keySequences.sorted { $0.key < $1.key })".utf8)
        }
        return try Data(contentsOf: url)
    }

    /// A coordinator on the migrated store, opened with `schema`, after checking that the
    /// store's metadata is `schema`'s with the store's identity and custom metadata kept.
    func open(_ schema: Schema, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: kind.storeTypes)
        if let url {
            try coordinator.addStore(StoreDescription(type: kind.type, url: url))
        } else {
            let current = try #require(contents)
            coordinator.attachOpenedStore(AtomicStore(inMemory: current, type: .inMemory, schema: schema))
        }
        let metadata = coordinator.stores[0].metadata
        #expect(metadata.storeIdentifier == storeIdentifier, sourceLocation: sourceLocation)
        #expect(metadata.custom == Self.custom, sourceLocation: sourceLocation)
        #expect(metadata.modelName == schema.name, sourceLocation: sourceLocation)
        #expect(metadata.modelVersionHash == schema.versionHash, sourceLocation: sourceLocation)
        #expect(metadata.entityVersionHashes == schema.entityVersionHashes, sourceLocation: sourceLocation)
        #expect(try metadata.schema().versionHash == schema.versionHash, sourceLocation: sourceLocation)
        return coordinator
    }

    /// Every object of the store opened with `schema`, one line each (see ``Dump``).
    func dump(_ schema: Schema, by naming: Dump.Naming = .key, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [String] {
        try Dump.lines(open(schema, sourceLocation: sourceLocation), naming: naming)
    }
}

/// A store's objects as text, one line per object, in ID order: `Mood2 level=3 name="calm"
/// owner->Person3 tags->[Tag1,Tag6]` — attributes with a value, by name; then to-one and
/// to-many relationships that have members (to-many members in stored order when ordered,
/// otherwise sorted).
enum Dump {
    enum Naming {
        /// `Mood2`: entity and primary key.
        case key
        /// `Mood:calm`: entity and the object's `name` attribute, for objects whose keys a
        /// migration may change.
        case name
    }

    static func lines(_ coordinator: PersistentStoreCoordinator, naming: Naming) throws -> [String] {
        let snapshot = try StoreSnapshot(coordinator)
        func label(_ id: ObjectID) -> String {
            switch naming {
            case .key: "\(id.entityName)\(id.primaryKey.map(String.init) ?? "?")"
            case .name:
                if case .string(let name)? = snapshot.objects[id]?.attributes["name"] { "\(id.entityName):\(name)" } else { "\(id)" }
            }
        }
        var lines: [String] = []
        for id in snapshot.objects.keys.sorted() {
            let entry = snapshot.objects[id]!
            var parts = [label(id)]
            parts += entry.attributes.keys.sorted().map { "\($0)=\(entry.attributes[$0]!)" }
            parts += entry.toOne.keys.sorted().map { "\($0)->\(label(entry.toOne[$0]!))" }
            for key in entry.toMany.keys.sorted() {
                let ordered = coordinator.schema.entity(named: id.entityName)?.relationship(named: key)?.isOrdered == true
                let members = entry.toMany[key]!.map(label)
                parts.append("\(key)->[\((ordered ? members : members.sorted()).joined(separator: ","))]")
            }
            lines.append(parts.joined(separator: " "))
        }
        return naming == .key ? lines : lines.sorted()
    }
}
