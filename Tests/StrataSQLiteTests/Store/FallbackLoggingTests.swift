import Foundation
import Logging
import Strata
import StrataTestKit
import Synchronization
import Testing
@testable import StrataSQLite

/// A request SQL cannot express runs in memory, and the store says so in its log, with the
/// reason; a request SQL can express logs nothing.
@Suite struct FallbackLoggingTests {
    /// Keeps every message logged through it.
    final class Capture: Sendable {
        let messages = Mutex<[(Logger.Level, String)]>([])

        var logger: Logger {
            Logger(label: "test") { _ in Handler(capture: self) }
        }

        struct Handler: LogHandler {
            let capture: Capture
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                capture.messages.withLock { $0.append((event.level, "\(event.message)")) }
            }
        }
    }

    @Test func fallbacksAreLoggedWithTheirReason() throws {
        let capture = Capture()
        let schema = try LibraryFixture.schema()
        let store = try SQLiteStore(url: nil, schema: schema, logger: capture.logger)
        let graph = LibraryGraph(schema: schema, storeIdentifier: store.storeIdentifier, seed: 1, items: 10)
        _ = try store.save(StoreChangeset(inserted: graph.all))
        let item = schema.entity(named: "Item")!

        // In SQL: nothing logged.
        let counts = try DictionaryPlan(
            schema: schema, entity: item, properties: [.key("owner.name"), .count()], groupBy: ["owner.name"], having: nil, distinct: false, sortDescriptors: [])
        let rows = try store.fetchDictionaries(StoreDictionaryRequest(fetch: StoreFetchRequest(entityNames: ["Item", "SpecialItem"]), plan: counts))
        #expect(rows.map { $0["@count"] }.compactMap { if case .attribute(.integer(let n)?) = $0 { n } else { nil } }.reduce(0, +) == 10)
        #expect(capture.messages.withLock { $0.isEmpty })

        // A to-many relationship as a column: in memory, logged.
        let tags = try DictionaryPlan(schema: schema, entity: item, properties: [.key("tags")], groupBy: [], having: nil, distinct: false, sortDescriptors: [])
        let members = try store.fetchDictionaries(StoreDictionaryRequest(fetch: StoreFetchRequest(entityNames: ["Item", "SpecialItem"]), plan: tags))
        #expect(members.count == 10)
        #expect(capture.messages.withLock { $0.map(\.0) } == [.debug])
        #expect(capture.messages.withLock { $0.map(\.1) } == ["evaluating a fetch in memory: the to-many relationship tags as a column"])

        // Entities in two tables: in memory, logged.
        _ = try store.fetch(StoreFetchRequest(entityNames: ["Item", "Owner"]))
        #expect(capture.messages.withLock { $0.last?.1 } == "evaluating a fetch in memory: the entities are kept in several tables")
        #expect(store.inMemoryFallbacks.load(ordering: .relaxed) == 2)
    }
}
