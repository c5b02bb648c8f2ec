import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// Readers fetch while one writer saves; every reader sees a whole save or none of it.
@Suite struct ConcurrencyTests {
    @Test func readersSeeWholeSavesWhileAWriterWrites() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let schema = try Fixtures.schema("People")
        let store = try SQLiteStore(url: directory.file("people.sqlite"), schema: schema)
        let batches = 40, batchSize = 25
        let identifier = store.metadata.storeIdentifier
        let all = StoreFetchRequest(entityNames: ["Person"])
        let evens = StoreFetchRequest(
            entityNames: ["Person"], predicate: .comparison(Comparison(.key("lastName"), .endsWith, .constant("even"))),
            sortDescriptors: [FetchSortDescriptor("firstName", ascending: false)], fetchLimit: 10)
        let observed = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for _ in 0..<batches {
                    let keys = try store.allocatePrimaryKeys(rootEntity: "Person", count: batchSize)
                    _ = try store.save(StoreChangeset(inserted: keys.map { key in
                        StoreRecord(
                            objectID: ObjectID(entityName: "Person", storeIdentifier: identifier, primaryKey: key),
                            attributes: ["firstName": .string("p\(key)"), "lastName": .string(key % 2 == 0 ? "even" : "odd")])
                    }))
                    await Task.yield()
                }
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var reads = 0
                    var last = 0
                    let deadline = ContinuousClock.now + .seconds(60)
                    while last < batches * batchSize {
                        guard ContinuousClock.now < deadline else {
                            Issue.record("the readers never saw every save")
                            break
                        }
                        // Tasks share a few threads: let the writer run.
                        await Task.yield()
                        let records = try store.fetch(all)
                        let count = try store.count(all)
                        // Whole saves only, and never going back.
                        #expect(records.count % batchSize == 0)
                        #expect(count >= records.count)
                        #expect(records.count >= last)
                        last = records.count
                        _ = try store.fetch(evens)
                        _ = try store.records(for: records.prefix(30).map(\.objectID))
                        reads += 1
                    }
                    return reads
                }
            }
            var reads = 0
            for try await count in group { reads += count }
            return reads
        }
        #expect(observed >= 4)
        #expect(try store.count(StoreFetchRequest(entityNames: ["Person"])) == batches * batchSize)
    }

    @Test func contextsOnSeveralTasksShareOneStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let schema = try Fixtures.schema("TodoList")
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: .withSQLite)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.file("todos.sqlite")))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let context = ManagedObjectContext(coordinator: coordinator)
                    for index in 0..<10 {
                        let todo = try context.insertObject(entityName: "Todo")
                        todo["title"] = "worker \(worker) todo \(index)"
                        todo["createdAt"] = Date(timeIntervalSinceReferenceDate: Double(index))
                        try context.save()
                        _ = try context.count(for: FetchRequest(entityName: "Todo"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        #expect(try context.count(for: FetchRequest(entityName: "Todo")) == 40)
    }
}
