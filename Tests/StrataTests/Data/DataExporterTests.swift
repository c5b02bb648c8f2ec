import Foundation
import Strata
import Testing

@Suite("DataExporter")
struct DataExporterTests {
    /// The streamed dump is the text of `dump(...) -> String`, written in chunks, with progress
    /// for every entity.
    @Test func theStreamedDumpIsTheDump() throws {
        let context = try todoContext()
        let importer = DataImporter(context: context)
        importer.add(Data(todoObjects.utf8), file: "todo.json")
        try importer.finish()
        try context.save()
        var streamed = Data()
        var chunks = 0
        var progress: [DataExporter.Progress] = []
        try DataExporter.dump(context.coordinator, progress: { progress.append($0) }) { (chunk: Data) throws(StrataError) in
            streamed.append(chunk)
            chunks += 1
        }
        let whole = try DataExporter.dump(context.coordinator)
        #expect(String(decoding: streamed, as: UTF8.self) == whole)
        #expect(chunks == 1)
        #expect(progress.map { "\($0.entityName) \($0.completed)/\($0.total)" } == ["Location 1/1", "Tag 2/2", "Todo 2/2"])
        #expect(whole.hasPrefix("{\n  \"objects\": {\n    \"Location\": [\n      {\n        \"@id\": 1,\n        \"latitude\": 52.5,\n        \"longitude\": null,\n        \"name\": \"Home\",\n        \"todos\": [\n          1\n        ]\n      }\n    ],"))
    }

    /// An error of the output ends the dump with that error.
    @Test func anOutputErrorEndsTheDump() throws {
        let context = try todoContext()
        var calls = 0
        #expect(throws: StrataError(.storeIO, "full")) {
            try DataExporter.dump(context.coordinator) { (_: Data) throws(StrataError) in
                calls += 1
                throw StrataError(.storeIO, "full")
            }
        }
        #expect(calls == 1)
    }
}
