import Foundation
import Strata
import StrataSQLite
import StrataTestKit
import Testing

/// `DataImporter.load(contentsOf:)` into an empty SQLite store writes each object's row as it
/// is read (a bulk load). It must store exactly what `save()` stores and refuse exactly what it
/// refuses; whenever it cannot take a load it does it the ordinary way, leaving the store as it
/// was, indexes included.
@Suite struct StreamedLoadTests {
    /// A data file in a temporary directory, removed when released.
    final class DataFile {
        let directory: URL
        let url: URL

        init(_ text: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-stream-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            url = directory.appendingPathComponent("data.json")
            try Data(text.utf8).write(to: url)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// The load streamed into a new SQLite store and the same load saved by `save()`: both
    /// dumps, the counts it returned, and whether it was streamed.
    private func loadBothWays(_ schema: Schema, _ data: String) throws -> (streamed: String, saved: String, counts: [String: Int], wasStreamed: Bool, fixture: StoreFixture) {
        let file = try DataFile(data)
        let fixture = try StoreFixture(.sqlite, schema)
        let importer = DataImporter(context: fixture.context())
        let counts = try importer.load(contentsOf: [(file.url, "data.json")])
        let reference = try StoreFixture(.sqlite, schema)
        let other = DataImporter(context: reference.context())
        try other.add(contentsOf: file.url, file: "data.json")
        try other.save()
        return (try DataExporter.dump(fixture.coordinator), try DataExporter.dump(reference.coordinator), counts, importer.wasStreamed, fixture)
    }

    /// The store's indexes (names and SQL), as SQLite lists them.
    private func indexes(_ fixture: StoreFixture) throws -> [String] {
        let url = try #require(fixture.description.url)
        let store = try SQLiteStore(url: url, schema: fixture.schema, options: [SQLiteStore.readOnlyOption: "true"])
        return try store.rawQuery("SELECT name || ': ' || sql AS line FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name", [])
            .map { row in row["line"].flatMap { $0 }.map { "\($0)" } ?? "" }
    }

    @Test func everyKindOfRelationshipIsStreamedAsSaveStoresIt() throws {
        let (streamed, saved, counts, wasStreamed, fixture) = try loadBothWays(Models.graph, BulkLoadChecks.graphData)
        #expect(wasStreamed)
        #expect(streamed == saved)
        #expect(counts == ["Track": 4, "Person": 3, "Passport": 2, "Department": 2, "Club": 2, "Playlist": 2, "Album": 1])
        // Indexes are back, as a new store has them, and the key counters are past the keys.
        let fresh = try StoreFixture(.sqlite, Models.graph)
        #expect(try indexes(fixture) == indexes(fresh))
        #expect(try !indexes(fixture).isEmpty)
        let context = fixture.context()
        let person = try context.make("Person", ["name": "dee"])
        try context.save()
        #expect(person.objectID.primaryKey == 4)
    }

    /// A load of hundreds of objects of each kind, so that rows go in inserts of many rows and
    /// join tables' rows wait to go in them too: stored as `save()` stores it.
    @Test func aLargeLoadIsStreamedAsSaveStoresIt() throws {
        var generator = SeededGenerator(seed: 12)
        let people = 700, clubs = 40, tracks = 500, playlists = 60
        func some(_ count: Int, of range: ClosedRange<Int>) -> String {
            var picked: [Int] = []
            while picked.count < count {
                let next = Int.random(in: range, using: &generator)
                if !picked.contains(next) { picked.append(next) }
            }
            return "[" + picked.map(String.init).joined(separator: ", ") + "]"
        }
        var sections: [String] = []
        sections.append("\"Person\": [" + (1...people).map { id in
            "{\"@id\": \(id), \"name\": \"p\(id)\", \"clubs\": \(some(Int.random(in: 0...3, using: &generator), of: 1...clubs)), \"department\": \(id % 7 + 1)"
                + (id % 5 == 0 ? ", \"mentor\": \(id / 5)" : "") + "}"
        }.joined(separator: ", ") + "]")
        sections.append("\"Department\": [" + (1...7).map { "{\"@id\": \($0), \"name\": \"d\($0)\"}" }.joined(separator: ", ") + "]")
        sections.append("\"Club\": [" + (1...clubs).map { "{\"@id\": \($0), \"name\": \"c\($0)\"}" }.joined(separator: ", ") + "]")
        sections.append("\"Track\": [" + (1...tracks).map { "{\"@id\": \($0), \"title\": \"t\($0)\"}" }.joined(separator: ", ") + "]")
        sections.append("\"Playlist\": [" + (1...playlists).map { id in
            "{\"@id\": \(id), \"name\": \"l\(id)\", \"tracks\": \(some(Int.random(in: 0...40, using: &generator), of: 1...tracks))}"
        }.joined(separator: ", ") + "]")
        let data = "{\"objects\": {" + sections.joined(separator: ", ") + "}}"
        let (streamed, saved, counts, wasStreamed, _) = try loadBothWays(Models.graph, data)
        #expect(wasStreamed)
        #expect(counts == ["Person": people, "Department": 7, "Club": clubs, "Track": tracks, "Playlist": playlists])
        #expect(streamed == saved)
    }

    /// Every attribute type, and a hierarchy whose to-ones need the destination's entity: a
    /// store's dump, loaded again, is streamed into what the ordinary load stores.
    @Test(arguments: [("allTypes", Models.allTypes), ("inheritance", Models.inheritance)])
    func dumpsOfEveryModelAreStreamedAsSaveStoresThem(_ name: String, _ schema: Schema) throws {
        let source = try StoreFixture(.memory, schema)
        let context = source.context()
        switch name {
        case "allTypes":
            for index in 0..<3 {
                // Text in NFD (its shadow column holds the NFC form), decimals of every sign.
                _ = try context.make("Sample", [
                    "label": ["plain", "Cafe\u{301} noir", "ß 東京"][index],
                    "string": ["e\u{301}", "", "x"][index],
                    "decimal": [Decimal(string: "12.50")!, Decimal(string: "-0.003")!, Decimal(0)][index],
                    "date": Date(timeIntervalSinceReferenceDate: 1_000.25 * Double(index)),
                    "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5\(index)")!,
                    "uri": URL(string: "https://example.com/\(index)")!,
                    "binary": Data([UInt8(index), 0, 255]),
                    "int16": Int16(-index), "int32": Int32(index * 1000), "int64": Int64(index) << 40,
                    "double": -0.5 * Double(index), "float": Float(index) / 3, "bool": index == 1,
                ])
            }
        case "inheritance":
            let ann = try context.make("Admin", ["email": "ann@x", "handle": "ann"])
            let bob = try context.make("Member", ["email": "bob@x", "handle": "bob"])
            let doc = try context.make("ScannedDocument", ["title": "scan"])
            doc["owner"] = bob
            let photo = try context.make("Photo", ["title": "sky"])
            photo["owner"] = ann
            _ = try context.make("Document", ["title": "loose"])
        default:
            break
        }
        try context.save()
        let dump = try DataExporter.dump(source.coordinator)
        let (streamed, saved, _, wasStreamed, _) = try loadBothWays(schema, dump)
        #expect(wasStreamed, "\(name) was not streamed")
        #expect(streamed == saved)
        #expect(streamed == dump)
    }

    /// A load with any problem is rolled back and done again by `save()`, which reports it:
    /// the same errors, nothing stored, the indexes as they were.
    @Test(arguments: [
        // A uniqueness constraint broken (found when the UNIQUE index is built again).
        #"{"objects": {"Maker": [{"@id": 1, "name": "acme"}], "Gadget": [{"@id": 1, "name": "ok", "maker": 1, "serial": "S1"}, {"@id": 2, "name": "fine", "maker": 1, "serial": "S1"}]}}"#,
        // An attribute rule broken, a required to-one missing, a to-many below its minimum.
        #"{"objects": {"Maker": [{"@id": 1, "name": "acme"}], "Gadget": [{"@id": 1, "name": "ok", "maker": 1, "large": 30}, {"@id": 2, "name": "fine"}], "Kit": [{"@id": 1, "name": "k", "parts": [1]}], "Part": [{"@id": 1, "name": "p"}]}}"#,
        // The two sides disagree.
        #"{"objects": {"Maker": [{"@id": 1, "name": "a", "gadgets": [1]}, {"@id": 2, "name": "b"}], "Gadget": [{"@id": 1, "name": "ok", "maker": 2}]}}"#,
        // A reference to nothing, and a key of no property.
        #"{"objects": {"Gadget": [{"@id": 1, "name": "ok", "maker": 7, "colour": "red"}]}}"#,
        // A uniqueness constraint over a to-one written after the rows (its destination's
        // entity is needed), so after the UNIQUE index is built again.
        #"{"objects": {"Admin": [{"@id": 1, "email": "a@x", "handle": "a"}], "Document": [{"@id": 1, "title": "t", "owner": 1}, {"@id": 2, "title": "t", "owner": 1}]}}"#,
    ])
    func problemsAreReportedAsSaveReportsThem(_ data: String) throws {
        let file = try DataFile(data)
        let schema = data.contains("Admin") ? Models.inheritance : Models.validation
        let fixture = try StoreFixture(.sqlite, schema)
        let before = try indexes(fixture)
        let importer = DataImporter(context: fixture.context())
        let error = try #require(throws: StrataError.self) { try importer.load(contentsOf: [(file.url, "data.json")]) }
        let reference = DataImporter(context: try StoreFixture(.sqlite, schema).context())
        try reference.add(contentsOf: file.url, file: "data.json")
        let expected = try #require(throws: StrataError.self) { try reference.save() }
        func report(_ error: StrataError, _ importer: DataImporter) -> [String] {
            ["\(error.code) \(error.message)"] + error.diagnostics.map(\.description)
                + importer.sortedByInput(error.failures).map { "\(importer.describe($0.objectID) ?? "?") \($0.key ?? "") \($0.code) \($0.message)" }
        }
        #expect(report(error, importer) == report(expected, reference))
        #expect(!importer.wasStreamed)
        for entity in schema.entities where entity.parentName == nil {
            #expect(try fixture.context().count(for: FetchRequest(entityName: entity.name)) == 0)
        }
        #expect(try indexes(fixture) == before)
    }

    /// A store that holds objects already takes the load the ordinary way (which reconciles it
    /// with what is stored).
    @Test func aStoreWithObjectsIsNotStreamedInto() throws {
        let fixture = try StoreFixture(.sqlite, Models.graph)
        let departments = try DataFile(#"{"objects": {"Department": [{"@id": 1, "name": "ops"}]}}"#)
        let people = try DataFile(#"{"objects": {"Person": [{"@id": 1, "name": "ann", "department": 1}]}}"#)
        let first = DataImporter(context: fixture.context())
        try first.load(contentsOf: [(departments.url, nil)])
        #expect(first.wasStreamed)
        let second = DataImporter(context: fixture.context())
        #expect(try second.load(contentsOf: [(people.url, nil)]) == ["Person": 1])
        #expect(!second.wasStreamed)
        try fixture.verifyStored { context throws in
            let department = try #require(try context.all("Department").first)
            #expect(department.objects(forKey: "staff").map { $0["name"] as? String } == ["ann"])
        }
    }

    /// Observers hear of every save: a load they would miss is not streamed.
    @Test func aCoordinatorWithObserversIsNotStreamedInto() throws {
        let fixture = try StoreFixture(.sqlite, Models.graph)
        let heard = Locked<Int>(0)
        fixture.coordinator.addSaveObserver { notification in heard.withLock { $0 += notification.inserted.count } }
        let file = try DataFile(BulkLoadChecks.graphData)
        let importer = DataImporter(context: fixture.context())
        try importer.load(contentsOf: [(file.url, nil)])
        #expect(!importer.wasStreamed)
        #expect(heard.withLock { $0 } == 16)
    }

    /// A file that cannot be read twice (a pipe) is loaded the ordinary way: a bulk load given
    /// up reads its files again. A duplicate serial shows the ordinary load's error.
    /// (Streamed, the second reading would wait for a writer that is gone: the time limit.)
    @Test(.timeLimit(.minutes(1))) func aPipeIsNotStreamedAndItsProblemsAreReported() throws {
        let directory = try DataFile("{}")
        let pipe = directory.directory.appendingPathComponent("data.pipe")
        #expect(mkfifo(pipe.path, 0o600) == 0)
        let data = #"{"objects": {"Maker": [{"@id": 1, "name": "acme"}], "Gadget": [{"@id": 1, "name": "ok", "maker": 1, "serial": "S1"}, {"@id": 2, "name": "fine", "maker": 1, "serial": "S1"}]}}"#
        let writer = Thread { try? Data(data.utf8).write(to: pipe) }
        writer.start()
        let fixture = try StoreFixture(.sqlite, Models.validation)
        let importer = DataImporter(context: fixture.context())
        let error = try #require(throws: StrataError.self) { try importer.load(contentsOf: [(pipe, "data.pipe")]) }
        #expect(!importer.wasStreamed)
        #expect(error.code == .validationFailed)
        #expect(error.failures.map(\.code) == [.notUnique])
    }

    /// Several files are one load, streamed together; a reference may cross files.
    @Test func severalFilesAreOneStreamedLoad() throws {
        let fixture = try StoreFixture(.sqlite, Models.graph)
        let a = try DataFile(#"{"objects": {"Person": [{"@id": 1, "name": "ann", "department": 2}]}}"#)
        let b = try DataFile(#"{"objects": {"Department": [{"@id": 2, "name": "ops"}]}}"#)
        let importer = DataImporter(context: fixture.context())
        #expect(try importer.load(contentsOf: [(a.url, "a.json"), (b.url, "b.json")]) == ["Person": 1, "Department": 1])
        #expect(importer.wasStreamed)
        try fixture.verifyStored { context throws in
            let department = try #require(try context.all("Department").first)
            #expect(department.objects(forKey: "staff").map { $0["name"] as? String } == ["ann"])
        }
    }
}
