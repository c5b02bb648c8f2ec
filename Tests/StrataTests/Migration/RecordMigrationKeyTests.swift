import Foundation
@testable import Strata
import Testing

/// Primary keys and key sequences across hierarchy changes.
@Suite("RecordMigration keys")
struct RecordMigrationKeyTests {
    typealias M = Migrating

    /// Two roots: Animal and Dog; an Owner holds animals and dogs.
    static let separate = M.model("1", """
        { "name": "Animal", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "animals", "optional": true } ] },
        { "name": "Dog", "attributes": [ { "name": "name", "type": "string" }, { "name": "breed", "type": "string", "optional": true } ],
          "relationships": [ { "name": "keeper", "destination": "Owner", "inverse": "dogs", "optional": true } ] },
        { "name": "Owner", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [
            { "name": "animals", "destination": "Animal", "inverse": "owner", "toMany": true },
            { "name": "dogs", "destination": "Dog", "inverse": "keeper", "toMany": true } ] }
        """)

    /// Dog under Animal, keeping its properties (name now inherited).
    static let merged = M.model("2", """
        { "name": "Animal", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "animals", "optional": true } ] },
        { "name": "Dog", "parent": "Animal", "attributes": [ { "name": "breed", "type": "string", "optional": true } ],
          "relationships": [ { "name": "keeper", "destination": "Owner", "inverse": "dogs", "optional": true } ] },
        { "name": "Owner", "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [
            { "name": "animals", "destination": "Animal", "inverse": "owner", "toMany": true },
            { "name": "dogs", "destination": "Dog", "inverse": "keeper", "toMany": true } ] }
        """)

    @Test func aParentAddedRenumbersTheMergedObjectsWhoseKeysCollide() throws {
        let store = M.contents(Self.separate, [
            M.record("Animal", 1, ["name": .string("cat")], toOne: ["owner": M.id("Owner", 1)]),
            M.record("Animal", 3, ["name": .string("cow")]),
            M.record("Dog", 1, ["name": .string("rex")], toOne: ["keeper": M.id("Owner", 1)]),
            M.record("Dog", 2, ["name": .string("fido"), "breed": .string("pug")]),
            M.record("Dog", 3, ["name": .string("lassie")], toOne: ["keeper": M.id("Owner", 1)]),
            M.record("Owner", 1, ["name": .string("ann")], toMany: ["animals": [M.id("Animal", 1)], "dogs": [M.id("Dog", 1), M.id("Dog", 3)]]),
        ], keySequences: ["Animal": 4, "Dog": 3, "Owner": 1])
        let migrated = try M.migrate(store, from: Self.separate, to: Self.merged)
        // Animal keeps its keys (the destination root's own hierarchy); Dog 2 is free and kept;
        // Dog 1 and Dog 3 collide and get 5 and 6, above Animal's sequence (4).
        #expect(migrated.orderedRecords == [
            M.record("Animal", 1, ["name": .string("cat")], toOne: ["owner": M.id("Owner", 1)]),
            M.record("Animal", 3, ["name": .string("cow")]),
            M.record("Dog", 2, ["name": .string("fido"), "breed": .string("pug")]),
            M.record("Dog", 5, ["name": .string("rex")], toOne: ["keeper": M.id("Owner", 1)]),
            M.record("Dog", 6, ["name": .string("lassie")], toOne: ["keeper": M.id("Owner", 1)]),
            M.record("Owner", 1, ["name": .string("ann")], toMany: ["animals": [M.id("Animal", 1)], "dogs": [M.id("Dog", 5), M.id("Dog", 6)]]),
        ])
        #expect(migrated.keySequences == ["Animal": 6, "Owner": 1])
    }

    @Test func aParentAddedKeepsKeysThatDoNotCollide() throws {
        let store = M.contents(Self.separate, [
            M.record("Animal", 1, ["name": .string("cat")]),
            M.record("Dog", 2, ["name": .string("rex")]),
        ], keySequences: ["Animal": 1, "Dog": 2])
        let migrated = try M.migrate(store, from: Self.separate, to: Self.merged)
        #expect(migrated.orderedRecords == store.orderedRecords)
        #expect(migrated.keySequences == ["Animal": 2])
    }

    @Test func aParentRemovedKeepsEveryKey() throws {
        let store = M.contents(Self.merged, [
            M.record("Animal", 1, ["name": .string("cat")]),
            M.record("Dog", 2, ["name": .string("rex"), "breed": .string("pug")], toOne: ["keeper": M.id("Owner", 1)]),
            M.record("Owner", 1, ["name": .string("ann")], toMany: ["dogs": [M.id("Dog", 2)]]),
        ], keySequences: ["Animal": 7, "Owner": 1])
        let migrated = try M.migrate(store, from: Self.merged, to: Self.separate)
        #expect(migrated.orderedRecords == store.orderedRecords)
        #expect(migrated.keySequences == ["Animal": 7, "Dog": 7, "Owner": 1])
    }

    @Test func membersThatNoLongerFitTheDestinationAreDroppedOnBothSides() throws {
        // Owner.animals held a Dog while Dog was an Animal; without the parent it cannot.
        let store = M.contents(Self.merged, [
            M.record("Animal", 1, ["name": .string("cat")], toOne: ["owner": M.id("Owner", 1)]),
            M.record("Dog", 2, ["name": .string("rex")], toOne: ["owner": M.id("Owner", 1)]),
            M.record("Owner", 1, ["name": .string("ann")], toMany: ["animals": [M.id("Animal", 1), M.id("Dog", 2)]]),
        ], keySequences: ["Animal": 2, "Owner": 1])
        let migrated = try M.migrate(store, from: Self.merged, to: Self.separate)
        #expect(migrated.orderedRecords == [
            M.record("Animal", 1, ["name": .string("cat")], toOne: ["owner": M.id("Owner", 1)]),
            M.record("Dog", 2, ["name": .string("rex")]),
            M.record("Owner", 1, ["name": .string("ann")], toMany: ["animals": [M.id("Animal", 1)]]),
        ])
    }

    @Test func aNewAbstractRootOverTwoHierarchiesKeepsTheFirstInModelOrder() throws {
        let v1 = M.model("1", """
            { "name": "Note", "attributes": [ { "name": "title", "type": "string" } ] },
            { "name": "Photo", "attributes": [ { "name": "title", "type": "string" } ] }
            """)
        let v2 = M.model("2", """
            { "name": "Item", "abstract": true, "attributes": [ { "name": "title", "type": "string" } ] },
            { "name": "Photo", "parent": "Item" },
            { "name": "Note", "parent": "Item" }
            """)
        let store = M.contents(v1, [
            M.record("Note", 1, ["title": .string("n1")]),
            M.record("Note", 2, ["title": .string("n2")]),
            M.record("Photo", 1, ["title": .string("p1")]),
        ], keySequences: ["Note": 2, "Photo": 1])
        let migrated = try M.migrate(store, from: v1, to: v2)
        #expect(migrated.orderedRecords == [
            M.record("Note", 2, ["title": .string("n2")]),
            M.record("Note", 3, ["title": .string("n1")]),
            M.record("Photo", 1, ["title": .string("p1")]),
        ])
        #expect(migrated.keySequences == ["Item": 3])
    }
}
