import Foundation
import Strata
import Testing

/// A context on a new in-memory store with the TodoList model.
func todoContext() throws -> ManagedObjectContext {
    let schema = try Schema(contentsOf: schemasDirectory.appendingPathComponent("TodoList.json"))
    let coordinator = PersistentStoreCoordinator(schema: schema)
    try coordinator.addStore(.inMemory())
    return ManagedObjectContext(coordinator: coordinator)
}

let todoObjects = """
    {"objects": {
      "Tag": [{"@id": 1, "name": "home"}, {"@id": 2, "name": "work", "todos": [2]}],
      "Todo": [{"@id": 1, "title": "Sweep", "createdAt": "2024-05-01T10:00:00Z", "priority": 3, "tags": [1], "location": 1},
               {"title": "Mop", "@id": 2, "createdAt": 0, "notes": "with \\"soap\\"", "location": null}],
      "Location": [{"@id": 1, "name": "Home", "latitude": 52.5}]
    }}
    """

@Suite("DataImporter")
struct DataImporterTests {
    /// Valid data is taken token by token: no object or array of it is ever a tree.
    @Test func validDataBuildsNoTree() throws {
        let context = try todoContext()
        let importer = DataImporter(context: context)
        importer.add(Data(todoObjects.utf8), file: "todo.json")
        #expect(try importer.finish() == ["Tag": 2, "Todo": 2, "Location": 1])
        #expect(importer.treesBuilt == 0)
        try context.save()
        let json = try DataExporter.dump(context.coordinator)
        #expect(json.contains(#""notes": "with \"soap\"""#))
        let todos = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: [String: [[String: Any]]]])["objects"]?["Todo"]
        #expect(todos?.map { $0["tags"] as? [Int] } == [[1], [2]])
        #expect(todos?.map { $0["location"] as? Int } == [1, nil])
        #expect(todos?.map { $0["priority"] as? Int } == [3, 0])
    }

    /// Only a value in error is read whole, to report it.
    @Test func aValueInErrorIsReadWhole() throws {
        let importer = DataImporter(context: try todoContext())
        importer.add(Data(#"{"objects": {"Tag": [{"@id": 1, "name": {"first": "home"}}]}}"#.utf8), file: "tag.json")
        #expect(importer.treesBuilt == 1)
        let error = try #require(throws: StrataError.self) { try importer.finish() }
        #expect(error.diagnostics.map(\.description) == ["tag.json:1:41: error: invalid string for 'name': expected a string, found an object [objects.Tag[0].name]"])
    }

    /// A file that turns out malformed after objects were read adds nothing but its syntax
    /// error: its objects leave the context, and later files do not see them.
    @Test func aMalformedFileAddsNothing() throws {
        let context = try todoContext()
        let importer = DataImporter(context: context)
        importer.add(Data(#"{"objects": {"Tag": [{"@id": 1, "name": "home"}, {"@id": 2, "name": "x", "nope": 1}, {"@id": 3,]}}"#.utf8), file: "bad.json")
        importer.add(Data(#"{"objects": {"Tag": [{"@id": 1, "name": "again"}]}}"#.utf8), file: "good.json")
        let error = try #require(throws: StrataError.self) { try importer.finish() }
        #expect(error.diagnostics.map(\.description) == ["bad.json:1:96: error: malformed JSON: expected a member name in double quotes, found ']'"])
        #expect(context.insertedObjects.count == 1)
    }

    /// A file read from disk as a stream loads as the same file in memory does.
    @Test func aFileIsReadAsAStream() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-importer-\(UUID().uuidString).json")
        try Data(todoObjects.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var dumps: [String] = []
        for fromDisk in [false, true] {
            let context = try todoContext()
            let importer = DataImporter(context: context)
            var progress: [DataImporter.Progress] = []
            importer.progress = { progress.append($0) }
            if fromDisk { try importer.add(contentsOf: url, file: "todo.json") } else { importer.add(Data(todoObjects.utf8), file: "todo.json") }
            try importer.finish()
            try context.save()
            dumps.append(try DataExporter.dump(context.coordinator))
            #expect(progress.last.map { "\($0.phase) \($0.completed)/\($0.total ?? 0)" } == "resolving 4/4")
            #expect(progress.first?.phase == .resolving || progress.first?.file == "todo.json")
        }
        #expect(dumps[0] == dumps[1])
        let missing = url.deletingLastPathComponent().appendingPathComponent("no-such-\(UUID().uuidString).json")
        #expect(throws: StrataError.self) { try DataImporter(context: try todoContext()).add(contentsOf: missing) }
    }
}
