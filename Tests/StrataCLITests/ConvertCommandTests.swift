import Foundation
import Testing

/// Every test runs for each pair of store types in ``storeExtensions``.
@Suite("strata convert")
struct ConvertCommandTests {
    @Test(arguments: storeExtensionPairs)
    func theCopyDumpsTheSameBytes(_ source: String, _ destination: String) throws {
        let workspace = try Workspace.todo(source)
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Schemas/KitchenSink.json"), to: workspace.file("KitchenSink.json"))
        try workspace.load("sink.\(source)", schema: "KitchenSink.json", data: [("sink.json", kitchenSinkData)])
        let sourceType = try workspace.storeType("todo.\(source)")
        let before = try #require(workspace.contents("todo.\(source)"))

        let run = try workspace.run("convert", "todo.\(source)", "copy.\(destination)")
        #expect(run.stdout == "converted 12 objects from \(sourceType) todo.\(source) to \(try workspace.storeType("copy.\(destination)")) copy.\(destination)\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)
        #expect(try workspace.dump("copy.\(destination)") == (try workspace.dump("todo.\(source)")))
        #expect(workspace.contents("todo.\(source)") == before)

        // Every attribute type, inheritance and an ordered to-many survive too.
        let sink = try workspace.run("convert", "sink.\(source)", "sink-copy.\(destination)")
        #expect(sink.stdout.hasPrefix("converted 12 objects from \(sourceType) sink.\(source) to "))
        #expect(sink.status == 0)
        #expect(try workspace.dump("sink-copy.\(destination)") == (try workspace.dump("sink.\(source)")))

        // No temporary file is left beside the copy.
        #expect(try workspace.listing() == [
            "KitchenSink.json", "TodoList.json", "copy.\(destination)", "sink-copy.\(destination)", "sink.json", "sink.\(source)",
            "todo.json", "todo.\(source)",
        ].sorted())
    }

    /// The copy is a store in its own right: it opens with the model it embeds, answers queries
    /// and takes new data.
    @Test(arguments: storeExtensionPairs)
    func theCopyIsAStoreOfItsOwn(_ source: String, _ destination: String) throws {
        let workspace = try Workspace.todo(source)
        #expect(try workspace.run("convert", "todo.\(source)", "copy.\(destination)").status == 0)
        try workspace.remove("todo.\(source)")
        let query = try workspace.run("query", "copy.\(destination)", "Todo", "--where", "ANY tags.name == 'home'", "--sort", "-priority", "--format", "ids")
        #expect(query.stdout == "10\n1\n3\n")
        try workspace.write("more.json", #"{"objects": {"Tag": [{"@id": 4, "name": "later", "todos": [5]}]}}"#)
        let load = try workspace.run("load", "--schema", "TodoList.json", "copy.\(destination)", "more.json")
        #expect(load.stdout == "loaded 1 object into copy.\(destination): Tag 1\n")
        #expect(try workspace.dumpedObjects("copy.\(destination)")["Todo"]?[id: 5]?["tags"] as? [Int] == [4])
    }

    /// --to names the type when the destination's name does not tell it.
    @Test(arguments: storeExtensionPairs)
    func toNamesTheType(_ source: String, _ destination: String) throws {
        let workspace = try Workspace.todo(source)
        try workspace.load("probe.\(destination)", schema: "TodoList.json", data: [("empty.json", #"{"objects": {}}"#)])
        let type = try workspace.storeType("probe.\(destination)")
        let run = try workspace.run("convert", "todo.\(source)", "copy", "--to", type)
        #expect(run.stdout.hasSuffix(" to \(type) copy\n"), "stdout: \(run.stdout)")
        #expect(run.status == 0)
        #expect(try workspace.storeType("copy") == type)
        #expect(try workspace.dump("copy") == (try workspace.dump("todo.\(source)")))
    }

    // MARK: - An existing destination

    @Test(arguments: storeExtensionPairs)
    func anExistingDestinationIsRefusedWithoutForce(_ source: String, _ destination: String) throws {
        let workspace = try Workspace.todo(source)
        try workspace.write("Library.json", libraryModel)
        try workspace.load("library.\(destination)", schema: "Library.json", data: [("library.json", libraryData)])
        let before = try #require(workspace.contents("library.\(destination)"))

        let run = try workspace.run("convert", "todo.\(source)", "library.\(destination)")
        #expect(run.stderr == "strata: error: 'library.\(destination)' exists; pass --force (overwrite: true) to replace it\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
        #expect(workspace.contents("library.\(destination)") == before)
    }

    @Test(arguments: storeExtensionPairs)
    func forceReplacesTheDestination(_ source: String, _ destination: String) throws {
        let workspace = try Workspace.todo(source)
        try workspace.write("Library.json", libraryModel)
        try workspace.load("library.\(destination)", schema: "Library.json", data: [("library.json", libraryData)])

        let run = try workspace.run("convert", "--force", "todo.\(source)", "library.\(destination)")
        #expect(run.stdout.hasPrefix("converted 12 objects from "))
        #expect(run.stderr == "")
        #expect(run.status == 0)
        // Now a TodoList store: the library is gone, model and all.
        #expect(try workspace.dump("library.\(destination)") == (try workspace.dump("todo.\(source)")))
        #expect(try workspace.listing() == ["Library.json", "TodoList.json", "library.\(destination)", "library.json", "todo.json", "todo.\(source)"].sorted())
    }

    /// A conversion that fails leaves an existing destination as it was, even with --force.
    @Test(arguments: storeExtensionPairs)
    func aFailedConversionLeavesTheDestination(_ source: String, _ destination: String) throws {
        let workspace = try Workspace.todo(source)
        try workspace.write("Library.json", libraryModel)
        try workspace.load("library.\(destination)", schema: "Library.json", data: [("library.json", libraryData)])
        let before = try #require(workspace.contents("library.\(destination)"))

        // The source opened with a model it was not written with.
        let run = try workspace.run("convert", "--force", "--schema", "Library.json", "todo.\(source)", "library.\(destination)")
        // Some stores name the file first.
        #expect(run.stderr.hasPrefix("strata: error: "))
        #expect(run.stderr.contains("the store was written with model 'TodoList' "), "stderr: \(run.stderr)")
        #expect(run.stdout == "")
        #expect(run.status == 1)
        #expect(workspace.contents("library.\(destination)") == before)
        #expect(try workspace.listing() == ["Library.json", "TodoList.json", "library.\(destination)", "library.json", "todo.json", "todo.\(source)"].sorted())
    }

    @Test func aStoreIsNotConvertedOntoItself() throws {
        let workspace = try Workspace.todo()
        let before = try #require(workspace.contents("todo.plist"))
        let run = try workspace.run("convert", "--force", "todo.plist", "./todo.plist")
        #expect(run.stderr == "strata: error: the source 'todo.plist' and the destination './todo.plist' are the same file (or the destination is one of the source store's files); convert into another file\n")
        #expect(run.status == 2)
        #expect(workspace.contents("todo.plist") == before)
    }

    // MARK: - Errors

    @Test func aMissingSourceExits2() throws {
        let workspace = try Workspace()
        let run = try workspace.run("convert", "missing.plist", "copy.plist")
        #expect(run.stderr == "strata: error: no store at 'missing.plist'\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
        #expect(try workspace.listing() == [])
    }

    @Test func anUnknownDestinationTypeExits2() throws {
        let workspace = try Workspace.todo()
        let unknownExtension = try workspace.run("convert", "todo.plist", "copy.txt")
        #expect(unknownExtension.stderr == "strata: error: cannot tell the destination's store type from 'copy.txt'; pass --to sqlite, xml or binary\n")
        #expect(unknownExtension.status == 2)

        let unknownType = try workspace.run("convert", "todo.plist", "copy.plist", "--to", "nosuch")
        #expect(unknownType.stderr.hasPrefix("strata: error: unknown store type 'nosuch'; known types: "), "stderr: \(unknownType.stderr)")
        #expect(unknownType.status == 2)
        #expect(try workspace.listing() == ["TodoList.json", "todo.json", "todo.plist"])
    }

    /// A source that refers to an object it does not hold (written before saves checked their
    /// references, or edited by hand) is refused with what `strata check` would say, not with
    /// a merge conflict about another save; nothing is written.
    @Test func aSourceWithADanglingReferenceIsRefusedPlainly() throws {
        let workspace = try Workspace.todo("sqlite")
        try CheckCommandTests.execute(#"UPDATE "Todo" SET "location" = 9 WHERE "_pk" = 2"#, in: workspace.file("todo.sqlite"))
        let run = try workspace.run("convert", "todo.sqlite", "copy.xml")
        #expect(run.stderr == """
            strata: error: the source store refers to objects it does not hold (strata check lists every problem); nothing was written
              Todo/p2.location: refers to Location/p9, which the source store does not hold

            """)
        #expect(run.status == 1)
        #expect(try workspace.listing() == ["TodoList.json", "todo.json", "todo.sqlite"])
    }
}

extension Workspace {
    /// The type `strata inspect` reports for a store ("binary", ...).
    func storeType(_ store: String) throws -> String {
        let run = try self.run("inspect", "--format", "json", store)
        try #require(run.status == 0, "strata inspect \(store) failed: \(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return try #require(report["type"] as? String)
    }
}
