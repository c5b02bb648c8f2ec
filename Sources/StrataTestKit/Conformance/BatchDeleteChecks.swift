import Foundation
import Strata
import Testing

/// Batch deletes (``BatchDeleteRequest``) on every store: delete rules applied as a context's
/// delete applies them (Core Data's batch delete ignores them), all-or-nothing.
package struct BatchDeleteChecks {
    package init() {}

    package func cascadeFollowsChainsAndIsCountedApart(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        let doomed = try context.make("Parent", ["name": "doomed"])
        let kept = try context.make("Parent", ["name": "kept"])
        var cascaded: [ManagedObject] = []
        for name in ["c1", "c2"] {
            let child = try context.make("Child", ["name": name])
            child.setObject(doomed, forKey: "parent")
            let diary = try context.make("Diary", ["name": "diary-\(name)"])
            child.setObject(diary, forKey: "diary")
            let toy = try context.make("Toy", ["name": "toy-\(name)"])
            toy.setObject(child, forKey: "child")
            cascaded += [child, diary, toy]
        }
        let survivor = try context.make("Child", ["name": "c3"])
        survivor.setObject(kept, forKey: "parent")
        try context.save()

        let result = try fixture.coordinator.execute(BatchDeleteRequest(entityName: "Parent", predicate: try FetchPredicate(format: "name == 'doomed'"), resultType: .objectIDs))
        #expect(result.count == 1)
        #expect(result.objectIDs == [doomed.objectID])
        #expect(result.cascadedCount == 6)
        #expect(Set(result.cascadedObjectIDs) == Set(cascaded.map(\.objectID)))
        #expect(Set(try fixture.snapshot().objects.keys) == [kept.objectID, survivor.objectID])
        try fixture.verifyStored { context throws in
            #expect(try context.all("Parent").map { $0.sortedNames("children") } == [["c3"]])
        }
    }

    package func nullifyRemovesTheDeletedObjectsFromTheInverseAndContextsMerge(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        let red = try context.make("Team", ["name": "red"])
        let blue = try context.make("Team", ["name": "blue"])
        let players = try ["p1", "p2", "p3"].map { try context.make("Player", ["name": $0]) }
        red.setObjects([players[0], players[1]], forKey: "players")
        blue.setObjects([players[2]], forKey: "players")
        try context.save()
        let versions = try fixture.store.records(for: players.map(\.objectID)).mapValues(\.version)

        let watching = fixture.context()
        watching.automaticallyMergesChangesFromParent = true
        let watchedRed = try watching.existingObject(with: red.objectID)
        let watchedPlayer = try watching.existingObject(with: players[0].objectID)
        #expect(watchedPlayer.name("team") == "red")

        let result = try fixture.coordinator.execute(BatchDeleteRequest(entityName: "Team", predicate: try FetchPredicate(format: "name == 'red'")))
        #expect(result.count == 1)
        #expect(result.cascadedCount == 0)
        let stored = try fixture.store.records(for: players.map(\.objectID))
        #expect(stored[players[0].objectID]?.toOne == [:])
        #expect(stored[players[2].objectID]?.toOne == ["team": blue.objectID])
        // The nullified players were saved: their versions moved on, the untouched one's not.
        #expect(players.map { stored[$0.objectID]!.version - versions[$0.objectID]! } == [1, 1, 0])
        watching.perform {}
        #expect(watchedRed.isDeleted)
        #expect(watchedPlayer.object(forKey: "team") == nil)
        try fixture.verifyStored { context throws in
            #expect(try context.all("Player").map { $0.name("team") } == [nil, nil, "blue"])
        }
    }

    package func denyAndBrokenRulesOfTheInversesRefuseEverything(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        let owner = try context.make("Owner", ["name": "o"])
        try context.make("Owner", ["name": "free"])
        let pets = try ["rex", "tom"].map { try context.make("Pet", ["name": $0]) }
        owner.setObjects(pets, forKey: "pets")
        try context.save()
        let before = try fixture.snapshot()
        let error = expectError(.validationFailed) {
            _ = try fixture.coordinator.execute(BatchDeleteRequest(entityName: "Owner"))
        }
        #expect(error?.description == """
            the save was refused: 1 problem found; nothing was written
              \(owner.objectID).pets: cannot delete \(owner.objectID) while it has 2 Pet objects (delete rule deny); remove or delete them first
            """)
        #expect(try fixture.snapshot() == before)

        // minCount of a nullified inverse.
        let kits = try StoreFixture(kind, Models.validation)
        let kitContext = kits.context()
        let kit = try kitContext.make("Kit", ["name": "k"])
        let parts = try ["a", "b", "c"].map { try kitContext.make("Part", ["name": $0]) }
        kit.setObjects(parts, forKey: "parts")
        try kitContext.save()
        #expect(try kits.coordinator.execute(BatchDeleteRequest(entityName: "Part", predicate: try FetchPredicate(format: "name == 'c'"))).count == 1)
        let kitsBefore = try kits.snapshot()
        let tooFew = expectError(.validationFailed) {
            _ = try kits.coordinator.execute(BatchDeleteRequest(entityName: "Part", predicate: try FetchPredicate(format: "name == 'a'")))
        }
        #expect(tooFew?.failureSet == [Failure(.tooFewObjects, kit.objectID, "parts")])
        #expect(try kits.snapshot() == kitsBefore)
    }

    /// An entity without relationships: on SQLite, one DELETE statement.
    package func anEntityWithoutRelationships(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.allTypes)
        let samples = try fixture.coordinator.execute(BatchInsertRequest(
            entityName: "Sample", objects: (1...10).map { ["label": "s\($0)", "int32": $0, "string": ($0.isMultiple(of: 2) ? "even" : nil) as Any] }, resultType: .objectIDs)).objectIDs
        let result = try fixture.coordinator.execute(BatchDeleteRequest(entityName: "Sample", predicate: try FetchPredicate(format: "int32 > 3 AND string == 'even'"), resultType: .objectIDs))
        #expect(result.objectIDs == [samples[3], samples[5], samples[7], samples[9]])
        #expect(result.cascadedCount == 0)
        try fixture.verifyStored { context throws in
            #expect(try context.all("Sample", by: "int32").map { $0.attribute("int32") } == [1, 2, 3, 5, 7, 9].map { .integer($0) })
        }
    }

    package func throughSubentities(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.inheritance)
        let context = fixture.context()
        let documents = try (1...4).map { try context.make("Document", ["title": "d\($0)", "pages": $0]) }
        let scanned = try context.make("ScannedDocument", ["title": "s", "pages": 10])
        let photo = try context.make("Photo", ["title": "p"])
        try context.save()
        let watching = fixture.context()
        watching.automaticallyMergesChangesFromParent = true
        let watched = try watching.existingObject(with: documents[3].objectID)

        let result = try fixture.coordinator.execute(BatchDeleteRequest(entityName: "Asset", predicate: try FetchPredicate(format: "title != 'p' AND title != 'd1'"), resultType: .objectIDs))
        #expect(result.objectIDs == [documents[1], documents[2], documents[3], scanned].map(\.objectID).sorted())
        #expect(Set(try fixture.snapshot().objects.keys) == [documents[0].objectID, photo.objectID])
        watching.perform {}
        #expect(watched.isDeleted)
        // Nothing matches: nothing changes.
        let before = try fixture.snapshot()
        #expect(try fixture.coordinator.execute(BatchDeleteRequest(entityName: "Photo", predicate: try FetchPredicate(format: "width > 100"))).count == 0)
        #expect(try fixture.snapshot() == before)
        try fixture.verifyStored { context throws in
            #expect(try context.all("Asset", by: "title").map { $0["title"] as? String } == ["d1", "p"])
        }
    }
}
