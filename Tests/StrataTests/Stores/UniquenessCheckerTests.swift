import Foundation
@testable import Strata
import Testing

/// ``UniquenessChecker`` on records built by hand: which changed objects it reports, and against
/// which other object, with one value and with several under a constraint.
@Suite("UniquenessChecker")
struct UniquenessCheckerTests {
    static let schema: Schema = {
        do {
            return try Schema(data: Data("""
                { "name": "Catalog", "entities": [
                  { "name": "Item", "attributes": [
                      { "name": "code", "type": "string" }, { "name": "shelf", "type": "int32" },
                      { "name": "slot", "type": "int32", "optional": true } ],
                    "uniquenessConstraints": [["code"], ["shelf", "slot"]] },
                  { "name": "Note", "attributes": [ { "name": "text", "type": "string" } ] }
                ] }
                """.utf8), file: "catalog")
        } catch {
            preconditionFailure("\(error)")
        }
    }()

    static func id(_ key: Int64) -> ObjectID { ObjectID(entityName: "Item", storeIdentifier: "S", primaryKey: key) }

    /// Items with keys from 1: (code, shelf, slot).
    static func contents(_ items: [(String, Int64, Int64?)]) -> AtomicStoreContents {
        var records: [ObjectID: StoreRecord] = [:]
        for (offset, item) in items.enumerated() {
            var values: AttributeValues = ["code": .string(item.0), "shelf": .integer(item.1)]
            if let slot = item.2 { values["slot"] = .integer(slot) }
            records[id(Int64(offset + 1))] = StoreRecord(objectID: id(Int64(offset + 1)), attributes: values)
        }
        let metadata = StoreMetadata(newStoreOf: .inMemory, schema: schema, identifier: "S")
        return AtomicStoreContents(metadata: metadata, records: ["Item": records])
    }

    /// Each report as "changed other constraint", in report order.
    static func reports(_ contents: AtomicStoreContents, changed: [Int64]) -> [String] {
        var reports: [String] = []
        UniquenessChecker.forEachDuplicate(in: contents, schema: schema, checking: changed.map(id)) { id, other, owner, constraint in
            reports.append("\(id.primaryKey!) \(other.primaryKey!) \(owner).\(constraint.joined(separator: "+"))")
        }
        return reports
    }

    @Test func distinctValuesGiveNoReport() {
        let contents = Self.contents((1...500).map { ("c\($0)", Int64($0 % 7), Int64($0)) })
        #expect(Self.reports(contents, changed: Array(1...500)) == [])
        #expect(Self.reports(contents, changed: [3]) == [])
    }

    @Test func aChangedObjectIsReportedAgainstTheFirstUnchangedOne() {
        // Items 2 and 4 (unchanged) and 5 (changed) share a code; 1 and 3 are apart.
        let contents = Self.contents([("a", 1, 1), ("x", 1, 2), ("b", 1, 3), ("x", 1, 4), ("x", 1, 5)])
        #expect(Self.reports(contents, changed: [5]) == ["5 2 Item.code"])
        // Unchanged duplicates among themselves are not this save's to report.
        #expect(Self.reports(contents, changed: [1, 3]) == [])
    }

    @Test func changedObjectsAmongThemselvesAreReportedAfterTheFirstByID() {
        let contents = Self.contents([("y", 1, 1), ("z", 2, 2), ("y", 3, 3), ("y", 4, 4)])
        #expect(Self.reports(contents, changed: [4, 3, 1, 3]) == ["3 1 Item.code", "4 1 Item.code"])
        // With item 3 unchanged, it is the one the changed ones are reported against.
        #expect(Self.reports(contents, changed: [4, 1]) == ["1 3 Item.code", "4 3 Item.code"])
    }

    @Test func severalValuesMustAllMatchAndNilNeverConflicts() {
        let contents = Self.contents([("a", 1, 7), ("b", 1, 8), ("c", 1, 7), ("d", 2, nil), ("e", 2, nil)])
        #expect(Self.reports(contents, changed: [1, 2, 3, 4, 5]) == ["3 1 Item.shelf+slot"])
    }

    @Test func constraintsOfEntitiesWithoutChangesAreNotChecked() {
        var contents = Self.contents([("a", 1, 1), ("a", 1, 1)])
        let note = ObjectID(entityName: "Note", storeIdentifier: "S", primaryKey: 1)
        contents.records["Note"] = [note: StoreRecord(objectID: note, attributes: ["text": .string("n")])]
        var reports: [String] = []
        UniquenessChecker.forEachDuplicate(in: contents, schema: Self.schema, checking: [note]) { id, _, _, _ in reports.append("\(id)") }
        #expect(reports == [])
        #expect(Self.reports(contents, changed: [2]) == ["2 1 Item.code", "2 1 Item.shelf+slot"])
    }

    /// `violations(of:in:schema:)` as "object key: message" for a save of `changes` into items.
    static func saveViolations(_ items: [(String, Int64, Int64?)], _ changes: StoreChangeset) -> [String] {
        UniquenessChecker.violations(of: changes, in: contents(items), schema: schema).map {
            "\($0.objectID.primaryKey!) \($0.key ?? ""): \($0.message)"
        }
    }

    static func item(_ key: Int64, _ code: String, _ shelf: Int64 = 9, _ slot: Int64? = nil) -> StoreRecord {
        var values: AttributeValues = ["code": .string(code), "shelf": .integer(shelf)]
        if let slot { values["slot"] = .integer(slot) }
        return StoreRecord(objectID: id(key), attributes: values)
    }

    @Test func aSaveIsCheckedAgainstWhatItLeavesStored() {
        let stored: [(String, Int64, Int64?)] = [("a", 1, 1), ("b", 1, 2)]
        #expect(Self.saveViolations(stored, StoreChangeset(inserted: [Self.item(3, "c"), Self.item(4, "d")])) == [])
        #expect(Self.saveViolations(stored, StoreChangeset(inserted: [Self.item(3, "a")]))
            == ["3 code: 'code' must be unique, and Item/p1 has the same value"])
        #expect(Self.saveViolations(stored, StoreChangeset(updated: [Self.item(2, "a", 1, 1)]))
            == ["2 code: 'code' must be unique, and Item/p1 has the same value", "2 shelf,slot: (shelf, slot) must be unique together, and Item/p1 has the same value"])
        // A deleted object's values are free again; an updated one's old values too.
        #expect(Self.saveViolations(stored, StoreChangeset(inserted: [Self.item(3, "a")], deleted: [(Self.id(1), 0)])) == [])
        #expect(Self.saveViolations(stored, StoreChangeset(inserted: [Self.item(3, "a")], updated: [Self.item(1, "z")])) == [])
        // An inserted record under a stored key replaces the stored one.
        #expect(Self.saveViolations(stored, StoreChangeset(inserted: [Self.item(1, "b")]))
            == ["1 code: 'code' must be unique, and Item/p2 has the same value"])
        // Two new objects with one value: the second is reported.
        #expect(Self.saveViolations(stored, StoreChangeset(inserted: [Self.item(5, "q"), Self.item(4, "q")]))
            == ["5 code: 'code' must be unique, and Item/p4 has the same value"])
        // Stored duplicates are not this save's.
        #expect(Self.saveViolations([("a", 1, 1), ("a", 1, 1)], StoreChangeset(inserted: [Self.item(3, "c")])) == [])
    }
}
