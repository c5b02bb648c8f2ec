import Foundation
import Testing

@Suite("strata dump")
struct DumpCommandTests {
    // MARK: - Canonical output

    /// The whole TodoList graph; the model file is gone before the dump, which needs none.
    @Test(arguments: storeExtensions)
    func todoListMatchesTheGoldenFile(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        try workspace.remove("TodoList.json")
        let run = try workspace.run("dump", "todo.\(ext)")
        #expect(run.stderr == "")
        #expect(run.status == 0)
        try golden.expect(run.stdout, matches: "TodoList.dump.json")
    }

    /// Every attribute type, defaults, extreme values, inheritance, an ordered to-many.
    @Test(arguments: storeExtensions)
    func kitchenSinkMatchesTheGoldenFile(_ ext: String) throws {
        let workspace = try Workspace(schemas: ["KitchenSink"])
        try workspace.load("sink.\(ext)", schema: "KitchenSink.json", data: [("sink.json", kitchenSinkData)])
        try golden.expect(try workspace.dump("sink.\(ext)"), matches: "KitchenSink.dump.json")
    }

    /// The same graph, written in another order and from the other sides, dumps byte for byte
    /// the same.
    @Test(arguments: storeExtensions)
    func theSameGraphGivesTheSameBytes(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        try workspace.load("again.\(ext)", schema: "TodoList.json", data: [("reordered.json", todoDataReordered)])
        let first = try workspace.dump("todo.\(ext)")
        #expect(try workspace.dump("again.\(ext)") == first)
        #expect(try workspace.dump("todo.\(ext)") == first)
    }

    /// What `dump` writes, `load` reads back into the same graph.
    @Test func theDumpLoadsBack() throws {
        let workspace = try Workspace.todo()
        try workspace.write("dump.json", try workspace.dump("todo.plist"))
        let run = try workspace.run("load", "--schema", "TodoList.json", "copy.plist", "dump.json")
        #expect(run.stdout == "loaded 12 objects into copy.plist: Location 2, Tag 3, Todo 7\n")
        #expect(try workspace.dump("copy.plist") == (try workspace.dump("todo.plist")))
    }

    // MARK: - --entity

    @Test func oneEntity() throws {
        let workspace = try Workspace.todo()
        let run = try workspace.run("dump", "todo.plist", "--entity", "Location")
        #expect(run.stdout == """
            {
              "objects": {
                "Location": [
                  {
                    "@id": 1,
                    "latitude": 48.8566,
                    "longitude": 2.3522,
                    "name": "Office",
                    "todos": [
                      2,
                      6
                    ]
                  },
                  {
                    "@id": 2,
                    "latitude": null,
                    "longitude": null,
                    "name": "Home",
                    "todos": [
                      1,
                      10
                    ]
                  }
                ]
              }
            }

            """)
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    /// An abstract entity dumps its concrete subentities, each under its own name.
    @Test func anAbstractEntityDumpsItsSubentities() throws {
        let workspace = try Workspace.moody()
        let objects = try workspace.dumpedObjects("moody.plist", "--entity", "GeographicRegion")
        #expect(Set(objects.keys) == ["Continent", "Country"])
        #expect(objects["Continent"]?.ids == [1, 2])
        #expect(objects["Country"]?.ids == [10, 11, 12])
        #expect(objects["Country"]?[id: 12]?["continent"] as? Int == 1)
        #expect(objects["Continent"]?[id: 1]?["countries"] as? [Int] == [10, 12])
    }

    /// Repeated and overlapping --entity options give each entity once, in name order.
    @Test func severalEntities() throws {
        let workspace = try Workspace.moody()
        let run = try workspace.run("dump", "moody.plist", "--entity", "Mood", "--entity", "Continent", "--entity", "Mood")
        #expect(run.status == 0)
        let objects = try parseObjects(run.stdout)
        #expect(Set(objects.keys) == ["Continent", "Mood"])
        #expect(objects["Mood"]?.ids == [1, 2])
        let continent = try #require(run.stdout.range(of: "\"Continent\""))
        let mood = try #require(run.stdout.range(of: "\"Mood\""))
        #expect(continent.lowerBound < mood.lowerBound)

        // Country twice over (itself and through GeographicRegion), with Mood: every concrete
        // entity, so the whole dump.
        let all = try workspace.run("dump", "moody.plist", "--entity", "Mood", "--entity", "Country", "--entity", "GeographicRegion")
        #expect(all.status == 0)
        #expect(all.stdout == (try workspace.dump("moody.plist")))
    }

    @Test func anUnknownEntityExits1() throws {
        let workspace = try Workspace.moody()
        let run = try workspace.run("dump", "moody.plist", "--entity", "Contry")
        #expect(run.stderr == "strata: error: the model 'Moody' has no entity 'Contry'; did you mean 'Country'?\n")
        #expect(run.stdout == "")
        #expect(run.status == 1)
    }

    // MARK: - -o

    @Test func writesToAFile() throws {
        let workspace = try Workspace.todo()
        let expected = try workspace.dump("todo.plist")
        let run = try workspace.run("dump", "todo.plist", "-o", "out.json")
        #expect(run.stdout == "")
        #expect(run.stderr == "")
        #expect(run.status == 0)
        #expect(workspace.text("out.json") == expected)

        // --output replaces an existing file.
        let entity = try workspace.run("dump", "todo.plist", "--entity", "Tag", "--output", "out.json")
        #expect(entity.status == 0)
        #expect(workspace.text("out.json") == (try workspace.dump("todo.plist", "--entity", "Tag")))
    }

    @Test func anUnwritableOutputExits2() throws {
        let workspace = try Workspace.todo()
        let run = try workspace.run("dump", "todo.plist", "-o", "no/such/dir/out.json")
        #expect(run.stderr.hasPrefix("strata: error: cannot write 'no/such/dir/out.json': "), "stderr: \(run.stderr)")
        #expect(run.stdout == "")
        #expect(run.status == 2)
    }

    // MARK: - Missing and bad stores

    @Test func aMissingStoreExits2() throws {
        let workspace = try Workspace()
        let run = try workspace.run("dump", "missing.plist")
        #expect(run.stderr == "strata: error: no store at 'missing.plist'\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
        #expect(try workspace.listing() == [])
    }

    /// A file that is not a store was read, and is invalid: 1.
    @Test func aFileThatIsNotAStoreExits1() throws {
        let workspace = try Workspace(["junk.plist": "hello\n"])
        let run = try workspace.run("dump", "junk.plist")
        #expect(run.stderr.hasPrefix("strata: error: "))
        #expect(run.stderr.contains("junk.plist: not a readable binary property list: the file does not start with 'bplist00'"), "stderr: \(run.stderr)")
        #expect(run.stdout == "")
        #expect(run.status == 1)
        #expect(workspace.text("junk.plist") == "hello\n")
    }

    /// At a terminal (a pseudo-terminal made by script(1)), the dump shows how far it has come
    /// on standard error, erased at the end; the dump itself goes to standard output whole.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressAtATerminal() throws {
        let workspace = try Workspace.todo()
        let executable = try #require(StrataExecutable.url)
        let command = "\(executable.path) dump todo.plist > out.json"
        let run = try ScriptRun.run(["-qec", command, "/dev/null"], in: workspace.url)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("\r\u{1B}[Kdumping Location: 2/2 (100%)"), "\(run.stdout.debugDescription)")
        #expect(run.stdout.hasSuffix("\r\u{1B}[K"), "\(run.stdout.debugDescription)")
        #expect(workspace.text("out.json") == (try workspace.dump("todo.plist")))
    }
}
