import Foundation
import Strata
import Testing

package struct DeleteRuleChecks {
    package init() {}

    package func cascadeFollowsChainsThroughToManyAndToOne(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        let doomed = try context.make("Parent", ["name": "doomed"])
        let kept = try context.make("Parent", ["name": "kept"])
        var doomedObjects: [ManagedObject] = [doomed]
        for name in ["c1", "c2"] {
            let child = try context.make("Child", ["name": name])
            child.setObject(doomed, forKey: "parent")
            let diary = try context.make("Diary", ["name": "diary-\(name)"])
            child.setObject(diary, forKey: "diary")
            doomedObjects += [child, diary]
            for toy in ["ball", "kite"] {
                let object = try context.make("Toy", ["name": "\(toy)-\(name)"])
                object.setObject(child, forKey: "child")
                doomedObjects.append(object)
            }
        }
        let survivor = try context.make("Child", ["name": "c3"])
        survivor.setObject(kept, forKey: "parent")
        let survivorToy = try context.make("Toy", ["name": "ball-c3"])
        survivorToy.setObject(survivor, forKey: "child")
        try context.save()
        #expect(try fixture.snapshot().objects.count == 12)

        context.delete(doomed)
        #expect(doomedObjects.allSatisfy { $0.isDeleted })
        #expect(context.deletedObjects == Set(doomedObjects))
        #expect(![kept, survivor, survivorToy].contains { $0.isDeleted })
        try context.save()
        let doomedIDs = Set(doomedObjects.map(\.objectID))
        try fixture.verifyStored { context throws in
            #expect(try context.all("Parent").map(\.objectID) == [kept.objectID])
            #expect(try context.all("Child").map(\.objectID) == [survivor.objectID])
            #expect(try context.all("Toy").map(\.objectID) == [survivorToy.objectID])
            #expect(try context.all("Diary").isEmpty)
            for id in doomedIDs { expectError(.objectNotFound) { _ = try context.existingObject(with: id) } }
        }
        #expect(Set(try fixture.snapshot().objects.keys) == [kept.objectID, survivor.objectID, survivorToy.objectID])
    }

    package func nullifyRemovesTheDeletedObjectFromTheInverse(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        let red = try context.make("Team", ["name": "red"])
        let blue = try context.make("Team", ["name": "blue"])
        let players = try ["p1", "p2", "p3"].map { try context.make("Player", ["name": $0]) }
        red.setObjects([players[0], players[1]], forKey: "players")
        blue.setObjects([players[2]], forKey: "players")
        try context.save()

        context.delete(red)
        context.delete(players[2])
        #expect(players[0].object(forKey: "team") == nil)
        #expect(blue.objects(forKey: "players").isEmpty)
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Team").map { $0.sortedNames("players") } == [[]])
            #expect(try context.all("Player").map { $0.name("team") } == [nil, nil])
        }
        let stored = try fixture.snapshot()
        #expect(stored.objects[players[0].objectID] == StoreSnapshot.Entry(attributes: ["name": .string("p1")], toOne: [:], toMany: [:]))
        #expect(stored.objects[blue.objectID] == StoreSnapshot.Entry(attributes: ["name": .string("blue")], toOne: [:], toMany: [:]))
    }

    package func denyFailsTheSaveAndChangesNothing(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        let owner = try context.make("Owner", ["name": "o"])
        let licensed = try context.make("Owner", ["name": "l"])
        let pets = try ["rex", "tom"].map { try context.make("Pet", ["name": $0]) }
        owner.setObjects(pets, forKey: "pets")
        let licence = try context.make("Licence", ["name": "L1"])
        licensed.setObject(licence, forKey: "licence")
        try context.save()
        let before = try fixture.snapshot()

        context.delete(owner)
        context.delete(licensed)
        pets[0]["name"] = "rex2"
        let error = expectError(.validationFailed) { try context.save() }
        #expect(error?.failureSet == [
            Failure(.deleteDenied, owner.objectID, "pets"),
            Failure(.deleteDenied, licensed.objectID, "licence"),
        ])
        #expect(try fixture.snapshot() == before)
        #expect(context.hasChanges)
        #expect(context.deletedObjects == [owner, licensed])
        #expect(context.updatedObjects == [pets[0]])
        #expect(pets[0]["name"] as? String == "rex2")
        try fixture.verifyStored { context throws in
            #expect(try context.all("Owner").map(\.objectID) == [licensed.objectID, owner.objectID])
            #expect(try context.all("Pet").map { $0["name"] as? String } == ["rex", "tom"])
        }

        // With the destinations deleted too, the save goes through.
        for pet in pets { context.delete(pet) }
        context.delete(licence)
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Owner").isEmpty)
            #expect(try context.all("Pet").isEmpty)
            #expect(try context.all("Licence").isEmpty)
        }
    }

    package func noActionLeavesTheInverseAsItWas(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        let folder = try context.make("Folder", ["name": "f"])
        let notes = try ["n1", "n2"].map { try context.make("Note", ["name": $0]) }
        folder.setObjects(notes, forKey: "notes")
        try context.save()

        context.delete(folder)
        #expect(!notes.contains { $0.isDeleted })
        #expect(notes.allSatisfy { !$0.hasChanges })
        try context.save()
        try fixture.verifyStored { context throws in
            #expect(try context.all("Folder").isEmpty)
            #expect(try context.all("Note").map(\.objectID) == notes.map(\.objectID))
        }
        // The notes' stored records still name the deleted folder: nothing touched them.
        let stored = try fixture.snapshot()
        #expect(notes.map { stored.objects[$0.objectID]?.toOne["folder"] } == [folder.objectID, folder.objectID])
    }
}
