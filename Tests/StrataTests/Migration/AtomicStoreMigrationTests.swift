import Foundation
@testable import Strata
import Synchronization
import Testing

/// ``AtomicStoreMigration/migrate(_:plan:type:progress:)``: the order of a step's parts, the
/// model its contents must start from, and what it reports.
@Suite("AtomicStoreMigration")
struct AtomicStoreMigrationTests {
    typealias M = Migrating

    static let v1 = M.model("1", #"{ "name": "Mood", "attributes": [ { "name": "text", "type": "string" } ] }"#)
    static let v2 = M.model("2", #"{ "name": "Mood", "attributes": [ { "name": "words", "type": "int64" } ] }"#)
    static let store = M.contents(v1, [M.record("Mood", 1, ["text": .string("a b c")]), M.record("Mood", 2, ["text": .string("d")])], keySequences: ["Mood": 2])

    @Test func aCustomStepReadsTheOldModelTransformsThenWritesTheNewOne() throws {
        let seen = Mutex<[String]>([])
        let counts = Mutex<[Int64: Int64]>([:])
        let stage = MigrationStage.custom(
            from: Self.v1, to: Self.v2,
            willMigrate: { context in
                for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                    let words = (mood["text"] as? String ?? "").split(separator: " ").count
                    counts.withLock { $0[mood.objectID.primaryKey!] = Int64(words) }
                }
                seen.withLock { $0.append("will: \(context.coordinator.schema.version ?? "-")") }
            },
            didMigrate: { context in
                for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                    #expect(mood["words"] == nil)
                    mood["words"] = counts.withLock { $0[mood.objectID.primaryKey!] }
                }
                seen.withLock { $0.append("did: \(context.coordinator.schema.version ?? "-")") }
            })
        let plan = try MigrationPlan(storeSchema: Self.v1, versions: SchemaVersions([Self.v1, Self.v2]), stages: [stage])
        let events = Mutex<[String]>([])
        let migrated = try AtomicStoreMigration.migrate(Self.store, plan: plan, type: .xml) { event in
            events.withLock { $0.append("\(event.step)/\(event.stepCount) \(event.activity) of \(event.total ?? -1)") }
        }
        #expect(seen.withLock { $0 } == ["will: 1", "did: 2"])
        #expect(migrated.record(M.id("Mood", 1))?.attributes == ["words": .integer(3)])
        #expect(migrated.record(M.id("Mood", 2))?.attributes == ["words": .integer(1)])
        #expect(migrated.metadata.modelVersionHash == Self.v2.versionHash)
        #expect(migrated.metadata.storeIdentifier == M.storeIdentifier)
        #expect(events.withLock { $0 } == [
            "1/1 running the custom stage's willMigrate of 2",
            "1/1 transforming 2 records of 2",
            "1/1 running the custom stage's didMigrate of 2",
            "1/1 checking the migrated records of 2",
        ])
    }

    @Test func contentsOfAnotherModelAreRefused() throws {
        let plan = try MigrationPlan(storeSchema: Self.v2, versions: SchemaVersions([Self.v2, M.model("3", #"{ "name": "Mood", "attributes": [ { "name": "words", "type": "int64", "optional": true } ] }"#)]))
        #expect {
            _ = try AtomicStoreMigration.migrate(Self.store, plan: plan, type: .xml)
        } throws: { error in
            (error as? StrataError)?.code == .incompatibleModel
        }
    }

    @Test func anEmptyPlanReturnsTheContentsAsTheyAre() throws {
        let plan = try MigrationPlan(storeSchema: Self.v1, versions: SchemaVersions([Self.v1]))
        let migrated = try AtomicStoreMigration.migrate(Self.store, plan: plan, type: .xml)
        #expect(migrated.orderedRecords == Self.store.orderedRecords)
        #expect(migrated.metadata == Self.store.metadata)
    }

    @Test func aStageThatThrowsFailsTheMigration() throws {
        struct Broken: Error {}
        let stage = MigrationStage.custom(from: Self.v1, to: Self.v2, willMigrate: { _ in throw Broken() })
        let plan = try MigrationPlan(storeSchema: Self.v1, versions: SchemaVersions([Self.v1, Self.v2]), stages: [stage])
        #expect {
            _ = try AtomicStoreMigration.migrate(Self.store, plan: plan, type: .xml)
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .migrationFailed && error.message.contains("Broken")
        }
    }
}
