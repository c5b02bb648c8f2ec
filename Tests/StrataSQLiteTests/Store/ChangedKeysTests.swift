import Foundation
@testable import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Saves that name each updated record's changed properties (`StoreChangeset.changedKeys`):
/// only those columns are written, and every guarantee of a whole-row update holds.
@Suite struct ChangedKeysTests {
    let schema: Schema
    let directory: TemporaryDirectory
    let url: URL
    let store: SQLiteStore

    init() throws {
        schema = try Fixtures.schema("TodoList")
        directory = try TemporaryDirectory()
        url = directory.file("todos.sqlite")
        store = try SQLiteStore(url: url, schema: schema)
    }

    func id(_ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: store.metadata.storeIdentifier, primaryKey: key)
    }

    func todo(_ key: Int64, _ title: String, priority: Int64 = 0, version: Int64 = 0) -> StoreRecord {
        StoreRecord(
            objectID: id("Todo", key),
            attributes: ["title": .string(title), "createdAt": .date(Date(timeIntervalSinceReferenceDate: 0)), "priority": .integer(priority), "done": .bool(false)],
            version: version)
    }

    func updating(_ records: [StoreRecord], changed: [Set<String>?], overwritesConflicts: Bool = false) -> StoreChangeset {
        var changes = StoreChangeset(updated: records, overwritesConflicts: overwritesConflicts)
        changes.changedKeys = changed
        return changes
    }

    /// Every stored column of every Todo row, shadow columns and versions included.
    func rows(_ store: SQLiteStore? = nil) throws -> [String] {
        try (store ?? self.store).rawQuery(
            "SELECT _pk || '|' || _version || '|' || title || '|' || coalesce(_title_nfc, '-') || '|' || priority || '|' || coalesce(location, '-') AS r FROM Todo ORDER BY _pk", []
        ).map { row in
            if case .string(let text)?? = row["r"] { return text }
            return "?"
        }
    }

    /// Changes a row behind the store's back, without a new version, as a hand edit would: a
    /// save that writes the column overwrites it, one that does not leaves it.
    func edit(_ sql: String) throws {
        try store.pool.write { (database) throws(StrataError) in try database.execute(sql) }
    }

    @Test func onlyTheChangedColumnsAreWritten() throws {
        defer { directory.cleanup() }
        _ = try store.save(StoreChangeset(inserted: [todo(1, "a"), todo(2, "b")]))
        try edit("UPDATE Todo SET priority = 4")
        let versions = try store.save(updating([todo(1, "a2", version: 1), todo(2, "b2", version: 1)], changed: [["title"], nil]))
        #expect(versions == [id("Todo", 1): 2, id("Todo", 2): 2])
        // Todo 1 wrote its title only; Todo 2, without changed keys, every column.
        #expect(try rows() == ["1|2|a2|-|4|-", "2|2|b2|-|0|-"])
        // An update that changes nothing stored (a to-many only) still checks and bumps the version.
        #expect(try store.save(updating([todo(1, "ignored", version: 2)], changed: [["tags"]])) == [id("Todo", 1): 3])
        #expect(try rows() == ["1|3|a2|-|4|-", "2|2|b2|-|0|-"])
    }

    @Test func aChangedStringWritesItsShadowColumnAndAChangedToOneItsKey() throws {
        defer { directory.cleanup() }
        let location = StoreRecord(objectID: id("Location", 7), attributes: ["name": .string("home")])
        _ = try store.save(StoreChangeset(inserted: [todo(1, "a"), location]))
        _ = try store.save(updating([todo(1, "Cafe\u{301}", version: 1)], changed: [["title"]]))
        #expect(try rows() == ["1|2|Cafe\u{301}|Caf\u{E9}|0|-"])
        var moved = todo(1, "Cafe\u{301}", version: 2)
        moved.toOne["location"] = id("Location", 7)
        _ = try store.save(updating([moved], changed: [["location"]]))
        #expect(try rows() == ["1|3|Cafe\u{301}|Caf\u{E9}|0|7"])
        #expect(try store.relatedObjectIDs(of: id("Location", 7), relationship: "todos") == [id("Todo", 1)])
    }

    /// Another connection to the file (as another process) changes a column this save does not
    /// write: the version still tells, and the save is a conflict that writes nothing.
    @Test func aConcurrentChangeOfAnotherColumnIsStillAConflict() throws {
        defer { directory.cleanup() }
        _ = try store.save(StoreChangeset(inserted: [todo(1, "a"), todo(2, "b")]))
        let other = try SQLiteStore(url: url, schema: schema)
        _ = try other.save(updating([todo(2, "b", priority: 3, version: 1)], changed: [["priority"]]))
        let before = try rows()
        let error = #expect(throws: StrataError.self) {
            try store.save(updating([todo(1, "a2", version: 1), todo(2, "b2", version: 1)], changed: [["title"], ["title"]]))
        }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.objectID) == [id("Todo", 2)])
        #expect(error?.failures.first?.message == "changed by another save since it was read (version 1 read, 2 stored)")
        #expect(try rows() == before)
        #expect(try rows(other) == ["1|1|a|-|0|-", "2|2|b|-|3|-"])
        // Object-trump writes every column, changed or not: the record's state wins.
        _ = try store.save(updating([todo(2, "b2", version: 1)], changed: [["title"]], overwritesConflicts: true))
        #expect(try rows(other) == ["1|1|a|-|0|-", "2|3|b2|-|0|-"])
    }

    /// A swap of unique values is redone with the constrained columns cleared first; then the
    /// unchanged ones are written back too, not left cleared.
    @Test func theUniquenessRetryWritesEveryColumn() throws {
        defer { directory.cleanup() }
        _ = try store.save(StoreChangeset(inserted: [todo(1, "a"), todo(2, "b"), todo(3, "c")]))
        let versions = try store.save(updating(
            [todo(1, "b", version: 1), todo(2, "a", version: 1), todo(3, "c", priority: 5, version: 1)],
            changed: [["title"], ["title"], ["priority"]]))
        #expect(versions == [id("Todo", 1): 2, id("Todo", 2): 2, id("Todo", 3): 2])
        #expect(try rows() == ["1|2|b|-|0|-", "2|2|a|-|0|-", "3|2|c|-|5|-"])
        // A real duplicate is refused, and the file keeps what it held.
        let before = try rows()
        let error = #expect(throws: StrataError.self) {
            try store.save(updating([todo(3, "a", version: 2), todo(1, "z", version: 2)], changed: [["title"], ["title"]]))
        }
        #expect(error?.code == .validationFailed)
        #expect(error?.failures.map(\.objectID) == [id("Todo", 3)])
        #expect(try rows() == before)
    }

    /// A statement failing in the middle of a save of partial updates leaves every row as it was.
    @Test func aFailingSaveOfPartialUpdatesWritesNothing() throws {
        defer { directory.cleanup() }
        _ = try store.save(StoreChangeset(inserted: [todo(1, "a"), todo(2, "b")]))
        try edit("CREATE TRIGGER fail BEFORE UPDATE OF title ON Todo WHEN NEW.title = 'boom' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        let before = try rows()
        let error = #expect(throws: StrataError.self) {
            try store.save(updating([todo(1, "a2", priority: 2, version: 1), todo(2, "boom", version: 1)], changed: [["title", "priority"], ["title"]]))
        }
        #expect(error?.message.contains("disk on fire") == true)
        #expect(try rows() == before)
        #expect(try store.save(updating([todo(2, "b2", version: 1)], changed: [["title"]])) == [id("Todo", 2): 2])
    }
}
