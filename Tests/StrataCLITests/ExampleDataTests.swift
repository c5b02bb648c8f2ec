import Foundation
import Testing

/// `Examples/Data/todos.json`, the example of the data format the README shows: it loads into
/// `Schemas/TodoList.json`, dumps as `Examples/Data/todos.dump.json`, and the dump loads back to
/// the same graph.
@Suite("Examples/Data")
struct ExampleDataTests {
    static let data = packageRoot.appendingPathComponent("Examples/Data")

    @Test(arguments: storeExtensions)
    func theExampleLoadsAndRoundTrips(_ ext: String) throws {
        let workspace = try Workspace(schemas: ["TodoList"])
        let example = Self.data.appendingPathComponent("todos.json").path
        let load = try workspace.run("load", "--schema", "TodoList.json", "todos.\(ext)", example)
        #expect(load.stdout == "loaded 9 objects into todos.\(ext): Location 2, Tag 3, Todo 4\n")
        #expect(load.status == 0)

        let dump = try workspace.dump("todos.\(ext)")
        let expected = try String(contentsOf: Self.data.appendingPathComponent("todos.dump.json"), encoding: .utf8)
        #expect(dump == expected)

        try workspace.write("dump.json", dump)
        let again = try workspace.run("load", "--schema", "TodoList.json", "again.\(ext)", "dump.json")
        #expect(again.status == 0)
        #expect(try workspace.dump("again.\(ext)") == dump)
        #expect(try workspace.run("check", "todos.\(ext)").status == 0)
    }
}
