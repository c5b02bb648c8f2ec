import Foundation
import Strata
import Testing

/// Two processes (here two coordinators, each with its own store instance on one file)
/// inserting into one store. A context's insert rebases onto the other's save (fresh keys); a
/// batch insert must not fail where a context's insert of the same objects succeeds.
package struct BatchInsertConcurrencyChecks {
    package init() {}

    package func aBatchInsertAfterAnotherProcessInsertedSucceedsAsAContextInsertDoes(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        let other = try fixture.reopen()
        // The other process inserts first.
        _ = try other.execute(BatchInsertRequest(entityName: "Book", objects: [["title": "Emma"]]))

        // A context's insert here succeeds: its key is handed out again on rebasing.
        let viaContext = try StoreFixture(kind, Models.catalog)
        let otherOfContext = try viaContext.reopen()
        _ = try otherOfContext.execute(BatchInsertRequest(entityName: "Book", objects: [["title": "Emma"]]))
        let context = viaContext.context()
        _ = try context.make("Book", ["title": "Persuasion"])
        try context.save()

        // The same insert as a batch insert.
        let result: String
        do {
            let inserted = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Book", objects: [["title": "Persuasion"]], resultType: .objectIDs))
            result = "inserted \(inserted.objectIDs.map { $0.primaryKey ?? -1 })"
        } catch {
            result = "\(error)"
        }
        #expect(result == "inserted [2]")
        let titles = try ManagedObjectContext(coordinator: try fixture.reopen()).all("Book", by: "title").map { $0["title"] as? String }
        #expect(titles == ["Emma", "Persuasion"])
    }
}
