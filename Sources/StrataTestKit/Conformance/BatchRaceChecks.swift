import Foundation
import Strata
import Testing

/// A batch delete on SQLite of an entity with relationships reads the matching records
/// (fetchObjectIDs, wholeRecords) and saves the plan later, outside one transaction. Another
/// process's save in between must make it a merge conflict (retried), never a delete that
/// ignores what was saved meanwhile.
package struct BatchRaceChecks {
    package init() {}

    /// The steps of `BatchExecution.execute(.delete)`, with another coordinator's save (as
    /// another process's) between the read and the save.
    private func deleteWithSaveBetween(_ kind: StoreKind, entity: String, name: String, _ between: (PersistentStoreCoordinator) throws -> Void) throws -> (StoreFixture, Result<StoreBatchOutcome, StrataError>) {
        let fixture = try StoreFixture(kind, Models.deleteRules)
        let store = fixture.store
        try populate(fixture)
        let other = try fixture.reopen()
        let request = StoreFetchRequest(entityNames: [entity], predicate: try FetchPredicate(format: "name == %@", name))
        let plan = try BatchDeletePlan(
            matched: try store.fetchObjectIDs(request), schema: fixture.schema, fetchIDs: { (request) throws(StrataError) in try store.fetchObjectIDs(request) }
        ) { (ids) throws(StrataError) in
            try store.wholeRecords(for: ids)
        }
        try between(other)
        let outcome = Result { () throws(StrataError) in
            try BatchExecution.carryOut(plan) { (changes) throws(StrataError) in try store.saveChanges(changes).versions }
        }
        return (fixture, outcome)
    }

    private func populate(_ fixture: StoreFixture) throws {
        let context = fixture.context()
        let red = try context.make("Team", ["name": "red"])
        let p1 = try context.make("Player", ["name": "p1"])
        p1.setObject(red, forKey: "team")
        let owner = try context.make("Owner", ["name": "olga"])
        _ = owner
        _ = try context.make("Player", ["name": "free"])
        _ = try context.make("Pet", ["name": "rex"])
        try context.save()
    }

    /// nullify: a player who joined the team after the read must not be left pointing to a
    /// deleted team.
    package func aMemberAddedMeanwhileIsNotLeftDangling(_ kind: StoreKind) throws {
        let (fixture, outcome) = try deleteWithSaveBetween(kind, entity: "Team", name: "red") { other in
            let context = ManagedObjectContext(coordinator: other)
            let red = try #require(try context.all("Team").first)
            let free = try #require(try context.all("Player").first { ($0["name"] as? String) == "free" })
            free.setObject(red, forKey: "team")
            try context.save()
        }
        // Either the save was refused (a merge conflict: what the retry loop expects) or the
        // team is gone and nobody points to it.
        let context = ManagedObjectContext(coordinator: try fixture.reopen())
        let teams = try context.all("Team")
        let players = try context.all("Player")
        let outcomeText: String
        switch outcome {
        case .success: outcomeText = "deleted"
        case .failure(let error): outcomeText = "\(error.code)"
        }
        if teams.isEmpty {
            for player in players {
                // A dangling key: the player's team is an ID with no row.
                let team = player.object(forKey: "team")
                #expect(team == nil, "\(outcomeText): player \(player["name"] ?? "?") still points to the deleted team \(String(describing: team?.objectID))")
            }
        }
        #expect(outcomeText == "mergeConflict")
    }

    /// deny: a pet given to the owner after the read must make the delete refused.
    package func aDenyingMemberAddedMeanwhileRefusesTheDelete(_ kind: StoreKind) throws {
        let (fixture, outcome) = try deleteWithSaveBetween(kind, entity: "Owner", name: "olga") { other in
            let context = ManagedObjectContext(coordinator: other)
            let owner = try #require(try context.all("Owner").first)
            let rex = try #require(try context.all("Pet").first)
            rex.setObject(owner, forKey: "owner")
            try context.save()
        }
        let context = ManagedObjectContext(coordinator: try fixture.reopen())
        let owners = try context.all("Owner")
        let pets = try context.all("Pet")
        switch outcome {
        case .success: Issue.record("the owner was deleted though a pet (deny) was given to it meanwhile; owners left: \(owners.count), pet's owner: \(String(describing: pets.first?.object(forKey: "owner")?.objectID))")
        case .failure(let error): #expect(error.code == .mergeConflict)
        }
    }
}
