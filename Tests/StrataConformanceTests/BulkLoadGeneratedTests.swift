import Foundation
import Strata
import StrataTestKit
import Testing

/// `DataImporter.save()` against the context path on generated loads: every kind of
/// relationship of one hierarchy (a to-one with a to-many inverse, ordered; a to-one and a
/// to-many that are their own inverses; a many-to-many given from either side or both; a
/// subentity's relationships; a to-many with a maximum), each given or not, agreeing or not,
/// with members named twice, null to-ones, and sections in any order. Both paths must store the
/// same objects or refuse with the same errors.
@Suite struct BulkLoadGeneratedTests {
    static let model = Models.load("""
    { "name": "Fuzz", "entities": [
      { "name": "Node",
        "attributes": [ { "name": "name", "type": "string", "optional": true } ],
        "relationships": [
          { "name": "parent", "destination": "Node", "inverse": "children", "optional": true },
          { "name": "children", "destination": "Node", "inverse": "parent", "toMany": true, "ordered": true },
          { "name": "spouse", "destination": "Node", "inverse": "spouse", "optional": true },
          { "name": "links", "destination": "Node", "inverse": "links", "toMany": true },
          { "name": "follows", "destination": "Node", "inverse": "followers", "toMany": true, "ordered": true },
          { "name": "followers", "destination": "Node", "inverse": "follows", "toMany": true } ] },
      { "name": "Leaf", "parent": "Node",
        "attributes": [ { "name": "weight", "type": "int32", "default": 5 } ],
        "relationships": [
          { "name": "owner", "destination": "Box", "inverse": "items", "optional": true },
          { "name": "bestIn", "destination": "Box", "inverse": "best", "optional": true } ] },
      { "name": "Box",
        "attributes": [ { "name": "name", "type": "string", "optional": true } ],
        "relationships": [
          { "name": "items", "destination": "Leaf", "inverse": "owner", "toMany": true, "ordered": true, "maxCount": 4 },
          { "name": "best", "destination": "Leaf", "inverse": "bestIn", "optional": true } ] }
    ] }
    """)


    /// A load of up to `size` nodes and leaves and 3 boxes; each relationship given with a
    /// chance of 1 in `odds`.
    static func data(_ seed: UInt64, odds: Int, size: Int) -> String {
        var rng = SeededGenerator(seed: seed)
        let n = Int.random(in: 1...size, using: &rng)
        let m = Int.random(in: 0...3, using: &rng)
        var leafIDs: [Int] = []
        var nodeIDs: [Int] = []
        for id in 1...n { if Bool.random(using: &rng) { leafIDs.append(id) } else { nodeIDs.append(id) } }
        let all = 1...n
        func pick(_ range: [Int]) -> Int { range.isEmpty ? 1 : range.randomElement(using: &rng)! }
        func list(_ range: [Int]) -> String {
            let k = Int.random(in: 0...3, using: &rng)
            return "[" + (0..<k).map { _ in String(pick(range)) }.joined(separator: ", ") + "]"
        }
        let allIDs = Array(all)
        func nodeProps() -> [String] {
            var p: [String] = []
            if Int.random(in: 0..<odds, using: &rng) == 0 { p.append("\"parent\": \(Int.random(in: 0..<6, using: &rng) == 0 ? "null" : String(pick(allIDs)))") }
            if Int.random(in: 0..<odds, using: &rng) == 0 { p.append("\"children\": \(list(allIDs))") }
            if Int.random(in: 0..<odds, using: &rng) == 0 { p.append("\"spouse\": \(Int.random(in: 0..<6, using: &rng) == 0 ? "null" : String(pick(allIDs)))") }
            if Int.random(in: 0..<odds, using: &rng) == 0 { p.append("\"links\": \(list(allIDs))") }
            if Int.random(in: 0..<odds, using: &rng) == 0 { p.append("\"follows\": \(list(allIDs))") }
            if Int.random(in: 0..<odds, using: &rng) == 0 { p.append("\"followers\": \(list(allIDs))") }
            return p
        }
        var nodes: [String] = []
        for id in nodeIDs { nodes.append("{" + (["\"@id\": \(id)"] + nodeProps()).joined(separator: ", ") + "}") }
        var leaves: [String] = []
        for id in leafIDs {
            var p = ["\"@id\": \(id)"] + nodeProps()
            if m > 0, Int.random(in: 0..<3, using: &rng) == 0 { p.append("\"owner\": \(Int.random(in: 1...m, using: &rng))") }
            if m > 0, Int.random(in: 0..<3, using: &rng) == 0 { p.append("\"bestIn\": \(Int.random(in: 1...m, using: &rng))") }
            leaves.append("{" + p.joined(separator: ", ") + "}")
        }
        var boxes: [String] = []
        for id in 0..<m {
            var p = ["\"@id\": \(id + 1)"]
            if Int.random(in: 0..<2, using: &rng) == 0 { p.append("\"items\": \(list(leafIDs.isEmpty ? [1] : leafIDs))") }
            if Int.random(in: 0..<3, using: &rng) == 0 { p.append("\"best\": \(pick(leafIDs.isEmpty ? [1] : leafIDs))") }
            boxes.append("{" + p.joined(separator: ", ") + "}")
        }
        var sections = [("Node", nodes), ("Leaf", leaves), ("Box", boxes)]
        sections.shuffle(using: &rng)
        return "{\"objects\": {" + sections.map { "\"\($0.0)\": [" + $0.1.joined(separator: ", ") + "]" }.joined(separator: ", ") + "}}"
    }

    /// How a load is saved.
    enum Path {
        /// `finish()`, then the context's `save()`.
        case context
        /// `save()`: as records when it can.
        case records
        /// `load(contentsOf:)` from a file into a new SQLite store: streamed when it can.
        case streamed
    }

    /// What a load stored (its dump) or the error it was refused with, and whether it took the
    /// path's fast way (saved as records, leaving the context empty; streamed).
    static func outcome(_ data: String, _ path: Path) throws -> (String, Bool) {
        let fixture = try StoreFixture(path == .streamed ? StoreKind.sqlite : .memory, model)
        let context = fixture.context()
        let importer = DataImporter(context: context)
        do throws(StrataError) {
            switch path {
            case .context:
                importer.add(Data(data.utf8), file: "d.json")
                try importer.finish()
                try context.save()
            case .records:
                importer.add(Data(data.utf8), file: "d.json")
                try importer.save()
            case .streamed:
                let url = fixture.description.url!.deletingLastPathComponent().appendingPathComponent("d.json")
                try? Data(data.utf8).write(to: url)
                try importer.load(contentsOf: [(url, "d.json")])
            }
        } catch {
            let failures = importer.sortedByInput(error.failures).map { "\(importer.describe($0.objectID) ?? "?") \($0.key ?? "") \($0.code) \($0.message)" }
            return ("\(error.code) \(error.message) \(error.diagnostics.map(\.description)) \(failures)", false)
        }
        let fast = path == .streamed ? importer.wasStreamed : context.registeredObjects.isEmpty
        return (try DataExporter.dump(fixture.coordinator), fast)
    }

    @Test func generatedLoadsAreStoredOrRefusedAsByTheContextPath() throws {
        var viaRecords = 0
        var streamed = 0
        for seed in 0..<UInt64(400) {
            let data = Self.data(seed, odds: [3, 4, 8, 12][Int(seed % 4)], size: [4, 6, 10][Int(seed % 3)])
            let (records, leftEmpty) = try Self.outcome(data, .records)
            let (context, _) = try Self.outcome(data, .context)
            if leftEmpty { viaRecords += 1 }
            #expect(records == context, "seed \(seed): \(data)")
            if seed % 2 == 0 {
                let (stream, wasStreamed) = try Self.outcome(data, .streamed)
                if wasStreamed { streamed += 1 }
                #expect(stream == context, "seed \(seed) streamed: \(data)")
            }
        }
        // Enough of them were saved as records, and streamed, for the comparisons to mean something.
        #expect(viaRecords > 80)
        #expect(streamed > 35)
    }
}

/// A load saved as records through a coordinator with two stores (configurations) stores and
/// broadcasts what the context path does, on every pair of store kinds.
@Suite struct BulkLoadMultiStoreTests {
    static let data = #"{"objects": {"Note": [{"@id": 1, "title": "a", "tags": [1, 2]}, {"@id": 2, "title": "b"}], "Tag": [{"@id": 1, "name": "x", "notes": [2, 1]}, {"@id": 2, "name": "y"}], "Entry": [{"@id": 5, "text": "e"}]}}"#

    /// The notes with their tags, the entries and what observers heard after the load, and
    /// whether it left the context empty (it was saved as records).
    static func outcome(_ pair: StorePair, records: Bool) throws -> (String, Bool) {
        var types = StoreTypeRegistry()
        for kind in [pair.notes, pair.log] {
            for factory in kind.storeTypes.factories { types.register(factory) }
        }
        let coordinator = PersistentStoreCoordinator(schema: MultiStoreSaveChecks.model, storeTypes: types)
        var notes = try pair.notes.makeDescription()
        notes.configurationName = "Notes"
        var log = try pair.log.makeDescription()
        log.configurationName = "Log"
        defer {
            for url in [notes.url, log.url].compactMap({ $0 }) { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        }
        try coordinator.addStore(notes)
        try coordinator.addStore(log)
        let heard = Locked<[String]>([])
        coordinator.addSaveObserver { notification in
            let records = notification.records.values.map { "\($0.objectID) v\($0.version) \($0.toMany.mapValues { $0.sorted() })" }.sorted()
            heard.withLock { $0.append("\(notification.inserted.sorted()) \(records)") }
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        let importer = DataImporter(context: context)
        importer.add(Data(data.utf8), file: "d.json")
        if records {
            try importer.save()
        } else {
            try importer.finish()
            try context.save()
        }
        let fresh = ManagedObjectContext(coordinator: coordinator)
        let noteTags = try fresh.fetch(FetchRequest(entityName: "Note"))
            .map { "\($0.objectID) \($0["title"] ?? "") \($0.objects(forKey: "tags").map(\.objectID).sorted())" }.sorted()
        let entries = try fresh.fetch(FetchRequest(entityName: "Entry")).map { "\($0.objectID) \($0["text"] ?? "")" }.sorted()
        return ("\(noteTags) \(entries) \(heard.withLock { $0 })", context.registeredObjects.isEmpty)
    }

    @Test(arguments: MultiStoreSaveTests.pairs)
    func theRecordPathStoresWhatTheContextPathStores(_ pair: StorePair) throws {
        let (records, leftEmpty) = try Self.outcome(pair, records: true)
        let (context, _) = try Self.outcome(pair, records: false)
        #expect(leftEmpty, "the load went through the context")
        #expect(records == context)
        #expect(records.contains("Note/p2 b [Tag/p1]"))
    }
}
