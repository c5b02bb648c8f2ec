import Foundation
import Strata
import Testing
@testable import StrataSQLite

@Suite struct RawQueryTests {
    let store: SQLiteStore

    init() throws {
        let store = try SQLiteStore(url: nil, schema: try Fixtures.schema("TodoList"))
        self.store = store
        let identifier = store.metadata.storeIdentifier
        let id = { (key: Int64) in ObjectID(entityName: "Todo", storeIdentifier: identifier, primaryKey: key) }
        _ = try store.save(StoreChangeset(inserted: (Int64(1)...3).map { key in
            var attributes: [String: AttributeValue] = [
                "title": .string("todo \(key)"), "priority": .integer(key), "createdAt": .date(Date(timeIntervalSinceReferenceDate: 0)), "done": .bool(key == 2),
            ]
            if key == 3 { attributes["notes"] = .string("x") }
            return StoreRecord(objectID: id(key), attributes: AttributeValues(attributes))
        }))
    }

    @Test func selectsRowsAsDictionariesWithBoundArguments() throws {
        let rows = try store.rawQuery("SELECT title, priority, notes FROM Todo WHERE priority >= ? ORDER BY priority", [.integer(2)])
        #expect(rows == [
            ["title": .string("todo 2"), "priority": .integer(2), "notes": nil],
            ["title": .string("todo 3"), "priority": .integer(3), "notes": .string("x")],
        ])
        #expect(try store.rawQuery("WITH t AS (SELECT count(*) AS n FROM Todo) SELECT n FROM t", []) == [["n": .integer(3)]])
        #expect(try store.rawQuery("SELECT ? AS a, ? AS b, ? AS c", [.string("it's"), .double(1.5), .binary(Data([1]))]) == [["a": .string("it's"), "b": .double(1.5), "c": .binary(Data([1]))]])
    }

    @Test(arguments: [
        "DELETE FROM Todo", "UPDATE Todo SET title = 'x'", "INSERT INTO Tag (_pk, _version, name) VALUES (9, 1, 'x')",
        "CREATE TABLE x (a)", "DROP TABLE Todo", "PRAGMA journal_mode = DELETE",
    ])
    func refusesAnythingThatWrites(sql: String) throws {
        let error = #expect(throws: StrataError.self) { try store.rawQuery(sql, []) }
        #expect(error?.code == .invalidPredicate)
        #expect(error?.message.hasPrefix("rawQuery runs read-only statements only") == true)
        #expect(try store.rawQuery("SELECT count(*) AS n FROM Todo", []) == [["n": .integer(3)]])
    }

    @Test func refusesSeveralStatementsAndBadSQL() throws {
        #expect(throws: StrataError.self) { try store.rawQuery("SELECT 1; DELETE FROM Todo", []) }
        let arguments = #expect(throws: StrataError.self) { try store.rawQuery("SELECT ? AS a", [.integer(1), .integer(2)]) }
        #expect(arguments?.message == "the raw query has 1 parameter(s) but 2 argument(s) were given: SELECT ? AS a")
        let error = #expect(throws: StrataError.self) { try store.rawQuery("SELEKT 1", []) }
        #expect(error?.message.contains("syntax error") == true)
        #expect(try store.rawQuery("SELECT count(*) AS n FROM Todo", []) == [["n": .integer(3)]])
    }
}
