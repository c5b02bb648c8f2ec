import Foundation
import Strata
import Testing

/// Inferred (lightweight) migration on every store kind: each change kind Core Data infers,
/// the exact objects it gives (values, both sides of relationships, primary keys), the store's
/// identity and custom metadata kept, the new model's hashes stored, and refusals that leave
/// the store byte-identical.
package struct MigrationChecks {
    package init() {}

    typealias M = MigrationModels

    // Pieces of `MigrationModels.moodyJSON` that versions edit.
    static let note = #"{ "name": "note", "type": "string", "optional": true }"#
    static let level = #"{ "name": "level", "type": "int16", "default": 1 }"#
    static let weight = #"{ "name": "weight", "type": "float", "optional": true }"#
    static let colour = #"{ "name": "colour", "type": "string", "optional": true }"#
    static let owner = #"{ "name": "owner", "destination": "Person", "inverse": "moods", "optional": true }"#
    static let tags = #"{ "name": "tags", "destination": "Tag", "inverse": "moods", "toMany": true }"#
    static let personMoods = #"{ "name": "moods", "destination": "Mood", "inverse": "owner", "toMany": true }"#
    static let tagMoods = #"{ "name": "moods", "destination": "Mood", "inverse": "tags", "toMany": true }"#

    static func moody(_ kind: StoreKind) throws -> MigrationFixture {
        try MigrationFixture(kind, M.moody, fill: M.fillMoody)
    }

    /// ``MigrationModels/moodyLines``' moods without their tags.
    static let moodsWithoutTags = [
        #"Mood2 colour="green" level=32767 name="calm" note="quiet" weight=0.1 owner->Person3"#,
        #"Mood5 level=-32768 name="glad" owner->Person3"#,
        #"Mood7 colour="blue" level=1 name="sad" owner->Person4"#,
    ]

    // MARK: - Renames, additions, removals

    package func renamedEntityAttributeAndRelationshipsKeepTheirValuesAndKeys(kind: StoreKind) throws {
        let v2 = M.moody("2", [
            (#"{ "name": "Mood","#, #"{ "name": "Feeling", "renamingIdentifier": "Mood","#),
            (Self.note, #"{ "name": "text", "renamingIdentifier": "note", "type": "string", "optional": true }"#),
            (Self.owner, #"{ "name": "holder", "renamingIdentifier": "owner", "destination": "Person", "inverse": "feelings", "optional": true }"#),
            (Self.tags, #"{ "name": "tags", "destination": "Tag", "inverse": "feelings", "toMany": true }"#),
            (Self.personMoods, #"{ "name": "feelings", "renamingIdentifier": "moods", "destination": "Feeling", "inverse": "holder", "toMany": true }"#),
            (Self.tagMoods, #"{ "name": "feelings", "renamingIdentifier": "moods", "destination": "Feeling", "inverse": "tags", "toMany": true }"#),
        ])
        let fixture = try Self.moody(kind)
        let report = try fixture.migrate([M.moody, v2])
        #expect(report.steps.count == 1)
        #expect(try fixture.dump(v2) == [
            #"Feeling2 colour="green" level=32767 name="calm" text="quiet" weight=0.1 holder->Person3 tags->[Tag1]"#,
            #"Feeling5 level=-32768 name="glad" holder->Person3 tags->[Tag1,Tag6]"#,
            #"Feeling7 colour="blue" level=1 name="sad" holder->Person4"#,
            #"Person3 name="Ada Lovelace" feelings->[Feeling2,Feeling5]"#,
            #"Person4 name="Bob" feelings->[Feeling7]"#,
            #"Tag1 name="home" feelings->[Feeling2,Feeling5]"#,
            #"Tag6 name="work" feelings->[Feeling5]"#,
        ])
        // The migrated store takes new objects, with keys above the kept ones.
        let context = ManagedObjectContext(coordinator: try fixture.open(v2))
        let added = try context.make("Feeling", ["name": "new"])
        try context.save()
        #expect(try #require(added.objectID.primaryKey) > 7)
    }

    package func addedAttributesTakeTheirDefaultAndRemovedOnesGo(kind: StoreKind) throws {
        let v2 = M.moody("2", [
            (Self.colour, #"{ "name": "intensity", "type": "int32", "default": 5 }, { "name": "comment", "type": "string", "optional": true }"#),
        ])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        #expect(try fixture.dump(v2) == [
            #"Mood2 intensity=5 level=32767 name="calm" note="quiet" weight=0.1 owner->Person3 tags->[Tag1]"#,
            #"Mood5 intensity=5 level=-32768 name="glad" owner->Person3 tags->[Tag1,Tag6]"#,
            #"Mood7 intensity=5 level=1 name="sad" owner->Person4"#,
        ] + M.moodyLines[3...])
    }

    package func aRemovedEntityTakesItsObjectsAndReferencesAndAnAddedOneStartsEmpty(kind: StoreKind) throws {
        // Tag is removed (with Mood.tags); Place is added, with a relationship to Mood.
        let v2 = M.moody("2", [
            (Self.tags, #"{ "name": "place", "destination": "Place", "inverse": "moods", "optional": true }"#),
            (#"{ "name": "Tag","#, #"{ "name": "Place","#),
            (Self.tagMoods, #"{ "name": "moods", "destination": "Mood", "inverse": "place", "toMany": true }"#),
        ])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        #expect(try fixture.dump(v2) == Self.moodsWithoutTags + M.moodyLines[3...4])
        let coordinator = try fixture.open(v2)
        let context = ManagedObjectContext(coordinator: coordinator)
        let park = try context.make("Place", ["name": "park"])
        let calm = try #require(try context.all("Mood").first { $0["name"] as? String == "calm" })
        calm.setObject(park, forKey: "place")
        try context.save()
        #expect(try Dump.lines(coordinator, naming: .name).contains(#"Place:park name="park" moods->[Mood:calm]"#))
    }

    package func aRemovedRelationshipLeavesBothEntities(kind: StoreKind) throws {
        let v2 = M.moody("2", [
            ("\(Self.owner),\n      \(Self.tags)", Self.owner),
            (#""relationships": [ \#(Self.tagMoods) ]"#, #""relationships": [ ]"#),
        ])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        #expect(try fixture.dump(v2) == Self.moodsWithoutTags + M.moodyLines[3...4] + [#"Tag1 name="home""#, #"Tag6 name="work""#])
    }

    // MARK: - Optionality

    package func optionalToRequiredWithADefaultFillsNil(kind: StoreKind) throws {
        let v2 = M.moody("2", [(Self.colour, #"{ "name": "colour", "type": "string", "default": "grey" }"#)])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        var expected = M.moodyLines
        expected[1] = #"Mood5 colour="grey" level=-32768 name="glad" owner->Person3 tags->[Tag1,Tag6]"#
        #expect(try fixture.dump(v2) == expected)
    }

    package func optionalToRequiredWithoutADefaultIsRefusedNamingTheObjects(kind: StoreKind) throws {
        let v2 = M.moody("2", [(Self.note, #"{ "name": "note", "type": "string" }"#)])
        let fixture = try Self.moody(kind)
        let message = try fixture.expectRefusal([M.moody, v2])
        #expect(message.contains("Mood.note"), "\(message)")
        #expect(message.contains("Mood 5, Mood 7"), "\(message)")
        #expect(try fixture.dump(M.moody) == M.moodyLines)
    }

    package func requiredToOptionalKeepsEveryValue(kind: StoreKind) throws {
        let v2 = M.moody("2", [
            (Self.level, #"{ "name": "level", "type": "int16", "optional": true }"#),
            (#"{ "name": "name", "type": "string" },"#, #"{ "name": "name", "type": "string", "optional": true },"#),
        ])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        #expect(try fixture.dump(v2) == M.moodyLines)
    }

    /// Core Data validates the objects a migration makes: a required to-one relationship must
    /// have a destination in every object.
    package func aRequiredToOneIsCheckedInEveryObject(kind: StoreKind) throws {
        let ownerRequired = M.moody("2", [(Self.owner, #"{ "name": "owner", "destination": "Person", "inverse": "moods" }"#)])
        let kept = try Self.moody(kind)
        try kept.migrate([M.moody, ownerRequired])
        #expect(try kept.dump(ownerRequired) == M.moodyLines)

        let placeAdded = M.moody("2", [
            (Self.owner, #"\#(Self.owner), { "name": "place", "destination": "Place", "inverse": "moods" }"#),
            (#"{ "name": "Tag","#, #"{ "name": "Place", "attributes": [ { "name": "name", "type": "string" } ], "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "place", "toMany": true } ] },\#n  { "name": "Tag","#),
        ])
        let refused = try Self.moody(kind)
        let message = try refused.expectRefusal([M.moody, placeAdded])
        #expect(message.contains("Mood.place"), "\(message)")
        #expect(message.contains("Mood 2, Mood 5, Mood 7"), "\(message)")
    }

    // MARK: - Cardinality and order

    package func toOneToToManyKeepsTheMember(kind: StoreKind) throws {
        let v2 = M.moody("2", [(Self.owner, #"{ "name": "owner", "destination": "Person", "inverse": "moods", "toMany": true }"#)])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        #expect(try fixture.dump(v2) == [
            #"Mood2 colour="green" level=32767 name="calm" note="quiet" weight=0.1 owner->[Person3] tags->[Tag1]"#,
            #"Mood5 level=-32768 name="glad" owner->[Person3] tags->[Tag1,Tag6]"#,
            #"Mood7 colour="blue" level=1 name="sad" owner->[Person4]"#,
        ] + M.moodyLines[3...])
    }

    static let tagsToOne = M.moody("2", [(Self.tags, #"{ "name": "tags", "destination": "Tag", "inverse": "moods", "optional": true }"#)])

    package func toManyToToOneWhenEveryObjectHasAtMostOne(kind: StoreKind) throws {
        let fixture = try MigrationFixture(kind, M.moody) { context in
            try M.fillMoody(context)
            let glad = try #require(try context.all("Mood").first { $0["name"] as? String == "glad" })
            let home = try #require(try context.all("Tag").first { $0["name"] as? String == "home" })
            glad.removeObject(home, forKey: "tags")
        }
        try fixture.migrate([M.moody, Self.tagsToOne])
        #expect(try fixture.dump(Self.tagsToOne) == [
            #"Mood2 colour="green" level=32767 name="calm" note="quiet" weight=0.1 owner->Person3 tags->Tag1"#,
            #"Mood5 level=-32768 name="glad" owner->Person3 tags->Tag6"#,
            #"Mood7 colour="blue" level=1 name="sad" owner->Person4"#,
        ] + M.moodyLines[3...4] + [
            #"Tag1 name="home" moods->[Mood2]"#,
            #"Tag6 name="work" moods->[Mood5]"#,
        ])
    }

    package func toManyToToOneIsRefusedNamingTheObjectsWithMore(kind: StoreKind) throws {
        let fixture = try Self.moody(kind)
        let message = try fixture.expectRefusal([M.moody, Self.tagsToOne])
        #expect(message.contains("Mood.tags"), "\(message)")
        #expect(message.contains("Mood 5"), "\(message)")
        #expect(!message.contains("Mood 2"), "\(message)")
    }

    package func unorderedToOrderedOrdersMembersByPrimaryKey(kind: StoreKind) throws {
        let v2 = M.moody("2", [
            (Self.tags, #"{ "name": "tags", "destination": "Tag", "inverse": "moods", "toMany": true, "ordered": true }"#),
            (Self.tagMoods, #"{ "name": "moods", "destination": "Mood", "inverse": "tags", "toMany": true, "ordered": true }"#),
        ])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        // Glad was given work (Tag6) before home (Tag1), and home had glad (Mood5) before calm (Mood2).
        #expect(try fixture.dump(v2) == M.moodyLines)
        let context = ManagedObjectContext(coordinator: try fixture.open(v2))
        let glad = try #require(try context.all("Mood").first { $0["name"] as? String == "glad" })
        #expect(glad.names("tags") == ["home", "work"])
        let home = try #require(try context.all("Tag").first { $0["name"] as? String == "home" })
        #expect(home.names("moods") == ["calm", "glad"])
    }

    // MARK: - Hierarchies

    static func fillKennel(dogKeys: (Int64, Int64)) -> (ManagedObjectContext) throws -> Void {
        { context in
            try context.make("Animal", key: 1, ["name": "cat"])
            try context.make("Animal", key: 2, ["name": "cow"])
            let ann = try context.make("Owner", key: 1, ["name": "ann"])
            let rex = try context.make("Dog", key: dogKeys.0, ["name": "rex", "breed": "pug"])
            let fido = try context.make("Dog", key: dogKeys.1, ["name": "fido"])
            rex.setObject(ann, forKey: "walker")
            fido.setObject(ann, forKey: "walker")
        }
    }

    package func aParentAddedKeepsKeysThatDoNotCollide(kind: StoreKind) throws {
        let fixture = try MigrationFixture(kind, M.kennel, fill: Self.fillKennel(dogKeys: (5, 6)))
        try fixture.migrate([M.kennel, M.kennelWithParent])
        #expect(try fixture.dump(M.kennelWithParent) == [
            #"Animal1 name="cat""#,
            #"Animal2 name="cow""#,
            #"Dog5 breed="pug" name="rex" walker->Owner1"#,
            #"Dog6 name="fido" walker->Owner1"#,
            #"Owner1 name="ann" dogs->[Dog5,Dog6]"#,
        ])
    }

    package func aParentAddedGivesTheMovedObjectsWhoseKeysCollideNewKeys(kind: StoreKind) throws {
        let fixture = try MigrationFixture(kind, M.kennel, fill: Self.fillKennel(dogKeys: (1, 3)))
        try fixture.migrate([M.kennel, M.kennelWithParent])
        // Only rex (Dog 1, colliding with Animal 1) gets a new key, the next above every key;
        // fido keeps 3 — the same keys on every store.
        #expect(try fixture.dump(M.kennelWithParent) == [
            #"Animal1 name="cat""#,
            #"Animal2 name="cow""#,
            #"Dog3 name="fido" walker->Owner1"#,
            #"Dog4 breed="pug" name="rex" walker->Owner1"#,
            #"Owner1 name="ann" dogs->[Dog3,Dog4]"#,
        ])
        // Animal's objects keep their keys; every key of the hierarchy is unique, and new
        // objects get free ones.
        let coordinator = try fixture.open(M.kennelWithParent)
        let context = ManagedObjectContext(coordinator: coordinator)
        let animals = try context.all("Animal")
        #expect(animals.filter { $0.entity.name == "Animal" }.compactMap(\.objectID.primaryKey) == [1, 2])
        #expect(Set(animals.compactMap(\.objectID.primaryKey)).count == 4)
        let pig = try context.make("Animal", ["name": "pig"])
        let lassie = try context.make("Dog", ["name": "lassie"])
        try context.save()
        let keys = try ManagedObjectContext(coordinator: coordinator).all("Animal").compactMap(\.objectID.primaryKey)
        #expect(Set(keys).count == 6)
        #expect(Set(keys).isSuperset(of: [pig, lassie].compactMap(\.objectID.primaryKey)))
    }

    package func aParentRemovedKeepsEveryKey(kind: StoreKind) throws {
        let fixture = try MigrationFixture(kind, M.kennelWithParent, fill: Self.fillKennel(dogKeys: (3, 4)))
        let v3 = M.edit(M.kennelJSON, version: "3", [])
        try fixture.migrate([M.kennelWithParent, v3])
        #expect(try fixture.dump(v3) == [
            #"Animal1 name="cat""#,
            #"Animal2 name="cow""#,
            #"Dog3 breed="pug" name="rex" walker->Owner1"#,
            #"Dog4 name="fido" walker->Owner1"#,
            #"Owner1 name="ann" dogs->[Dog3,Dog4]"#,
        ])
    }

    // MARK: - Indexes and constraints

    package func anIndexChangeAloneLeavesTheStoreAsItIs(kind: StoreKind) throws {
        let v2 = M.moody("2", [(Self.level, #"{ "name": "level", "type": "int16", "default": 1, "indexed": true }"#)])
        #expect(v2.versionHash == M.moody.versionHash)
        let fixture = try Self.moody(kind)
        let before = try fixture.state()
        let report = try fixture.migrate([M.moody, v2])
        #expect(report.wasAlreadyCurrent)
        #expect(try fixture.state() == before)
        #expect(try fixture.dump(v2) == M.moodyLines)
    }

    package func anIndexChangeWithOtherChangesMigrates(kind: StoreKind) throws {
        let v2 = M.moody("2", [
            (#"{ "name": "Mood","#, #"{ "name": "Mood", "indexes": [ { "name": "byLevel", "elements": [ { "property": "level", "order": "descending" } ] } ],"#),
            (Self.colour, #"{ "name": "colour", "type": "string", "optional": true, "indexed": true }, { "name": "comment", "type": "string", "optional": true }"#),
        ])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        #expect(try fixture.dump(v2) == M.moodyLines)
        let context = ManagedObjectContext(coordinator: try fixture.open(v2))
        let sorted = try context.fetch(FetchRequest(entityName: "Mood", sortDescriptors: [FetchSortDescriptor("level", ascending: false)]))
        #expect(sorted.map { $0["name"] as? String } == ["calm", "sad", "glad"])
    }

    package func aUniquenessConstraintTheDataMeetsIsAdded(kind: StoreKind) throws {
        let v2 = M.moody("2", [(#"{ "name": "Tag","#, #"{ "name": "Tag", "uniquenessConstraints": [["name"]],"#)])
        let fixture = try Self.moody(kind)
        try fixture.migrate([M.moody, v2])
        #expect(try fixture.dump(v2) == M.moodyLines)
        let context = ManagedObjectContext(coordinator: try fixture.open(v2))
        try context.make("Tag", ["name": "home"])
        #expect(throws: StrataError.self) { try context.save() }
    }

    package func aUniquenessConstraintTheDataBreaksIsRefusedNamingTheDuplicates(kind: StoreKind) throws {
        // Calm (Mood 2) and glad (Mood 5) have the same owner.
        let v2 = M.moody("2", [(#"{ "name": "Mood","#, #"{ "name": "Mood", "uniquenessConstraints": [["owner"]],"#)])
        let fixture = try Self.moody(kind)
        let message = try fixture.expectRefusal([M.moody, v2])
        #expect(message.contains("Mood 5"), "\(message)")
        #expect(!message.contains("Mood 7"), "\(message)")
    }

    // MARK: - Types

    package func numbersWidenThroughStagedVersions(kind: StoreKind) throws {
        let v2 = M.moody("2", [
            (Self.level, #"{ "name": "level", "type": "int32", "default": 1 }"#),
            (Self.weight, #"{ "name": "weight", "type": "double", "optional": true }"#),
        ])
        let v3 = M.moody("3", [
            (Self.level, #"{ "name": "level", "type": "int64", "default": 1 }"#),
            (Self.weight, #"{ "name": "weight", "type": "double", "optional": true }"#),
        ])
        let fixture = try Self.moody(kind)
        let report = try fixture.migrate([M.moody, v2, v3])
        #expect(report.steps.count == 2)
        var expected = M.moodyLines
        // The float's own value, widened: not the nearest double to 0.1.
        expected[0] = #"Mood2 colour="green" level=32767 name="calm" note="quiet" weight=0.10000000149011612 owner->Person3 tags->[Tag1]"#
        #expect(try fixture.dump(v3) == expected)
        let context = ManagedObjectContext(coordinator: try fixture.open(v3))
        let calm = try #require(try context.all("Mood").first)
        #expect(calm.value(forKey: "weight", as: Double.self) == Double(Float(0.1)))
        #expect(calm.value(forKey: "level", as: Int64.self) == 32767)
    }

    /// Relies on the diff (``SchemaChangeDetector``) marking the type change not inferable: the
    /// plan refuses before any store is touched.
    package func anInt16ToStringChangeIsRefusedNamingTheProperty(kind: StoreKind) throws {
        let v2 = M.moody("2", [(Self.level, #"{ "name": "level", "type": "string", "default": "one" }"#)])
        let fixture = try Self.moody(kind)
        let message = try fixture.expectRefusal([M.moody, v2])
        #expect(message.contains("Mood.level"), "\(message)")
        #expect(try fixture.dump(M.moody) == M.moodyLines)
    }
}
