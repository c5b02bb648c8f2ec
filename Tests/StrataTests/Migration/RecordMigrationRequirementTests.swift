import Foundation
@testable import Strata
import Testing

/// ``RecordMigration/checkRequirements(_:_:)``: required values and uniqueness, named exactly.
@Suite("RecordMigration requirements")
struct RecordMigrationRequirementTests {
    typealias M = Migrating

    static let v1 = M.model("1", """
        { "name": "Mood", "attributes": [
            { "name": "name", "type": "string", "optional": true },
            { "name": "colour", "type": "string", "optional": true } ] }
        """)

    static func moods(_ count: Int64, colour: (Int64) -> String?, name: (Int64) -> String? = { "m\($0)" }) -> AtomicStoreContents {
        M.contents(v1, (1...count).map { key in
            var values: [String: AttributeValue] = [:]
            values["colour"] = colour(key).map(AttributeValue.string)
            values["name"] = name(key).map(AttributeValue.string)
            return M.record("Mood", key, values)
        })
    }

    static let colourRequired = M.model("2", """
        { "name": "Mood", "attributes": [
            { "name": "name", "type": "string", "optional": true },
            { "name": "colour", "type": "string" } ] }
        """)

    @Test func optionalToRequiredWithoutADefaultIsRefusedNamingTheObjects() {
        let store = Self.moods(8) { $0 == 3 || $0 == 7 ? nil : "blue" }
        let message = M.refusal { _ = try M.migrate(store, from: Self.v1, to: Self.colourRequired) }
        #expect(message.contains("Mood.colour is required, but 2 objects have no value: Mood 3, Mood 7 (give it a default value in the model, or set it in a custom stage's didMigrate)"), "\(message)")
        #expect(message.hasPrefix("the migration Moody 1 ("), "\(message)")
    }

    @Test func aRefusalNamesTwentyObjectsAndCountsTheRest() {
        let store = Self.moods(25) { _ in nil }
        let message = M.refusal { _ = try M.migrate(store, from: Self.v1, to: Self.colourRequired) }
        let named = (1...20).map { "Mood \($0)" }.joined(separator: ", ")
        #expect(message.contains("25 objects have no value: \(named) and 5 more ("), "\(message)")
    }

    @Test func anAddedRequiredAttributeWithoutADefaultIsRefusedOnlyWhenThereAreObjects() throws {
        let v2 = M.model("2", """
            { "name": "Mood", "attributes": [
                { "name": "name", "type": "string", "optional": true },
                { "name": "colour", "type": "string", "optional": true },
                { "name": "intensity", "type": "int16" } ] }
            """)
        let message = M.refusal { _ = try M.migrate(Self.moods(1) { _ in "red" }, from: Self.v1, to: v2) }
        #expect(message.contains("Mood.intensity is required, but 1 object has no value: Mood 1"), "\(message)")
        let empty = try M.migrate(M.contents(Self.v1, []), from: Self.v1, to: v2)
        #expect(empty.recordCount == 0)
        #expect(empty.metadata.modelVersionHash == v2.versionHash)
    }

    static let uniqueNames = M.model("2", """
        { "name": "Mood", "attributes": [
            { "name": "name", "type": "string", "optional": true },
            { "name": "colour", "type": "string", "optional": true } ],
          "uniquenessConstraints": [["name"], ["name", "colour"]] }
        """)

    @Test func aNewUniquenessConstraintIsRefusedNamingTheDuplicates() {
        let names: [Int64: String] = [1: "calm", 2: "glad", 3: "calm", 4: "glad", 5: "calm"]
        let store = Self.moods(6, colour: { $0 == 5 ? "red" : nil }, name: { names[$0] })
        let message = M.refusal { _ = try M.migrate(store, from: Self.v1, to: Self.uniqueNames) }
        #expect(message.contains("Mood.name must be unique, but 3 objects repeat another's value: Mood 3 (as Mood 1), Mood 4 (as Mood 2), Mood 5 (as Mood 1)"), "\(message)")
        // nil never conflicts: only Mood 5 has a colour, so (name, colour) holds.
        #expect(!message.contains("Mood (name, colour)"), "\(message)")
    }

    @Test func aNewUniquenessConstraintTheDataMeetsPasses() throws {
        let store = Self.moods(3, colour: { _ in "red" })
        let migrated = try M.migrate(store, from: Self.v1, to: Self.uniqueNames)
        #expect(migrated.orderedRecords == store.orderedRecords)
    }
}
