import Foundation
import Strata
import StrataPostgres

/// The load test's model and what it reads from the store before and after a run.
///
/// `Counter`s are what the workers fight over: each save increments some of them. Each save also
/// inserts one `Tick` (its worker, its sequence number, how many increments it made), whose key
/// names the save: the store ends up holding exactly the ticks of the committed saves, and each
/// worker's observer must have delivered every other worker's ticks. A worker's `Done` is its
/// last save; having received another worker's `Done` means having received all its saves
/// (history rows are delivered in commit order).
enum LoadModel {
    static let json = """
        { "name": "Load", "version": "1",
          "entities": [
            { "name": "Counter",
              "attributes": [ { "name": "index", "type": "int32" }, { "name": "value", "type": "int64", "default": 0 } ] },
            { "name": "Tick",
              "attributes": [ { "name": "worker", "type": "int32" }, { "name": "sequence", "type": "int64" },
                              { "name": "amount", "type": "int32" } ] },
            { "name": "Done",
              "attributes": [ { "name": "worker", "type": "int32" } ] }
          ] }
        """

    static func schema() throws -> Schema {
        try Schema(data: Data(json.utf8), file: "strata-pg-stress model")
    }

    static func coordinator(_ url: URL) throws -> (PersistentStoreCoordinator, PostgresStore) {
        let coordinator = PersistentStoreCoordinator(schema: try schema(), storeTypes: StoreTypeRegistry([PostgresStoreFactory()]))
        let store = try coordinator.addStore(StoreDescription(type: .postgres, url: url))
        guard let postgres = store as? PostgresStore else {
            throw StrataError(.invalidConfiguration, "'\(url)' is not a PostgreSQL store")
        }
        return (coordinator, postgres)
    }

    /// Creates the store at `url` (which must hold none) with `counters` counters at 0.
    static func prepare(_ url: URL, counters: Int) throws {
        let (coordinator, _) = try coordinator(url)
        let context = ManagedObjectContext(coordinator: coordinator)
        guard try context.count(for: FetchRequest(entityName: "Counter")) == 0 else {
            throw StrataError(.invalidConfiguration, "the store at '\(url)' holds counters already: the load test needs a store of its own")
        }
        for index in 0..<counters {
            let counter = try context.insertObject(entityName: "Counter")
            counter["index"] = Int32(index)
            counter["value"] = Int64(0)
        }
        try context.save()
    }

    /// What the store holds after a run.
    struct FinalState: Codable, Equatable {
        /// The sum of the counters' values.
        var counterSum: Int64
        /// The keys of every `Tick`.
        var ticks: Set<Int64>
        /// The sum of the ticks' amounts.
        var tickAmounts: Int64
        /// The workers of every `Done`.
        var done: [Int]
    }

    static func finalState(_ url: URL) throws -> FinalState {
        let (coordinator, _) = try coordinator(url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let counters = try context.fetch(FetchRequest(entityName: "Counter"))
        let ticks = try context.fetch(FetchRequest(entityName: "Tick"))
        let done = try context.fetch(FetchRequest(entityName: "Done", sortDescriptors: [FetchSortDescriptor("worker")]))
        return FinalState(
            counterSum: counters.reduce(0) { $0 + integer($1, "value") },
            ticks: Set(ticks.compactMap(\.objectID.primaryKey)),
            tickAmounts: ticks.reduce(0) { $0 + integer($1, "amount") },
            done: done.map { Int(integer($0, "worker")) })
    }

    /// An integer attribute's value (every integer type reads as `Int64`); a missing one is a
    /// bug of the tool, which must not pass for a count.
    static func integer(_ object: ManagedObject, _ key: String) -> Int64 {
        guard let value = object[key] as? Int64 else { preconditionFailure("\(object.objectID).\(key) is not an integer: \(String(describing: object[key]))") }
        return value
    }
}
