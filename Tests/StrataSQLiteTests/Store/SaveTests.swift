import Foundation
@testable import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Saves: versions, conflicts, uniqueness, rollback, key sequences, relationships.
@Suite struct SaveTests {
    let schema: Schema
    let store: SQLiteStore

    init() throws {
        schema = try Fixtures.schema("TodoList")
        store = try SQLiteStore(url: nil, schema: schema)
    }

    func id(_ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: store.metadata.storeIdentifier, primaryKey: key)
    }

    func todo(_ key: Int64, _ title: String, version: Int64 = 0) -> StoreRecord {
        StoreRecord(
            objectID: id("Todo", key),
            attributes: ["title": .string(title), "createdAt": .date(Date(timeIntervalSinceReferenceDate: 0)), "priority": .integer(0), "done": .bool(false)],
            version: version)
    }

    func titles() throws -> [String] {
        try store.fetch(StoreFetchRequest(entityNames: ["Todo"])).map { record in
            if case .string(let title)? = record.attributes["title"] { return title }
            return "?"
        }
    }

    @Test func versionsStartAtOneAndGrowWithEachSave() throws {
        #expect(try store.save(StoreChangeset(inserted: [todo(1, "a")])) == [id("Todo", 1): 1])
        #expect(try store.save(StoreChangeset(updated: [todo(1, "b", version: 1)])) == [id("Todo", 1): 2])
        #expect(try store.save(StoreChangeset(updated: [todo(1, "c", version: 2)])) == [id("Todo", 1): 3])
        #expect(try store.records(for: [id("Todo", 1)])[id("Todo", 1)]?.version == 3)
        #expect(try titles() == ["c"])
    }

    @Test func aStaleVersionIsAMergeConflictNamingTheObjects() throws {
        _ = try store.save(StoreChangeset(inserted: [todo(1, "a"), todo(2, "b"), todo(3, "c")]))
        _ = try store.save(StoreChangeset(updated: [todo(1, "a2", version: 1), todo(2, "b2", version: 1)]))
        let error = #expect(throws: StrataError.self) {
            try store.save(StoreChangeset(updated: [todo(1, "a3", version: 1), todo(3, "c3", version: 1)], deleted: [(id("Todo", 2), 1)]))
        }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.objectID) == [id("Todo", 2), id("Todo", 1)])
        #expect(error?.failures.allSatisfy { $0.code == .conflict } == true)
        #expect(error?.failures.first?.message == "changed by another save since it was read (version 1 read, 2 stored)")
        // Nothing of that save was written, not even the object without a conflict.
        #expect(try titles() == ["a2", "b2", "c"])
        // Object-trump: the same save overwrites.
        let versions = try store.save(StoreChangeset(updated: [todo(1, "a3", version: 1), todo(3, "c3", version: 1)], deleted: [(id("Todo", 2), 1)], overwritesConflicts: true))
        #expect(versions == [id("Todo", 1): 3, id("Todo", 3): 2])
        #expect(try titles() == ["a3", "c3"])
    }

    @Test func updatingADeletedObjectIsAConflict() throws {
        _ = try store.save(StoreChangeset(inserted: [todo(1, "a")]))
        _ = try store.save(StoreChangeset(deleted: [(id("Todo", 1), 1)]))
        let error = #expect(throws: StrataError.self) { try store.save(StoreChangeset(updated: [todo(1, "b", version: 1)], overwritesConflicts: true)) }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.first?.message == "the object was deleted from the store since it was read")
        // Deleting an object that is gone already is fine.
        #expect(try store.save(StoreChangeset(deleted: [(id("Todo", 1), 1)])) == [:])
    }

    @Test func uniqueIndexesRefuseDuplicatesAndTheSaveRollsBack() throws {
        _ = try store.save(StoreChangeset(inserted: [todo(1, "Buy milk")]))
        let error = #expect(throws: StrataError.self) {
            try store.save(StoreChangeset(inserted: [todo(2, "Walk"), todo(3, "Buy milk"), todo(4, "Walk")]))
        }
        #expect(error?.code == .validationFailed)
        #expect(error?.failures == [
            ValidationFailure(code: .notUnique, objectID: id("Todo", 3), key: "title", message: "'title' must be unique, and Todo/p1 has the same value", relatedObjectID: id("Todo", 1)),
            ValidationFailure(code: .notUnique, objectID: id("Todo", 4), key: "title", message: "'title' must be unique, and Todo/p2 has the same value", relatedObjectID: id("Todo", 2)),
        ])
        #expect(try titles() == ["Buy milk"])
        // Canonically equivalent strings are the same value.
        let equivalent = #expect(throws: StrataError.self) { try store.save(StoreChangeset(inserted: [todo(5, "Buy milk"), todo(6, "Caf\u{E9}"), todo(7, "Cafe\u{301}")])) }
        #expect(equivalent?.failures.map(\.objectID) == [id("Todo", 5), id("Todo", 7)])
    }

    @Test func theDryRunReportsWhatTheAtomicStoreReports() throws {
        let memory = try AtomicStore(format: nil, type: .inMemory, url: nil, schema: schema, configurationName: nil)
        let stored = [todo(1, "a"), todo(2, "b"), todo(3, "c")]
        _ = try store.save(StoreChangeset(inserted: stored))
        _ = try memory.save(StoreChangeset(inserted: stored))
        let temporary = ManagedObjectContextFreeIDs.temporary("Todo")
        let changes = StoreChangeset(
            inserted: [todo(4, "a"), todo(5, "x"), todo(6, "x"), StoreRecord(objectID: temporary, attributes: ["title": .string("c")])],
            updated: [todo(2, "c", version: 1), todo(3, "b", version: 1)],
            deleted: [(id("Todo", 1), 1)])
        let expected = memory.uniquenessViolations(changes)
        #expect(expected.count == 2)
        #expect(store.uniquenessViolations(changes) == expected)
        // A swap of unique values between two objects is no violation, and saves.
        let swap = StoreChangeset(updated: [todo(2, "c", version: 1), todo(3, "b", version: 1)])
        #expect(store.uniquenessViolations(swap) == [])
        #expect(try store.save(swap) == [id("Todo", 2): 2, id("Todo", 3): 2])
        #expect(try titles() == ["a", "c", "b"])
    }

    /// Inserts and updates keep the `"_title_nfc"` shadow column in step with the title, and
    /// a swap of canonically equivalent spellings goes through the clear-then-write retry.
    @Test func savesWriteTheShadowColumns() throws {
        func shadows() throws -> [String] {
            try store.rawQuery("SELECT coalesce(_title_nfc, 'NULL') AS s FROM Todo ORDER BY _pk", []).map { row in
                if case .string(let text)?? = row["s"] { return text }
                return "?"
            }
        }
        _ = try store.save(StoreChangeset(inserted: [todo(1, "Cafe\u{301}"), todo(2, "Tea")]))
        #expect(try shadows() == ["Caf\u{E9}", "NULL"])
        _ = try store.save(StoreChangeset(updated: [todo(1, "Tea2", version: 1), todo(2, "Zo\u{308}e", version: 1)]))
        #expect(try shadows() == ["NULL", "Z\u{F6}e"])
        // Swapping "Zöe" (decomposed, stored) and "Tea2" for the composed "Zöe" and "Tea2".
        _ = try store.save(StoreChangeset(updated: [todo(1, "Z\u{F6}e", version: 2), todo(2, "Tea2", version: 2)]))
        #expect(try titles() == ["Z\u{F6}e", "Tea2"])
        #expect(try shadows() == ["NULL", "NULL"])
    }

    @Test func aFailingStatementRollsBackTheWholeSave() throws {
        _ = try store.save(StoreChangeset(inserted: [todo(1, "a")]))
        // An I/O-like failure in the middle of the save: a trigger that aborts one insert.
        try store.pool.write { (database) throws(StrataError) in
            try database.execute("CREATE TRIGGER fail BEFORE INSERT ON Todo WHEN NEW.title = 'boom' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        }
        let error = #expect(throws: StrataError.self) {
            try store.save(StoreChangeset(inserted: [todo(2, "b"), todo(3, "boom")], updated: [todo(1, "a2", version: 1)]))
        }
        #expect(error?.message.contains("disk on fire") == true)
        #expect(try titles() == ["a"])
        #expect(try store.records(for: [id("Todo", 1)])[id("Todo", 1)]?.version == 1)
        #expect(try store.save(StoreChangeset(inserted: [todo(2, "b")])) == [id("Todo", 2): 1])
    }

    @Test func explicitKeysAreKeptAndBumpTheSequence() throws {
        #expect(try store.allocatePrimaryKeys(rootEntity: "Todo", count: 2) == [1, 2])
        _ = try store.save(StoreChangeset(inserted: [todo(100, "explicit")]))
        #expect(try store.allocatePrimaryKeys(rootEntity: "Todo", count: 1) == [101])
        let duplicate = #expect(throws: StrataError.self) { try store.save(StoreChangeset(inserted: [todo(100, "again")])) }
        #expect(duplicate?.code == .validationFailed)
        #expect(duplicate?.message == "an object with primary key 100 already exists in the 'Todo' hierarchy")
    }

    @Test func theKeyCounterCoversEveryInsertedKeyInTheSavesTransaction() throws {
        // Without its counter row (a hand-edited file), the save makes one.
        try store.pool.write { (database) throws(StrataError) in try database.execute("DELETE FROM strata_keys WHERE entity = 'Todo'") }
        _ = try store.save(StoreChangeset(inserted: [todo(7, "seven")]))
        #expect(try store.allocatePrimaryKeys(rootEntity: "Todo", count: 1) == [8])
        // A save that fails raises nothing.
        try store.pool.write { (database) throws(StrataError) in
            try database.execute("CREATE TRIGGER fail BEFORE INSERT ON Todo WHEN NEW.title = 'boom' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        }
        #expect(throws: StrataError.self) { try store.save(StoreChangeset(inserted: [todo(500, "fine"), todo(501, "boom")])) }
        #expect(try store.allocatePrimaryKeys(rootEntity: "Todo", count: 1) == [9])
    }

    @Test func keySequencesSurviveReopening() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("todos.sqlite")
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            #expect(try store.allocatePrimaryKeys(rootEntity: "Todo", count: 5) == [1, 2, 3, 4, 5])
        }
        #expect(try SQLiteStore(url: url, schema: schema).allocatePrimaryKeys(rootEntity: "Todo", count: 1) == [6])
    }
}

/// Temporary IDs as a context makes them, for dry runs before IDs are permanent.
enum ManagedObjectContextFreeIDs {
    static func temporary(_ entity: String) -> ObjectID {
        ObjectID(temporaryFor: entity)
    }
}
