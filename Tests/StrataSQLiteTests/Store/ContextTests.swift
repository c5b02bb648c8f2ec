import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// The store under contexts: merge policies across two stacks on one file, batched results.
@Suite struct ContextTests {
    func stack(_ url: URL) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(schema: try Fixtures.schema("TodoList"), storeTypes: .withSQLite)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: url))
        return coordinator
    }

    /// Two stacks on one file; the first's context has saved a to-do, "Buy milk".
    func twoStacksWithATodo(_ url: URL) throws -> (second: PersistentStoreCoordinator, writer: ManagedObjectContext, todo: ManagedObject) {
        let first = try stack(url), second = try stack(url)
        let writer = ManagedObjectContext(coordinator: first)
        let todo = try writer.insertObject(entityName: "Todo")
        todo["title"] = "Buy milk"
        todo["createdAt"] = Date(timeIntervalSinceReferenceDate: 0)
        try writer.save()
        return (second, writer, todo)
    }

    @Test func mergePoliciesAcrossTwoStacksOnOneFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("todos.sqlite")
        let (second, writer, todo) = try twoStacksWithATodo(url)
        let id = todo.objectID

        // The second stack reads version 1; the first saves version 2.
        let reader = ManagedObjectContext(coordinator: second)
        let stale = try #require(try reader.fetch(FetchRequest(entityName: "Todo")).first)
        #expect(stale["title"] as? String == "Buy milk")
        todo["title"] = "Buy oat milk"
        try writer.save()

        stale["priority"] = Int64(4)
        let error = #expect(throws: StrataError.self) { try reader.save() }
        #expect(error?.code == .mergeConflict)
        #expect(error?.failures.map(\.objectID) == [id])
        #expect(reader.hasChanges)

        // Store-trump: what is stored wins and the conflicting change is dropped.
        reader.mergePolicy = .rollback
        try reader.save()
        #expect(stale["title"] as? String == "Buy oat milk")
        #expect(stale["priority"] as? Int64 == 0)

        // Object-trump: this context's values overwrite.
        let other = ManagedObjectContext(coordinator: second)
        let mine = try #require(try other.fetch(FetchRequest(entityName: "Todo")).first)
        todo["notes"] = "from the first stack"
        try writer.save()
        mine["priority"] = Int64(5)
        other.mergePolicy = .overwrite
        try other.save()
        let check = ManagedObjectContext(coordinator: try stack(url))
        let stored = try #require(try check.fetch(FetchRequest(entityName: "Todo")).first)
        #expect(stored["priority"] as? Int64 == 5)
        #expect(stored["title"] as? String == "Buy oat milk")
    }

    /// A fetch that reads a row another stack changed leaves no older copy of it to later
    /// reads of the same coordinator: an object read after the fetch has the fetched values.
    @Test func aFetchedRowIsWhatLaterReadsOfItSee() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (second, writer, todo) = try twoStacksWithATodo(directory.file("todos.sqlite"))
        let id = todo.objectID

        // The second stack reads the row (its row cache keeps it), then the first changes it.
        let early = ManagedObjectContext(coordinator: second)
        #expect(try early.existingObject(with: id)["title"] as? String == "Buy milk")
        todo["title"] = "Buy oat milk"
        try writer.save()

        let fetching = ManagedObjectContext(coordinator: second)
        let fetched = try #require(try fetching.fetch(FetchRequest(entityName: "Todo")).first)
        #expect(fetched["title"] as? String == "Buy oat milk")
        let later = ManagedObjectContext(coordinator: second)
        #expect(try later.existingObject(with: id)["title"] as? String == "Buy oat milk")
    }

    @Test func batchedResultsReadEveryObjectInOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let coordinator = try stack(directory.file("todos.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<1_000 {
            let todo = try context.insertObject(entityName: "Todo")
            todo["title"] = "todo \(index)"
            todo["createdAt"] = Date(timeIntervalSinceReferenceDate: Double(1_000 - index))
        }
        try context.save()
        let reader = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Todo", sortDescriptors: [FetchSortDescriptor("createdAt")])
        request.fetchBatchSize = 100
        let results = try reader.fetchResults(request)
        #expect(results.count == 1_000)
        #expect(results.batchSize == 100)
        #expect(results.map { $0["title"] as? String } == (0..<1_000).reversed().map { "todo \($0)" })
    }
}
