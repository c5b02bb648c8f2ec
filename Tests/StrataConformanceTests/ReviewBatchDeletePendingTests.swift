import Foundation
import Strata
import Testing

/// Review: a batch delete run through a context that holds an unsaved object related to a
/// deleted one; the context's next save must not store a reference to an object that is gone.
@Suite struct ReviewBatchDeletePendingTests {
    @Test(arguments: StoreKind.all)
    func anUnsavedObjectDoesNotKeepAReferenceToADeletedOne(_ kind: StoreKind) throws {
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
        var dangling: [String] = []
        for stored in try fixture.store.fetch(StoreFetchRequest(entityNames: ["Player"])) {
            if let id = stored.toOne["team"], try fixture.store.records(for: [id])[id] == nil {
                dangling.append("\(stored.objectID) -> \(id)")
            }
        }
        #expect(dangling.isEmpty, "\(saved); teams: \(teams.count), players: \(players.count)")
    }
}

/// For comparison: the same with the team deleted by another context's save, merged.
@Suite struct ReviewContextDeletePendingTests {
    @Test(arguments: StoreKind.all)
    func anUnsavedObjectAfterAnotherContextsDelete(_ kind: StoreKind) throws {
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
        var dangling: [String] = []
        for stored in try fixture.store.fetch(StoreFetchRequest(entityNames: ["Player"])) {
            if let id = stored.toOne["team"], try fixture.store.records(for: [id])[id] == nil {
                dangling.append("\(stored.objectID) -> \(id)")
            }
        }
        #expect(dangling.isEmpty, "\(saved)")
    }
}
