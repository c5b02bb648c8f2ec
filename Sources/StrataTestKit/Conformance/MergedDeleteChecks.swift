import Foundation
import Strata
import Testing

/// The stored players whose team the store does not hold: `Player/p1 -> Team/p1`.
func danglingTeams(_ fixture: StoreFixture) throws -> [String] {
    var dangling: [String] = []
    for stored in try fixture.store.fetch(StoreFetchRequest(entityNames: ["Player"])) {
        if let id = stored.toOne["team"], try fixture.store.records(for: [id])[id] == nil {
            dangling.append("\(stored.objectID) -> \(id)")
        }
    }
    return dangling
}

/// A batch delete run through a context that holds an unsaved object related to a
/// deleted one; the context's next save must not store a reference to an object that is gone.
package struct BatchDeletePendingChecks {
    package init() {}

    package func anUnsavedObjectDoesNotKeepAReferenceToADeletedOne(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        let team = try context.make("Team", ["name": "red"])
        try context.save()
        let player = try context.make("Player", ["name": "new"])
        player.setObject(team, forKey: "team")  // unsaved

        let result = try context.execute(BatchDeleteRequest(entityName: "Team"))
        #expect(result.count == 1)
        let saved: String
        do { try context.save(); saved = "saved" } catch { saved = "\(error)" }

        // What the store holds now: the player, if saved, must not point to a team that is gone.
        let fresh = ManagedObjectContext(coordinator: fixture.coordinator)
        let teams = try fresh.all("Team")
        let players = try fresh.all("Player")
        let dangling = try danglingTeams(fixture)
        #expect(dangling.isEmpty, "\(saved); teams: \(teams.count), players: \(players.count)")
    }
}

/// The same with the team deleted by another context's save, merged.
package struct MergedDeletePendingChecks {
    package init() {}

    package func anUnsavedObjectAfterAnotherContextsDelete(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let context = fixture.context()
        context.automaticallyMergesChangesFromParent = true
        let team = try context.make("Team", ["name": "red"])
        try context.save()
        let player = try context.make("Player", ["name": "new"])
        player.setObject(team, forKey: "team")  // unsaved
        let other = fixture.context()
        other.delete(try other.existingObject(with: team.objectID))
        try other.save()
        context.perform {}
        let saved: String
        do { try context.save(); saved = "saved" } catch { saved = "\(error)" }
        let dangling = try danglingTeams(fixture)
        #expect(dangling.isEmpty, "\(saved)")
    }

    /// A relationship without an inverse (a person's mentor) to an object another save deleted.
    package func aReferenceWithoutAnInverseToAnObjectAnotherSaveDeleted(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.graph)
        let context = fixture.context()
        context.automaticallyMergesChangesFromParent = true
        let mentor = try context.make("Person", ["name": "ann"])
        try context.save()
        let pupil = try context.make("Person", ["name": "bob"])
        pupil.setObject(mentor, forKey: "mentor")
        let other = fixture.context()
        other.delete(try other.existingObject(with: mentor.objectID))
        try other.save()
        context.perform {}
        #expect(pupil.object(forKey: "mentor") == nil)
        try context.save()
        let stored = try fixture.store.fetch(StoreFetchRequest(entityNames: ["Person"]))
        #expect(stored.map { $0.attributes["name"] } == [.string("bob")])
        #expect(stored.first?.toOne["mentor"] == nil)
    }
}
