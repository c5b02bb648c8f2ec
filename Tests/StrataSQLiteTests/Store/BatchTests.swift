import Foundation
@testable import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Batch requests in SQL (`SQLiteStore+Batch.swift`): the columns an update writes, the
/// fallback for a predicate SQL cannot take, and a store opened for reading.
@Suite struct SQLiteBatchTests {
    let directory: TemporaryDirectory
    let coordinator: PersistentStoreCoordinator
    let store: SQLiteStore

    init() throws {
        directory = try TemporaryDirectory()
        coordinator = PersistentStoreCoordinator(schema: try Fixtures.schema("TodoList"), storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        store = try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.file("todos.sqlite"))) as! SQLiteStore
        let todos: [[String: Any]] = ["Buy milk", "Pay rent", "Call Élodie"].enumerated().map { ["title": $1, "priority": $0, "createdAt": Date(timeIntervalSince1970: 0)] }
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Todo", objects: todos))
    }

    /// `_pk|_version|title|_title_nfc|priority` of every Todo row.
    func rows() throws -> [String] {
        try store.rawQuery("SELECT _pk || '|' || _version || '|' || title || '|' || coalesce(_title_nfc, '-') || '|' || priority AS r FROM Todo ORDER BY _pk", []).map { row in
            if case .string(let text)?? = row["r"] { return text }
            return "?"
        }
    }

    @Test func anUpdateWritesTheValueItsComparisonKeyAndTheVersionInSQL() throws {
        // The shadow column is NULL (-) where the title is in NFC already. Compared scalar by
        // scalar: Swift's == would take "E\u{301}" and "É" as equal.
        func scalars(_ rows: [String]) -> [[Unicode.Scalar]] { rows.map { Array($0.unicodeScalars) } }
        #expect(scalars(try rows()) == scalars(["1|1|Buy milk|-|0", "2|1|Pay rent|-|1", "3|1|Call \u{C9}lodie|-|2"]))
        let before = store.inMemoryFallbacks.load(ordering: .relaxed)
        let result = try coordinator.execute(BatchUpdateRequest(
            entityName: "Todo", predicate: try FetchPredicate(format: "priority == 1"), propertiesToUpdate: ["title": "E\u{301}t\u{E9}", "priority": 5], resultType: .objectIDs))
        #expect(result.objectIDs.map(\.primaryKey) == [2])
        #expect(scalars(try rows()) == scalars(["1|1|Buy milk|-|0", "2|2|E\u{301}t\u{E9}|\u{C9}t\u{E9}|5", "3|1|Call \u{C9}lodie|-|2"]))
        // The shadow column holds the key a fetch compares with: a folded search finds it.
        let found = try store.fetchObjectIDs(StoreFetchRequest(entityNames: ["Todo"], predicate: try FetchPredicate(format: "title ==[cd] 'ete'")))
        #expect(found.map(\.primaryKey) == [2])
        #expect(store.inMemoryFallbacks.load(ordering: .relaxed) == before)
    }

    /// More values than SQLite binds in one statement: the IDs are fetched in memory and the
    /// update saved as a changeset, with the same result.
    @Test func aPredicateSQLCannotTakeFallsBackToFetchingTheMatches() throws {
        let titles = (0..<40_000).map { "title \($0)" } + ["Pay rent"]
        let predicate = FetchPredicate.comparison(Comparison(.key("title"), .in, .constant(.array(titles.map { .string($0) }))))
        let before = store.inMemoryFallbacks.load(ordering: .relaxed)
        let result = try coordinator.execute(BatchUpdateRequest(entityName: "Todo", predicate: predicate, propertiesToUpdate: ["done": true], resultType: .objectIDs))
        #expect(result.objectIDs.map(\.primaryKey) == [2])
        #expect(store.inMemoryFallbacks.load(ordering: .relaxed) > before)
        let records = try store.records(for: [try coordinator.objectID(entityName: "Todo", primaryKey: 2)])
        #expect(records.values.first?.attributes["done"] == .bool(true))
        #expect(records.values.first?.version == 2)
        let deleted = try coordinator.execute(BatchDeleteRequest(entityName: "Todo", predicate: predicate))
        #expect(deleted.count == 1)
        #expect(try rows().count == 2)
    }

    @Test func aStoreOpenedForReadingRefuses() throws {
        let reader = PersistentStoreCoordinator(schema: coordinator.schema, storeTypes: StoreTypeRegistry([SQLiteStoreFactory()]))
        try reader.addStore(StoreDescription(type: .sqlite, url: directory.file("todos.sqlite"), options: [SQLiteStore.readOnlyOption: "true"]))
        let before = try rows()
        #expect(throws: StrataError.self) { _ = try reader.execute(BatchUpdateRequest(entityName: "Todo", propertiesToUpdate: ["done": true])) }
        #expect(throws: StrataError.self) { _ = try reader.execute(BatchDeleteRequest(entityName: "Todo")) }
        #expect(try rows() == before)
    }
}
