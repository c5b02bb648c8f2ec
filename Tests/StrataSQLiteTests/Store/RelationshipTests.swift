import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Both sides of every relationship kind, lazy to-many loading, and incremental updates.
@Suite struct RelationshipTests {
    let schema: Schema
    let store: SQLiteStore
    let graph: LibraryGraph

    init() throws {
        schema = try LibraryFixture.schema()
        store = try SQLiteStore(url: nil, schema: schema)
        graph = LibraryGraph(schema: schema, storeIdentifier: store.metadata.storeIdentifier, seed: 42, items: 30)
        _ = try store.save(StoreChangeset(inserted: graph.all))
    }

    func related(_ id: ObjectID, _ key: String) throws -> [ObjectID] {
        try store.relatedObjectIDs(of: id, relationship: key)
    }

    @Test func recordsComeBackWithToOnesAndLazyToManys() throws {
        let records = try store.records(for: graph.all.map(\.objectID))
        #expect(records.count == graph.all.count)
        for expected in graph.all {
            let actual = try #require(records[expected.objectID])
            #expect(actual.attributes == expected.attributes)
            #expect(actual.toOne == expected.toOne)
            #expect(actual.toMany == [:])
            let entity = schema.entity(named: expected.objectID.entityName)!
            #expect(actual.lazyToMany == Set(entity.relationships.filter(\.isToMany).map(\.name)))
            for relationship in entity.relationships where relationship.isToMany {
                // Unordered members come in key order (as generated); ordered ones in their order.
                #expect(try related(expected.objectID, relationship.name) == (expected.toMany[relationship.name] ?? []), "\(expected.objectID).\(relationship.name)")
            }
        }
    }

    /// D3: `A.b_c` and `A_b.c` had one join table, `A_b_c`, so linking `A` 1 to `X` 1 linked
    /// `A_b` 1 to `Y` 1 as well. Their tables are now `"A.b_c"` and `"A_b.c"`.
    @Test func relationshipsWhoseNamesJoinAlikeKeepTheirOwnJoinTables() throws {
        let schema = try Fixtures.joinNameClash()
        #expect(SQLiteStoreFactory().unsupportedFeatures(of: schema, configurationName: nil) == [])
        let store = try SQLiteStore(url: nil, schema: schema)
        func id(_ entity: String) -> ObjectID { ObjectID(entityName: entity, storeIdentifier: store.storeIdentifier, primaryKey: 1) }
        _ = try store.save(StoreChangeset(inserted: [
            StoreRecord(objectID: id("A"), toMany: ["b_c": [id("X")]]),
            StoreRecord(objectID: id("A_b"), toMany: ["c": []]),
            StoreRecord(objectID: id("X"), toMany: ["owners": [id("A")]]),
            StoreRecord(objectID: id("Y"), toMany: ["owners": []]),
        ]))
        #expect(try store.relatedObjectIDs(of: id("A"), relationship: "b_c") == [id("X")])
        #expect(try store.relatedObjectIDs(of: id("X"), relationship: "owners") == [id("A")])
        #expect(try store.relatedObjectIDs(of: id("A_b"), relationship: "c") == [])
        #expect(try store.relatedObjectIDs(of: id("Y"), relationship: "owners") == [])
        let tables = try store.rawQuery("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'A%' ORDER BY name", []).map { $0["name"] }
        #expect(tables == [.string("A"), .string("A.b_c"), .string("A_b"), .string("A_b.c")])
    }

    @Test func recordsForIgnoresWhatTheStoreDoesNotHold() throws {
        let item = graph.items[0].objectID
        let wrongEntity = ObjectID(entityName: item.entityName == "Item" ? "SpecialItem" : "Item", storeIdentifier: store.metadata.storeIdentifier, primaryKey: item.primaryKey!)
        let otherStore = ObjectID(entityName: item.entityName, storeIdentifier: "elsewhere", primaryKey: item.primaryKey!)
        let missing = ObjectID(entityName: "Item", storeIdentifier: store.metadata.storeIdentifier, primaryKey: 9_999)
        #expect(Array(try store.records(for: [item, wrongEntity, otherStore, missing, item]).keys) == [item])
        // Batches of every size.
        let ids = graph.items.map(\.objectID) + graph.parts.map(\.objectID)
        #expect(try store.records(for: ids).count == ids.count)
    }

    @Test func updatesChangeOnlyWhatDiffers() throws {
        var item = try #require(try store.records(for: [graph.items[0].objectID]).values.first)
        let tags = graph.tags.prefix(3).map(\.objectID)
        let parts = graph.parts.prefix(4).map(\.objectID).reversed() as [ObjectID]
        item.lazyToMany = []
        item.toMany = ["tags": tags, "parts": parts, "related": [graph.items[1].objectID]]
        _ = try store.save(StoreChangeset(updated: [item]))
        #expect(try related(item.objectID, "tags") == tags)
        #expect(try related(item.objectID, "parts") == parts)
        #expect(try related(item.objectID, "related") == [graph.items[1].objectID])
        // The other sides follow: a tag lists the item, a part points at it.
        #expect(try related(tags[0], "items").contains(item.objectID))
        #expect(try store.records(for: [parts[0]])[parts[0]]?.toOne["item"] == item.objectID)
        // A record that leaves a relationship lazy leaves it alone.
        var untouched = item
        untouched.version = 2
        untouched.toMany = [:]
        untouched.lazyToMany = ["tags", "parts", "related"]
        untouched.attributes["name"] = .string("renamed")
        _ = try store.save(StoreChangeset(updated: [untouched]))
        #expect(try related(item.objectID, "tags") == tags)
        #expect(try related(item.objectID, "parts") == parts)
        // Emptying them.
        var emptied = untouched
        emptied.version = 3
        emptied.lazyToMany = []
        _ = try store.save(StoreChangeset(updated: [emptied]))
        #expect(try related(item.objectID, "tags") == [])
        #expect(try related(item.objectID, "parts") == [])
        #expect(try store.records(for: [parts[0]])[parts[0]]?.toOne["item"] == nil)
    }

    /// A many-to-many row is written by the side owning the join table (`Item.tags`) when that
    /// side's record in the same save lists it, else by the other side: records listing only
    /// one side, or an update whose changed keys leave the relationship out, still get their rows.
    @Test func joinRowsListedOnEitherSideOfOneSaveAreWritten() throws {
        let store = try SQLiteStore(url: nil, schema: schema)
        func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entityName: entity, storeIdentifier: store.storeIdentifier, primaryKey: key) }
        func related(_ id: ObjectID, _ key: String) throws -> [ObjectID] { try store.relatedObjectIDs(of: id, relationship: key) }
        _ = try store.save(StoreChangeset(inserted: [
            StoreRecord(objectID: id("Item", 1), toMany: ["tags": []]),
            StoreRecord(objectID: id("Item", 2), toMany: ["tags": [id("Tag", 2)]]),
            StoreRecord(objectID: id("Item", 3), toMany: ["tags": [id("Tag", 3)]]),
            StoreRecord(objectID: id("Tag", 1), toMany: ["items": [id("Item", 1)]]),
            StoreRecord(objectID: id("Tag", 2), toMany: ["items": [id("Item", 2)]]),
            StoreRecord(objectID: id("Tag", 3), toMany: ["items": []]),
        ]))
        #expect(try related(id("Item", 1), "tags") == [id("Tag", 1)])
        #expect(try related(id("Item", 2), "tags") == [id("Tag", 2)])
        #expect(try related(id("Item", 3), "tags") == [id("Tag", 3)])
        #expect(try store.rawQuery("SELECT count(*) AS n FROM \"Item.tags\"", []).first?["n"] == .integer(3))
        // Tag 1 adds Item 2, whose record lists Tag 1 but names only its name as changed: the
        // item does not write its tags, so the tag writes the row.
        var changes = StoreChangeset(updated: [
            StoreRecord(objectID: id("Tag", 1), toMany: ["items": [id("Item", 1), id("Item", 2)]], version: 1),
            StoreRecord(objectID: id("Item", 2), attributes: ["name": .string("two")], toMany: ["tags": [id("Tag", 2), id("Tag", 1)]], version: 1),
        ])
        changes.changedKeys = [["items"], ["name"]]
        _ = try store.save(changes)
        #expect(try related(id("Item", 2), "tags") == [id("Tag", 1), id("Tag", 2)])
        #expect(try related(id("Tag", 1), "items") == [id("Item", 1), id("Item", 2)])
        // A to-many left out of the changed keys is not written, even when the record differs.
        changes = StoreChangeset(updated: [StoreRecord(objectID: id("Item", 3), toMany: ["tags": []], version: 1)])
        changes.changedKeys = [["name"]]
        _ = try store.save(changes)
        #expect(try related(id("Item", 3), "tags") == [id("Tag", 3)])
        changes.updated[0].version = 2
        changes.changedKeys = [["tags"]]
        _ = try store.save(changes)
        #expect(try related(id("Item", 3), "tags") == [])
    }

    /// Members of an ordered to-many kept by their foreign key (`Item.parts`) inserted with
    /// their owner, or added to an updated one, get their position with their row; members
    /// listed twice, or pointing elsewhere, end as before (the owner's write wins).
    @Test func orderedMembersInsertedInTheSaveOfTheirOwnerKeepTheirOrder() throws {
        let store = try SQLiteStore(url: nil, schema: schema)
        func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entityName: entity, storeIdentifier: store.storeIdentifier, primaryKey: key) }
        func part(_ key: Int64, of item: Int64?) -> StoreRecord {
            StoreRecord(objectID: id("Part", key), toOne: item.map { ["item": id("Item", $0)] } ?? [:])
        }
        func order() throws -> [String] {
            try store.rawQuery("SELECT _pk || ':' || coalesce(item, '-') || ':' || coalesce(_item_order, '-') AS r FROM Part ORDER BY _pk", []).map { row in
                if case .string(let text)?? = row["r"] { return text }
                return "?"
            }
        }
        // Parts 1-3 in Item 1 (listed 3, 1, 2); part 4 listed by both items; part 5 in Item 2's
        // list but pointing at Item 1; part 6 pointing at Item 2, listed by no one.
        _ = try store.save(StoreChangeset(inserted: [
            part(1, of: 1), part(2, of: 1), part(3, of: 1), part(4, of: 2), part(5, of: 1), part(6, of: 2),
            StoreRecord(objectID: id("Item", 1), toMany: ["parts": [id("Part", 3), id("Part", 1), id("Part", 2), id("Part", 4)]]),
            StoreRecord(objectID: id("Item", 2), toMany: ["parts": [id("Part", 4), id("Part", 5)]]),
        ]))
        #expect(try related(id("Item", 1), "parts", in: store) == [id("Part", 3), id("Part", 1), id("Part", 2)])
        // Part 6 has no position: it sorts first.
        #expect(try related(id("Item", 2), "parts", in: store) == [id("Part", 6), id("Part", 4), id("Part", 5)])
        #expect(try order() == ["1:1:1", "2:1:2", "3:1:0", "4:2:0", "5:2:1", "6:2:-"])
        // Parts inserted into an updated item, at its front.
        _ = try store.save(StoreChangeset(
            inserted: [part(7, of: 1)],
            updated: [StoreRecord(objectID: id("Item", 1), toMany: ["parts": [id("Part", 7), id("Part", 3), id("Part", 1), id("Part", 2)]], version: 1)]))
        #expect(try related(id("Item", 1), "parts", in: store) == [id("Part", 7), id("Part", 3), id("Part", 1), id("Part", 2)])
        #expect(try order().prefix(3) == ["1:1:2", "2:1:3", "3:1:1"])
        #expect(try order().last == "7:1:0")
    }

    func related(_ id: ObjectID, _ key: String, in store: SQLiteStore) throws -> [ObjectID] {
        try store.relatedObjectIDs(of: id, relationship: key)
    }

    @Test func deletingAnObjectRemovesItsJoinRows() throws {
        let tag = try #require(graph.tags.first { !($0.toMany["items"] ?? []).isEmpty })
        let member = tag.toMany["items"]![0]
        _ = try store.save(StoreChangeset(deleted: [(tag.objectID, 1)]))
        #expect(try !related(member, "tags").contains(tag.objectID))
        #expect(try store.rawQuery("SELECT count(*) AS n FROM \"Item.tags\" WHERE destination = ?", [.integer(tag.objectID.primaryKey!)]).first?["n"] == .integer(0))
    }

    @Test func contextsLoadToManyRelationshipsOnFirstUse() throws {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("library.sqlite")
        do {
            let store = try SQLiteStore(url: url, schema: schema)
            let graph = LibraryGraph(schema: schema, storeIdentifier: store.metadata.storeIdentifier, seed: 7, items: 20)
            _ = try store.save(StoreChangeset(inserted: graph.all))
        }
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Item", sortDescriptors: [FetchSortDescriptor("count")])
        let items = try context.fetch(request)
        #expect(items.count == 20)
        let withParts = try #require(items.first { !$0.objects(forKey: "parts").isEmpty })
        let part = withParts.objects(forKey: "parts")[0]
        #expect(part.object(forKey: "item") === withParts)
        // Changing a lazily loaded relationship in a context and saving it.
        withParts.removeObject(part, forKey: "parts")
        try context.save()
        let other = ManagedObjectContext(coordinator: coordinator)
        let again = try other.fetch(FetchRequest(entityName: "Part", predicate: .comparison(Comparison(.evaluatedObject, .equal, .constant(.object(part.objectID))))))
        #expect(again.first?.object(forKey: "item") == nil)
    }
}
