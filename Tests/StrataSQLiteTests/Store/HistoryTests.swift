import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// `strata_history`, the SQLite store's record of changes.
@Suite struct HistoryTests {
    static let model = """
    { "name": "Notes", "version": "1", "entities": [
      { "name": "Note", "attributes": [ { "name": "text", "type": "string" } ] } ] }
    """

    private static func rows(_ url: URL) throws -> [String] {
        let database = try Database(path: url.path, mode: .init(readOnly: true, create: false))
        return try database.rows("SELECT \"inserted\", \"updated\", \"deleted\" FROM \"strata_history\" ORDER BY \"id\"") { row in
            "+[\(row.text(0))] ~[\(row.text(1))] -[\(row.text(2))]"
        }
    }

    private static func tables(_ url: URL) throws -> Set<String> {
        try Database(path: url.path, mode: .init(readOnly: true, create: false)).tableNames()
    }

    @Test func eachWriteRecordsItsObjectsInItsTransaction() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        let schema = try Fixtures.schema(json: Self.model)
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        // A new file has no record until its first write.
        #expect(try !Self.tables(url).contains("strata_history"))
        let context = ManagedObjectContext(coordinator: coordinator)
        for text in ["a", "b", "c"] { try context.insertObject(entityName: "Note")["text"] = text }
        try context.save()
        let notes = try context.fetch(FetchRequest(entityName: "Note", sortDescriptors: [FetchSortDescriptor("text")]))
        notes[0]["text"] = "z"
        context.delete(notes[1])
        try context.save()
        // A batch update that does not list its rows (nothing observes): the entity.
        _ = try coordinator.execute(BatchUpdateRequest(entityName: "Note", predicate: nil, propertiesToUpdate: ["text": "y"]))
        _ = try coordinator.execute(BatchDeleteRequest(entityName: "Note", predicate: .key("text") == "y"))
        #expect(try Self.rows(url) == [
            "+[Note/1 Note/2 Note/3] ~[] -[]",
            "+[] ~[Note/1] -[Note/2]",
            "+[] ~[Note/*] -[]",
            "+[] ~[Note/*] -[]",
        ])
    }

    @Test func aFailedSaveRecordsNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        let schema = try Fixtures.schema(json: Self.model)
        let store = try SQLiteStore(url: url, schema: schema)
        let id = ObjectID(entityName: "Note", storeIdentifier: store.storeIdentifier, primaryKey: 1)
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["text": .string("a")])]))
        var stale = StoreChangeset()
        stale.updated = [StoreRecord(objectID: id, attributes: ["text": .string("b")], version: 7)]
        stale.changedKeys = [["text"]]
        #expect(throws: StrataError.self) { try store.save(stale) }
        #expect(try Self.rows(url) == ["+[Note/1] ~[] -[]"])
    }

    @Test func keepsTheLastRowsOnly() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        let store = try SQLiteStore(url: url, schema: try Fixtures.schema(json: Self.model))
        let first = ObjectID(entityName: "Note", storeIdentifier: store.storeIdentifier, primaryKey: 1)
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: first, attributes: ["text": .string("a")])]))
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: false))
        // As if many saves had been recorded already.
        try database.run("UPDATE \"strata_history\" SET \"id\" = ?1", [.integer(SQLiteStore.historyLimit * 3)])
        try database.run("INSERT INTO \"strata_history\" (\"id\", \"origin\", \"committed\", \"inserted\", \"updated\", \"deleted\") VALUES (?1, 'x', 'now', '', '', '')", [.integer(SQLiteStore.historyLimit * 3 + 1)])
        let second = ObjectID(entityName: "Note", storeIdentifier: store.storeIdentifier, primaryKey: 2)
        _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: second, attributes: ["text": .string("b")])]))
        // The new row is id 3002; rows up to 2002 go, 3000 and 3001 stay.
        let ids = try database.rows("SELECT \"id\" FROM \"strata_history\" ORDER BY \"id\"") { $0.int64(0) }
        #expect(ids == [3000, 3001, 3002])
        _ = try database.run("DELETE FROM \"strata_history\" WHERE \"id\" < 3002")
        try database.run("INSERT INTO \"strata_history\" (\"id\", \"origin\", \"committed\", \"inserted\", \"updated\", \"deleted\") VALUES (?1, 'x', 'now', '', '', '')", [.integer(3002 + SQLiteStore.historyLimit + 5)])
        _ = try store.save(StoreChangeset(deleted: [(second, 1)]))
        #expect(try database.rows("SELECT \"id\" FROM \"strata_history\" ORDER BY \"id\"") { $0.int64(0) } == [3002 + SQLiteStore.historyLimit + 5, 3002 + SQLiteStore.historyLimit + 6])
    }

    @Test(.timeLimit(.minutes(1)))
    func anObserverThatFellBehindIsToldEverythingChanged() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        let schema = try Fixtures.schema(json: Self.model)
        let watcher = try SQLiteStore(url: url, schema: schema)
        let writer = try SQLiteStore(url: url, schema: schema)
        let id = ObjectID(entityName: "Note", storeIdentifier: writer.storeIdentifier, primaryKey: 1)
        let received = AsyncStream.makeStream(of: StoreRemoteChanges.self)
        let observer = try #require(try watcher.observeChanges(ofOtherProcesses: { received.continuation.yield($0) }))
        defer { observer.stop() }
        var changes = received.stream.makeAsyncIterator()
        _ = try writer.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["text": .string("a")])]))
        #expect(await changes.next() == StoreRemoteChanges(inserted: [id]))
        // Rows the observer has not read are pruned (as by many saves while it was away).
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: false))
        try database.execute("BEGIN IMMEDIATE")
        try database.run("INSERT INTO \"strata_history\" (\"id\", \"origin\", \"committed\", \"inserted\", \"updated\", \"deleted\") VALUES (5000, 'x', 'now', '', 'Note/1', '')")
        try database.run("DELETE FROM \"strata_history\" WHERE \"id\" < 5000")
        try database.execute("COMMIT")
        #expect(await changes.next() == StoreRemoteChanges(unlistedEntities: ["Note"]))
        #expect(await changes.next() == StoreRemoteChanges(updated: [id]))
    }

    @Test func aFileWithoutTheTableIsReadAndWrittenAsBefore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("notes.sqlite")
        let schema = try Fixtures.schema(json: Self.model)
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            let id = ObjectID(entityName: "Note", storeIdentifier: store.storeIdentifier, primaryKey: 1)
            _ = try store.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["text": .string("a")])]))
        }
        // As a file from before the record existed.
        try Database(path: url.path, mode: .init(readOnly: false, create: false)).execute("DROP TABLE \"strata_history\"")
        let reader = try SQLiteStore(url: url, schema: schema, options: [SQLiteStore.readOnlyOption: "true"])
        let observer = try reader.observeChanges(ofOtherProcesses: { _ in })
        #expect(observer != nil)
        observer?.stop()
        #expect(try reader.count(StoreFetchRequest(entityNames: ["Note"])) == 1)
        #expect(try !Self.tables(url).contains("strata_history"))
        let writer = try SQLiteStore(url: url, schema: schema)
        let id = ObjectID(entityName: "Note", storeIdentifier: writer.storeIdentifier, primaryKey: 2)
        _ = try writer.save(StoreChangeset(inserted: [StoreRecord(objectID: id, attributes: ["text": .string("b")])]))
        #expect(try Self.rows(url) == ["+[Note/2] ~[] -[]"])
        #expect(try StoreChecker.check(storeAt: url, storeTypes: .withSQLite).problems.isEmpty)
    }
}
