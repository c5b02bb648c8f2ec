import Foundation
@testable import Strata
import Testing

/// ``RecordMigration/apply(_:to:)`` on records built by hand: entities and attributes, and the
/// migrated store's metadata. Each test states the exact records a step gives.
@Suite("RecordMigration")
struct RecordMigrationTests {
    typealias M = Migrating

    /// Moods with owners; the variants change Mood's attributes, its entity keys, Person's
    /// attribute, or add entities.
    static func moody(
        _ version: String, mood attributes: String = v1Attributes, entity: String = #""name": "Mood""#,
        person: String = #"{ "name": "name", "type": "string" }"#, more: String = ""
    ) -> Schema {
        M.model(version, """
            { \(entity),
              "attributes": [ \(attributes) ],
              "relationships": [ { "name": "owner", "destination": "Person", "inverse": "moods", "optional": true } ] },
            { "name": "Person",
              "attributes": [ \(person) ],
              "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "owner", "toMany": true } ] }\(more)
            """)
    }

    static let v1Attributes = """
        { "name": "text", "type": "string", "optional": true },
        { "name": "level", "type": "int16", "default": 1 },
        { "name": "weight", "type": "float", "optional": true },
        { "name": "scratch", "type": "string", "optional": true }
        """
    static let v1 = moody("1")

    /// Mood → Feeling, text → note, level int16 → int64, weight float → double, scratch removed,
    /// colour added with a default, comment added without one.
    static let v2 = M.model("2", """
        { "name": "Feeling", "renamingIdentifier": "Mood",
          "attributes": [
            { "name": "note", "type": "string", "optional": true, "renamingIdentifier": "text" },
            { "name": "level", "type": "int64", "default": 1 },
            { "name": "weight", "type": "double", "optional": true },
            { "name": "colour", "type": "string", "default": "grey" },
            { "name": "comment", "type": "string", "optional": true } ],
          "relationships": [ { "name": "owner", "destination": "Person", "inverse": "feelings", "optional": true } ] },
        { "name": "Person",
          "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "feelings", "destination": "Feeling", "inverse": "owner", "toMany": true, "renamingIdentifier": "moods" } ] }
        """)

    static let store = M.contents(v1, [
        M.record("Mood", 1, ["text": .string("calm"), "level": .integer(3), "weight": .float(0.1), "scratch": .string("x")], toOne: ["owner": M.id("Person", 1)], version: 4),
        M.record("Mood", 2, ["level": .integer(-32768)]),
        M.record("Person", 1, ["name": .string("Ada")], toMany: ["moods": [M.id("Mood", 1)]]),
    ], keySequences: ["Mood": 5, "Person": 1])

    @Test func renamesEntitiesAndPropertiesKeepingKeysAndValues() throws {
        let migrated = try M.migrate(Self.store, from: Self.v1, to: Self.v2)
        #expect(migrated.orderedRecords == [
            M.record("Feeling", 1, [
                "note": .string("calm"), "level": .integer(3), "weight": .double(Double(Float(0.1))), "colour": .string("grey"),
            ], toOne: ["owner": M.id("Person", 1)], version: 4),
            M.record("Feeling", 2, ["level": .integer(-32768), "colour": .string("grey")]),
            M.record("Person", 1, ["name": .string("Ada")], toMany: ["feelings": [M.id("Feeling", 1)]]),
        ])
        // The exact double a float widens to, not the decimal text's nearest double.
        #expect(migrated.record(M.id("Feeling", 1))?.attributes["weight"] == .double(0.10000000149011612))
        #expect(migrated.keySequences == ["Feeling": 5, "Person": 1])
    }

    @Test func recordsAreLaidOutByTheDestinationEntity() throws {
        let migrated = try M.migrate(Self.store, from: Self.v1, to: Self.v2)
        let feeling = try #require(Self.v2.entity(named: "Feeling"))
        for record in migrated.records["Feeling"]!.values {
            #expect(record.attributes.layout === feeling.attributeLayout)
        }
    }

    @Test func metadataIsTheDestinationModelsWithTheStoresIdentityKept() throws {
        let migrated = try M.migrate(Self.store, from: Self.v1, to: Self.v2)
        var expected = StoreMetadata(newStoreOf: .xml, schema: Self.v2, identifier: M.storeIdentifier)
        expected.custom = ["owner": "tests"]
        #expect(migrated.metadata == expected)
        #expect(migrated.metadata.modelVersionHash == Self.v2.versionHash)
    }

    @Test func recordsLaidOutByAnyLayoutAreReadByName() throws {
        var store = Self.store
        // A layout that is not the entity's: values are found by name.
        let shuffled = AttributeValues.Layout(names: ["weight", "scratch", "level", "text", "extra"])
        store.records["Mood"]![M.id("Mood", 1)]!.attributes = store.records["Mood"]![M.id("Mood", 1)]!.attributes.laidOut(by: shuffled)
        let migrated = try M.migrate(store, from: Self.v1, to: Self.v2)
        #expect(migrated.record(M.id("Feeling", 1))?.attributes == [
            "note": .string("calm"), "level": .integer(3), "weight": .double(Double(Float(0.1))), "colour": .string("grey"),
        ])
    }

    @Test func removedEntitiesTakeTheirObjectsAndEveryReferenceToThem() throws {
        let v2 = M.model("2", """
            { "name": "Person", "attributes": [ { "name": "name", "type": "string" } ] }
            """)
        let migrated = try M.migrate(Self.store, from: Self.v1, to: v2)
        #expect(migrated.orderedRecords == [M.record("Person", 1, ["name": .string("Ada")])])
        #expect(migrated.keySequences == ["Person": 1])
    }

    @Test func addedEntitiesStartEmpty() throws {
        let v2 = Self.moody("2", more: #", { "name": "Place", "attributes": [ { "name": "name", "type": "string" } ] }"#)
        let migrated = try M.migrate(Self.store, from: Self.v1, to: v2)
        #expect(migrated.orderedRecords == Self.store.orderedRecords)
        #expect(migrated.records["Place"] == nil)
    }

    @Test func optionalToRequiredWithADefaultFillsNil() throws {
        let v2 = Self.moody("2", mood: """
            { "name": "text", "type": "string", "default": "none" },
            { "name": "level", "type": "int16", "default": 1 },
            { "name": "weight", "type": "float", "default": 0.5 }
            """)
        let migrated = try M.migrate(Self.store, from: Self.v1, to: v2)
        #expect(migrated.record(M.id("Mood", 1))?.attributes == ["text": .string("calm"), "level": .integer(3), "weight": .float(0.1)])
        #expect(migrated.record(M.id("Mood", 2))?.attributes == ["text": .string("none"), "level": .integer(-32768), "weight": .float(0.5)])
    }

    @Test func requiredToOptionalKeepsValues() throws {
        let v2 = Self.moody("2", mood: """
            { "name": "text", "type": "string", "optional": true },
            { "name": "level", "type": "int16", "optional": true },
            { "name": "weight", "type": "float", "optional": true },
            { "name": "scratch", "type": "string", "optional": true }
            """, person: #"{ "name": "name", "type": "string", "optional": true }"#)
        let migrated = try M.migrate(Self.store, from: Self.v1, to: v2)
        #expect(migrated.orderedRecords == Self.store.orderedRecords)
    }

    /// int16 → string: not inferable. In a custom step the old values are gone (removal and
    /// addition): the new attribute takes its default.
    static let retyped = moody("2", mood: """
        { "name": "text", "type": "string", "optional": true },
        { "name": "level", "type": "string", "default": "low" },
        { "name": "weight", "type": "float", "optional": true },
        { "name": "scratch", "type": "string", "optional": true }
        """)

    @Test func aTypeChangeInACustomStepIsARemovalAndAnAddition() throws {
        let migrated = try M.migrate(Self.store, from: Self.v1, to: Self.retyped, custom: true)
        #expect(migrated.record(M.id("Mood", 1))?.attributes == ["text": .string("calm"), "level": .string("low"), "weight": .float(0.1), "scratch": .string("x")])
        #expect(migrated.record(M.id("Mood", 2))?.attributes == ["level": .string("low")])
    }

    @Test func aTypeChangeInAnInferredStepIsRefusedNamingTheProperty() {
        let message = M.refusal { _ = try M.migrate(Self.store, from: Self.v1, to: Self.retyped) }
        #expect(message.contains("Mood.level: type int16 → string cannot be inferred"), "\(message)")
    }

    @Test(arguments: [
        ("int16", "int32", AttributeValue.integer(-32768), AttributeValue.integer(-32768)),
        ("int32", "int64", .integer(2_147_483_647), .integer(2_147_483_647)),
        ("int16", "int64", .integer(32767), .integer(32767)),
        ("float", "double", .float(-1.5e-7), .double(Double(Float(-1.5e-7)))),
        ("float", "double", .float(.infinity), .double(.infinity)),
        ("float", "double", .float(.nan), .double(.nan)),
    ])
    func wideningKeepsTheValue(from: String, to: String, value: AttributeValue, widened: AttributeValue) throws {
        let v1 = M.model("1", #"{ "name": "Sample", "attributes": [ { "name": "number", "type": "\#(from)" } ] }"#)
        let v2 = M.model("2", #"{ "name": "Sample", "attributes": [ { "name": "number", "type": "\#(to)" } ] }"#)
        let migrated = try M.migrate(M.contents(v1, [M.record("Sample", 1, ["number": value])]), from: v1, to: v2)
        #expect(migrated.orderedRecords == [M.record("Sample", 1, ["number": widened])])
    }

    @Test func binaryToTransformableIsNotInferredAndACustomStepStartsItEmpty() throws {
        let v1 = M.model("1", #"{ "name": "Sample", "attributes": [ { "name": "blob", "type": "binary", "optional": true } ] }"#)
        let v2 = M.model("2", #"{ "name": "Sample", "attributes": [ { "name": "blob", "type": "transformable", "transformer": "Point", "optional": true } ] }"#)
        let store = M.contents(v1, [M.record("Sample", 1, ["blob": .binary(Data([1, 2, 3]))])])
        let message = M.refusal { _ = try M.migrate(store, from: v1, to: v2) }
        #expect(message.contains("Sample.blob: type binary → transformable cannot be inferred"), "\(message)")
        let custom = try M.migrate(store, from: v1, to: v2, custom: true)
        #expect(custom.orderedRecords == [M.record("Sample", 1, [:])])
    }

    @Test func transientAttributesAreNeverStored() throws {
        let v2 = Self.moody("2", mood: """
            { "name": "text", "type": "string", "optional": true },
            { "name": "level", "type": "int16", "default": 1 },
            { "name": "weight", "type": "float", "optional": true },
            { "name": "scratch", "type": "string", "optional": true, "transient": true, "default": "t" }
            """)
        let migrated = try M.migrate(Self.store, from: Self.v1, to: v2)
        #expect(migrated.record(M.id("Mood", 1))?.attributes["scratch"] == nil)
        #expect(migrated.record(M.id("Mood", 1))?.attributes["text"] == .string("calm"))
    }

    @Test func anEntityBecomingAbstractWithObjectsIsRefused() {
        let v2 = Self.moody("2", entity: #""name": "Mood", "abstract": true"#)
        let message = M.refusal { _ = try M.migrate(Self.store, from: Self.v1, to: v2, custom: true) }
        #expect(message.contains("Mood becomes abstract, but the store holds 2 objects of it: Mood 1, Mood 2"), "\(message)")
    }

    @Test func danglingReferencesFollowRenames() throws {
        // Mood 9 was deleted with the noAction rule: Person 1 still names it.
        var store = Self.store
        store.records["Person"]![M.id("Person", 1)]!.toMany["moods"] = [M.id("Mood", 1), M.id("Mood", 9)]
        let migrated = try M.migrate(store, from: Self.v1, to: Self.v2)
        #expect(migrated.record(M.id("Person", 1))?.toMany == ["feelings": [M.id("Feeling", 1), M.id("Feeling", 9)]])
    }
}
