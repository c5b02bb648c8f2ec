import Foundation
import Strata
import Testing

/// Hierarchy changes whose migration depends on the data, on every store kind: a relationship
/// whose destination becomes a subentity, an entity that becomes abstract, a required to-one
/// whose objects go with a removed subentity. Every store refuses the same data, naming the
/// objects, and leaves the store byte-identical; the data that fits migrates alike.
package struct MigrationHierarchyChecks {
    package init() {}

    typealias M = MigrationModels

    /// Dogs are animals; an owner has a pet, any animal.
    static let zooJSON = """
    { "name": "Zoo", "version": "1", "entities": [
      { "name": "Animal",
        "attributes": [ { "name": "name", "type": "string" } ] },
      { "name": "Dog", "parent": "Animal",
        "attributes": [ { "name": "breed", "type": "string", "optional": true } ] },
      { "name": "Owner",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "pet", "destination": "Animal", "optional": true } ] }
    ] }
    """
    static let zoo = Models.load(zooJSON)
    static let pet = #"{ "name": "pet", "destination": "Animal", "optional": true }"#

    /// Owner 1 has the dog rex, owner 2 the cat when `catOwned`, owner 3 no pet.
    static func fill(catOwned: Bool) -> (ManagedObjectContext) throws -> Void {
        { context in
            let cat = try context.make("Animal", key: 1, ["name": "cat"])
            let rex = try context.make("Dog", key: 2, ["name": "rex", "breed": "pug"])
            try context.make("Owner", key: 1, ["name": "ann"]).setObject(rex, forKey: "pet")
            try context.make("Owner", key: 2, ["name": "bob"]).setObject(catOwned ? cat : nil, forKey: "pet")
            try context.make("Owner", key: 3, ["name": "cy"])
        }
    }

    /// The diff: "depends on the data: every object in Owner.pet is a Dog".
    static let petIsADog = M.edit(zooJSON, version: "2", [(pet, #"{ "name": "pet", "destination": "Dog", "optional": true }"#)])

    package func aDestinationNarrowedToASubentityIsRefusedNamingTheObjectsThatReferToOthers(kind: StoreKind) throws {
        let fixture = try MigrationFixture(kind, Self.zoo, fill: Self.fill(catOwned: true))
        let message = try fixture.expectRefusal([Self.zoo, Self.petIsADog])
        #expect(message.contains("Owner.pet now refers to Dog objects only"), "\(message)")
        #expect(message.contains("Owner 2 ("), "\(message)")
    }

    package func aDestinationNarrowedToASubentityMigratesWhenEveryObjectFits(kind: StoreKind) throws {
        let fixture = try MigrationFixture(kind, Self.zoo, fill: Self.fill(catOwned: false))
        try fixture.migrate([Self.zoo, Self.petIsADog])
        #expect(try fixture.dump(Self.petIsADog) == [
            #"Animal1 name="cat""#,
            #"Dog2 breed="pug" name="rex""#,
            #"Owner1 name="ann" pet->Dog2"#,
            #"Owner2 name="bob""#,
            #"Owner3 name="cy""#,
        ])
    }

    package func anEntityThatBecomesAbstractWhileItHasObjectsIsRefused(kind: StoreKind) throws {
        let abstract = M.edit(Self.zooJSON, version: "2", [(#"{ "name": "Animal","#, #"{ "name": "Animal", "abstract": true,"#)])
        let fixture = try MigrationFixture(kind, Self.zoo, fill: Self.fill(catOwned: true))
        let message = try fixture.expectRefusal([Self.zoo, abstract])
        #expect(message.contains("Animal becomes abstract"), "\(message)")
        #expect(message.contains("Animal 1 ("), "\(message)")
    }

    /// Removing Dog clears the references to dogs: a required to-one left without its object
    /// is refused (Core Data validates the migrated objects).
    package func aRequiredToOneWhoseObjectGoesWithARemovedSubentityIsRefused(kind: StoreKind) throws {
        let required = #"{ "name": "pet", "destination": "Animal" }"#
        let v1 = M.edit(Self.zooJSON, version: "1", [(Self.pet, required)])
        let withoutDog = Models.load(Self.zooJSON
            .replacingOccurrences(of: #""version": "1""#, with: #""version": "2""#)
            .replacingOccurrences(of: Self.pet, with: required)
            .replacingOccurrences(of: """
              { "name": "Dog", "parent": "Animal",
                "attributes": [ { "name": "breed", "type": "string", "optional": true } ] },

            """, with: ""))
        let fixture = try MigrationFixture(kind, v1, fill: { context in
            let cat = try context.make("Animal", key: 1, ["name": "cat"])
            let rex = try context.make("Dog", key: 2, ["name": "rex"])
            try context.make("Owner", key: 1, ["name": "ann"]).setObject(cat, forKey: "pet")
            try context.make("Owner", key: 2, ["name": "bob"]).setObject(rex, forKey: "pet")
        })
        let message = try fixture.expectRefusal([v1, withoutDog])
        #expect(message.contains("Owner.pet"), "\(message)")
        #expect(message.contains("Owner 2"), "\(message)")
        #expect(!message.contains("Owner 1"), "\(message)")
    }

    /// Dog gains Animal as its parent and with it Animal's required attribute, which dogs
    /// never had: nil in every dog, refused without a default, the default with one.
    package func aParentAddedBringsARequiredAttributeTheMovedObjectsLack(kind: StoreKind) throws {
        let separate = """
            { "name": "Pets", "version": "1", "entities": [
              { "name": "Animal", "attributes": [ { "name": "name", "type": "string" } ] },
              { "name": "Dog", "attributes": [ { "name": "breed", "type": "string", "optional": true } ] } ] }
            """
        let v1 = Models.load(separate)
        let fill: (ManagedObjectContext) throws -> Void = { context in
            try context.make("Animal", key: 1, ["name": "cat"])
            try context.make("Dog", key: 2, ["breed": "pug"])
        }
        let parent = (#"{ "name": "Dog", "attributes""#, #"{ "name": "Dog", "parent": "Animal", "attributes""#)
        let refused = try MigrationFixture(kind, v1, fill: fill)
        let message = try refused.expectRefusal([v1, M.edit(separate, version: "2", [parent])])
        #expect(message.contains(".name is required"), "\(message)")
        #expect(message.contains("Dog 2"), "\(message)")

        let withDefault = M.edit(separate, version: "2", [parent, (#""type": "string" }"#, #""type": "string", "default": "?" }"#)])
        let filled = try MigrationFixture(kind, v1, fill: fill)
        try filled.migrate([v1, withDefault])
        #expect(try filled.dump(withDefault) == [#"Animal1 name="cat""#, #"Dog2 breed="pug" name="?""#])
    }

    /// Dog gains `size` with a default (every row of the shared table may read it), then `size`
    /// moves up to Animal: dogs keep theirs, the animals and cats that gain it take Animal's
    /// default — not the dogs' default.
    package func anAttributeMovedUpToTheParentGivesTheEntitiesThatGainItTheDefault(kind: StoreKind) throws {
        let json = """
            { "name": "Up", "version": "1", "entities": [
              { "name": "Animal", "attributes": [ { "name": "name", "type": "string" }ANIMAL ] },
              { "name": "Dog", "parent": "Animal", "attributes": [ DOG ] },
              { "name": "Cat", "parent": "Animal", "attributes": [ { "name": "lives", "type": "int16", "default": 9 }CAT ] } ] }
            """
        let dogSize = #"{ "name": "size", "type": "int16", "default": 5 }"#
        let v1 = M.edit(json, version: "1", [("ANIMAL", ""), ("DOG", ""), ("CAT", "")])
        let v2 = M.edit(json, version: "2", [("ANIMAL", ""), ("DOG", dogSize), ("CAT", "")])
        let v3 = M.edit(json, version: "3", [("ANIMAL", #", { "name": "size", "type": "int16", "default": 7 }"#), ("DOG", ""), ("CAT", "")])
        let fill: (ManagedObjectContext) throws -> Void = { context in
            try context.make("Animal", key: 1, ["name": "a"])
            try context.make("Dog", key: 2, ["name": "d"])
            try context.make("Cat", key: 3, ["name": "c"])
        }
        let fixture = try MigrationFixture(kind, v1, fill: fill)
        try fixture.migrate([v1, v2, v3])
        #expect(try fixture.dump(v3) == [#"Animal1 name="a" size=7"#, #"Cat3 lives=9 name="c" size=7"#, #"Dog2 name="d" size=5"#])

        // Cat gains a `size` of its own without a default beside the dogs' (after the dogs'
        // came, and with them in one step): cats have none.
        let catSize = ("CAT", #", { "name": "size", "type": "int16", "optional": true }"#)
        let later = M.edit(json, version: "3", [("ANIMAL", ""), ("DOG", dogSize), catSize])
        let together = M.edit(json, version: "2", [("ANIMAL", ""), ("DOG", dogSize), catSize])
        let expected = [#"Animal1 name="a""#, #"Cat3 lives=9 name="c""#, #"Dog2 name="d" size=5"#]
        for versions in [[v1, v2, later], [v1, together]] {
            let siblings = try MigrationFixture(kind, v1, fill: fill)
            try siblings.migrate(versions)
            #expect(try siblings.dump(versions.last!) == expected)
        }
    }

    /// Cat's `weight` and `buddy` take the names of Dog's `size` and `pal`: in a table the
    /// siblings share, each keeps its own values.
    package func siblingsWhosePropertiesGetOneNameKeepTheirOwnValues(kind: StoreKind) throws {
        let json = """
            { "name": "Siblings", "version": "1", "entities": [
              { "name": "Animal", "attributes": [ { "name": "name", "type": "string" } ] },
              { "name": "Dog", "parent": "Animal", "attributes": [ { "name": "size", "type": "string", "optional": true } ],
                "relationships": [ { "name": "pal", "destination": "Animal", "optional": true } ] },
              { "name": "Cat", "parent": "Animal", "attributes": [ { "name": "weight", "type": "string", "optional": true } ],
                "relationships": [ { "name": "buddy", "destination": "Animal", "optional": true } ] } ] }
            """
        let v1 = Models.load(json)
        let v2 = M.edit(json, version: "2", [
            (#"{ "name": "weight","#, #"{ "name": "size", "renamingIdentifier": "weight","#),
            (#"{ "name": "buddy","#, #"{ "name": "pal", "renamingIdentifier": "buddy","#),
        ])
        let fixture = try MigrationFixture(kind, v1, fill: { context in
            let rex = try context.make("Dog", key: 1, ["name": "rex", "size": "big"])
            let tom = try context.make("Cat", key: 2, ["name": "tom", "weight": "Cafe\u{301}"])
            rex.setObject(tom, forKey: "pal")
            tom.setObject(rex, forKey: "buddy")
        })
        try fixture.migrate([v1, v2])
        #expect(try fixture.dump(v2) == [#"Cat2 name="tom" size="Cafe\#u{301}" pal->Dog1"#, #"Dog1 name="rex" size="big" pal->Cat2"#])
        let context = ManagedObjectContext(coordinator: try fixture.open(v2))
        let request = FetchRequest(entityName: "Cat", predicate: try FetchPredicate(format: "size == 'Caf\u{E9}'"))
        #expect(try context.fetch(request).count == 1)
    }
}

/// Keys when hierarchies merge: every store renumbers exactly the same objects to the same keys
/// (only the colliding ones, the hierarchies taken in the destination model's order; see also
/// `MigrationChecks.aParentAddedGivesTheMovedObjectsWhoseKeysCollideNewKeys`).
package struct MigrationMergedKeyChecks {
    package init() {}

    package func aNewRootKeepsTheKeysOfTheHierarchyFirstInTheModel(kind: StoreKind) throws {
        let v1 = Models.load("""
            { "name": "Items", "version": "1", "entities": [
              { "name": "Note", "attributes": [ { "name": "title", "type": "string" } ] },
              { "name": "Photo", "attributes": [ { "name": "title", "type": "string" } ] } ] }
            """)
        let v2 = Models.load("""
            { "name": "Items", "version": "2", "entities": [
              { "name": "Item", "abstract": true, "attributes": [ { "name": "title", "type": "string" } ] },
              { "name": "Photo", "parent": "Item" },
              { "name": "Note", "parent": "Item" } ] }
            """)
        let fixture = try MigrationFixture(kind, v1, fill: { context in
            try context.make("Note", key: 1, ["title": "n1"])
            try context.make("Note", key: 2, ["title": "n2"])
            try context.make("Photo", key: 1, ["title": "p1"])
        })
        try fixture.migrate([v1, v2])
        #expect(try fixture.dump(v2) == [#"Note2 title="n2""#, #"Note3 title="n1""#, #"Photo1 title="p1""#])
    }
}
