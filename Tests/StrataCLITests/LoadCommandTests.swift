import Foundation
import Strata
import Testing

@Suite("strata load")
struct LoadCommandTests {
    // MARK: - Loading

    @Test(arguments: storeExtensions)
    func createsTheStoreAndCountsWhatItLoaded(_ ext: String) throws {
        let workspace = try Workspace(["todo.json": todoData], schemas: ["TodoList"])
        #expect(!workspace.exists("todo.\(ext)"))
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.\(ext)", "todo.json")
        #expect(run.stdout == "loaded 12 objects into todo.\(ext): Location 2, Tag 3, Todo 7\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)
        #expect(workspace.exists("todo.\(ext)"))
    }

    @Test func keepsIDsAndFillsInDefaults() throws {
        let workspace = try Workspace.todo()
        let objects = try workspace.dumpedObjects("todo.plist")
        let todos = try #require(objects["Todo"])
        #expect(todos.ids == [1, 2, 3, 4, 5, 6, 10])
        #expect(try #require(objects["Tag"]).ids == [1, 2, 3])
        #expect(try #require(objects["Location"]).ids == [1, 2])

        // To-do 5 gives only a title and a date: priority and done take their defaults, the
        // optional notes and location are null, the to-many tags are empty.
        let fixBike = try #require(todos[id: 5])
        #expect(fixBike["title"] as? String == "Fix bike")
        #expect(fixBike["priority"] as? Int == 0)
        #expect(fixBike["done"] as? Bool == false)
        #expect(fixBike["notes"] is NSNull)
        #expect(fixBike["location"] is NSNull)
        #expect(fixBike["tags"] as? [Int] == [])
        #expect(Set(fixBike.keys) == ["@id", "title", "createdAt", "priority", "done", "notes", "tags", "location"])

        // Every accepted date form comes back as ISO 8601 UTC with milliseconds.
        #expect(todos.map { $0["createdAt"] as? String } == [
            "2024-05-01T10:00:00.000Z", "2024-05-02T09:30:00.000Z", "2024-05-03T10:00:00.000Z",
            "2024-05-04T10:00:00.000Z", "2024-05-05T08:00:00.000Z", "2024-05-06T08:00:00.000Z",
            "2024-05-07T08:00:00.000Z",
        ])
    }

    @Test func relationshipsGivenFromEitherSide() throws {
        let workspace = try Workspace.todo()
        let objects = try workspace.dumpedObjects("todo.plist")
        let todos = try #require(objects["Todo"])
        let tags = try #require(objects["Tag"])
        let locations = try #require(objects["Location"])
        // Given from the to-do only: the tag's side follows.
        #expect(tags[id: 2]?["todos"] as? [Int] == [2, 6, 10])
        #expect(locations[id: 1]?["todos"] as? [Int] == [2, 6])
        // Given from the tag or the location only: the to-do's side follows.
        #expect(todos[id: 1]?["tags"] as? [Int] == [1, 3])
        #expect(todos[id: 4]?["tags"] as? [Int] == [3])
        #expect(todos[id: 1]?["location"] as? Int == 2)
        #expect(todos[id: 10]?["location"] as? Int == 2)
        // Given from both sides, agreeing.
        #expect(tags[id: 1]?["todos"] as? [Int] == [1, 3, 10])
        #expect(todos[id: 10]?["tags"] as? [Int] == [1, 2])
    }

    @Test func aSecondLoadRefersToObjectsAlreadyInTheStore() throws {
        let workspace = try Workspace.todo()
        try workspace.write("more.json", """
            {"objects": {
              "Todo": [{"@id": 11, "title": "Book flights", "createdAt": "2024-06-01T08:00:00Z", "tags": [2, 4], "location": 1}],
              "Tag": [{"@id": 4, "name": "someday", "todos": [5, 11]}]
            }}
            """)
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "more.json")
        #expect(run.stdout == "loaded 2 objects into todo.plist: Tag 1, Todo 1\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)

        let objects = try workspace.dumpedObjects("todo.plist")
        let todos = try #require(objects["Todo"])
        let tags = try #require(objects["Tag"])
        #expect(todos.ids == [1, 2, 3, 4, 5, 6, 10, 11])
        #expect(todos[id: 11]?["tags"] as? [Int] == [2, 4])
        #expect(todos[id: 5]?["tags"] as? [Int] == [4])
        #expect(tags[id: 2]?["todos"] as? [Int] == [2, 6, 10, 11])
        #expect(tags[id: 4]?["todos"] as? [Int] == [5, 11])
        #expect(try #require(objects["Location"])[id: 1]?["todos"] as? [Int] == [2, 6, 11])
    }

    @Test func severalDataFilesAreOneLoad() throws {
        let workspace = try Workspace([
            "tags.json": #"{"objects": {"Tag": [{"@id": 1, "name": "home"}]}}"#,
            "todos.json": #"{"objects": {"Todo": [{"@id": 1, "title": "Sweep", "createdAt": 0, "tags": [1]}]}}"#,
        ], schemas: ["TodoList"])
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "todos.json", "tags.json")
        #expect(run.stdout == "loaded 2 objects into todo.plist: Tag 1, Todo 1\n")
        #expect(run.status == 0)
        #expect(try workspace.dumpedObjects("todo.plist")["Tag"]?[id: 1]?["todos"] as? [Int] == [1])
    }

    @Test func anEmptyFileLoadsNothing() throws {
        let workspace = try Workspace(["empty.json": #"{"objects": {}}"#], schemas: ["TodoList"])
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "empty.json")
        #expect(run.stdout == "loaded 0 objects into todo.plist\n")
        #expect(run.status == 0)
        #expect(try workspace.dump("todo.plist") == """
            {
              "objects": {
                "Location": [],
                "Tag": [],
                "Todo": []
              }
            }

            """)
    }

    // MARK: - Errors in the data: every one listed, nothing written

    /// Errors of every kind in two files; the diagnostics are sorted by file, line and column.
    static let badData = """
        {"objects": {
          "Todo": [
            {"@id": 1, "title": "Buy milk again", "createdAt": "2024-06-01T00:00:00Z"},
            {"@id": 20, "title": "Later", "createdAt": "yesterday", "priorty": 2, "tags": [9]},
            {"@id": 20, "title": "Twice", "createdAt": 0},
            {"title": "No id", "createdAt": 0}
          ],
          "Tags": [],
          "Location": {"@id": 3}
        }}
        """
    static let badData2 = #"{"objects": {"Tag": [{"@id": 0, "name": "zero"}, {"@id": 5, "name": "x", "todos": "2"}]}, "extra": 1}"#

    static let badDataErrors = """
        strata: error: the data has 11 errors; nothing was loaded
          bad.json:3:13: error: Todo @id 1 already exists in the store [objects.Todo[0].@id]
          bad.json:4:48: error: invalid date for 'createdAt': expected an ISO 8601 date like "2024-05-01T10:00:00.000Z", found "yesterday" [objects.Todo[1].createdAt]
          bad.json:4:61: error: entity 'Todo' has no property 'priorty'; did you mean 'priority'? [objects.Todo[1].priorty]
          bad.json:4:84: error: 'tags' refers to Tag @id 9, which is neither in the data nor in the store [objects.Todo[1].tags[0]]
          bad.json:5:13: error: duplicate @id 20 in the 'Todo' hierarchy (first used at bad.json:4:5); every object of a hierarchy needs its own @id [objects.Todo[2].@id]
          bad.json:6:5: error: a Todo object needs '@id', its primary key [objects.Todo[3]]
          bad.json:8:3: error: the model has no entity 'Tags'; did you mean 'Tag'? [objects.Tags]
          bad.json:9:15: error: 'Location' must be an array of objects, found an object [objects.Location]
          bad2.json:1:30: error: '@id' must be a whole number of 1 or more [objects.Tag[0].@id]
          bad2.json:1:83: error: to-many 'todos' must be an array of @id numbers of Todo objects [objects.Tag[1].todos]
          bad2.json:1:91: error: unknown key 'extra'; the data format has only 'objects' [extra]

        """

    @Test func everyErrorIsListedAndTheStoreIsUnchanged() throws {
        let workspace = try Workspace.todo()
        try workspace.write("bad.json", Self.badData)
        try workspace.write("bad2.json", Self.badData2)
        let before = try #require(workspace.contents("todo.plist"))
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "bad2.json", "bad.json")
        #expect(run.stderr == Self.badDataErrors)
        #expect(run.stdout == "")
        #expect(run.status == 1)
        #expect(workspace.contents("todo.plist") == before)
    }

    @Test func aFailedLoadCreatesNoStore() throws {
        let workspace = try Workspace(["bad.json": Self.badData, "bad2.json": Self.badData2], schemas: ["TodoList"])
        let run = try workspace.run("load", "--schema", "TodoList.json", "new.plist", "bad2.json", "bad.json")
        #expect(run.status == 1)
        // Into an empty store, to-do 1 is not taken; the other ten errors remain.
        #expect(run.stderr == Self.badDataErrors
            .replacingOccurrences(of: "11 errors", with: "10 errors")
            .replacingOccurrences(of: "  bad.json:3:13: error: Todo @id 1 already exists in the store [objects.Todo[0].@id]\n", with: ""))
        #expect(!workspace.exists("new.plist"))
        #expect(try workspace.listing() == ["TodoList.json", "bad.json", "bad2.json"])
    }

    @Test func malformedJSON() throws {
        let workspace = try Workspace(["bad.json": "{\"objects\": {\"Tag\": [\n  {\"@id\": 1, \"name\": \"home\",}\n]}}"], schemas: ["TodoList"])
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "bad.json")
        #expect(run.stderr == """
            strata: error: the data has 1 error; nothing was loaded
              bad.json:2:29: error: malformed JSON: trailing comma before '}'; remove the last ','

            """)
        #expect(run.status == 1)
        #expect(!workspace.exists("todo.plist"))
    }

    @Test func bothSidesOfARelationshipMustAgree() throws {
        let workspace = try Workspace(["both.json": """
            {"objects": {
              "Tag": [{"@id": 1, "name": "home", "todos": [1]}],
              "Todo": [{"@id": 1, "title": "Sweep", "createdAt": 0},
                       {"@id": 2, "title": "Mop", "createdAt": 0, "tags": [1]}]
            }}
            """], schemas: ["TodoList"])
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "both.json")
        #expect(run.stderr == """
            strata: error: the data has 1 error; nothing was loaded
              both.json:2:47: error: 'todos' of Tag @id 1 is [1] here, but the other side of the relationship makes it [1, 2]; give it from one side only, or make both sides agree [objects.Tag[0].todos]

            """)
        #expect(run.status == 1)
        #expect(!workspace.exists("todo.plist"))
    }

    // MARK: - The model's rules, checked at save

    @Test func aValidationFailureNamesTheObjectAndWhereItCameFrom() throws {
        let workspace = try Workspace.todo()
        try workspace.write("invalid.json", """
            {"objects": {"Todo": [
              {"@id": 20, "title": "", "createdAt": "2024-06-01T00:00:00Z"},
              {"@id": 21, "title": "Too urgent", "createdAt": "2024-06-01T00:00:00Z", "priority": 9},
              {"@id": 22, "title": "Buy milk", "createdAt": "2024-06-01T00:00:00Z"},
              {"@id": 23, "title": "Undated"}
            ]}}
            """)
        let before = try #require(workspace.contents("todo.plist"))
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "invalid.json")
        // In the order of the input, whatever order the context found them in.
        #expect(run.stderr == """
            strata: error: the data breaks the model's rules; nothing was written:
              Todo @id 20 (invalid.json:2:3): title: 0 characters is shorter than the minimum length 1
              Todo @id 21 (invalid.json:3:3): priority: 9 is above the maximum 5
              Todo @id 22 (invalid.json:4:3): title: 'title' must be unique, and Todo/p1 has the same value
              Todo @id 23 (invalid.json:5:3): createdAt: a value is required (the attribute is not optional)

            """)
        #expect(run.stdout == "")
        #expect(run.status == 1)
        #expect(workspace.contents("todo.plist") == before)
    }

    @Test func aValidationFailureIntoANewStoreCreatesNoStore() throws {
        let workspace = try Workspace(["undated.json": #"{"objects": {"Todo": [{"@id": 1, "title": "Undated"}]}}"#], schemas: ["TodoList"])
        let run = try workspace.run("load", "--schema", "TodoList.json", "new.plist", "undated.json")
        #expect(run.stderr == """
            strata: error: the data breaks the model's rules; nothing was written:
              Todo @id 1 (undated.json:1:23): createdAt: a value is required (the attribute is not optional)

            """)
        #expect(run.status == 1)
        #expect(!workspace.exists("new.plist"))
    }

    // MARK: - Unreadable files and bad models

    @Test func anUnreadableDataFileExits2() throws {
        let workspace = try Workspace.todo()
        let before = try #require(workspace.contents("todo.plist"))
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "todo.json", "missing.json")
        #expect(run.stderr == "strata: error: cannot read the data file 'missing.json'\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
        #expect(workspace.contents("todo.plist") == before)

        let fresh = try workspace.run("load", "--schema", "TodoList.json", "new.plist", "missing.json")
        #expect(fresh.status == 2)
        #expect(!workspace.exists("new.plist"))
    }

    @Test func aMissingModelFileExits2() throws {
        let workspace = try Workspace(["todo.json": todoData])
        let run = try workspace.run("load", "--schema", "Missing.json", "todo.plist", "todo.json")
        #expect(run.stderr == "strata: error: Missing.json: error: cannot read the file: no such file\n")
        #expect(run.status == 2)
        #expect(!workspace.exists("todo.plist"))
    }

    @Test func anInvalidModelExits1() throws {
        let workspace = try Workspace([
            "Broken.json": #"{"name": "X", "entities": [{"name": "A", "attributes": [{"name": "a", "type": "strng"}]}]}"#,
            "Truncated.json": "{\"name\": ",
            "data.json": #"{"objects": {}}"#,
        ])
        let broken = try workspace.run("load", "--schema", "Broken.json", "a.plist", "data.json")
        #expect(broken.stderr == """
            strata: error: Broken.json has 1 error:
              Broken.json:1:79: error: unknown attribute type 'strng'; did you mean 'string'? [entities[0].attributes[0].type]

            """)
        #expect(broken.status == 1)

        let truncated = try workspace.run("load", "--schema", "Truncated.json", "a.plist", "data.json")
        #expect(truncated.stderr == """
            strata: error: Truncated.json has 1 error:
              Truncated.json:1:10: error: malformed JSON: unexpected end of file; expected a value

            """)
        #expect(truncated.status == 1)
        #expect(!workspace.exists("a.plist"))
    }

    @Test(arguments: storeExtensions)
    func aStoreWrittenWithAnotherModelIsRefused(_ ext: String) throws {
        let workspace = try Workspace.moody(ext)
        try workspace.write("todo.json", todoData)
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Schemas/TodoList.json"), to: workspace.file("TodoList.json"))
        let before = try #require(workspace.contents("moody.\(ext)"))
        let files = try workspace.listing()
        let run = try workspace.run("load", "--schema", "TodoList.json", "moody.\(ext)", "todo.json")
        let moodyHash = try hashPrefix(workspace.file("Moody.json"))
        let todoHash = try hashPrefix(workspace.file("TodoList.json"))
        // Some stores name the file first.
        #expect(run.stderr.hasPrefix("strata: error: "))
        #expect(run.stderr.hasSuffix("""
            the store was written with model 'Moody' (hash \(moodyHash)…), which differs from model 'TodoList' (hash \(todoHash)…): only in the model: Location, Tag, Todo; only in the store: Continent, Country, GeographicRegion, Mood. Migrate the store, or open it with the model it was written with

            """), "stderr: \(run.stderr)")
        #expect(run.stdout == "")
        #expect(run.status == 1)
        #expect(workspace.contents("moody.\(ext)") == before)
        #expect(try workspace.listing() == files)
    }

    /// `load --type memory` used to print "loaded" into a store that vanished at exit.
    @Test func loadingIntoMemoryIsRefused() throws {
        let workspace = try Workspace(["todo.json": todoData], schemas: ["TodoList"])
        let run = try workspace.run("load", "--schema", "TodoList.json", "--type", "memory", "todo.mem", "todo.json")
        #expect(run.stderr == "strata: error: --type memory keeps nothing: the store would vanish when strata exits, so nothing would be loaded into any file; load into a file store instead (--type sqlite, xml or binary, or a store path ending in .sqlite, .xml or .plist)\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
        #expect(try workspace.listing() == ["TodoList.json", "todo.json"])
    }

    /// Keys echoed from a data file are escaped and cut: no control character reaches the
    /// terminal, and a long key does not bury the message.
    @Test func echoedKeysAreEscapedAndCut() throws {
        let key = "\u{1B}[31mred\u{0}" + String(repeating: "k", count: 300)
        let data = #"{"objects": {"Tag": [{"@id": 1, "name": "home", "\#(key.replacingOccurrences(of: "\u{1B}", with: "\\u001b").replacingOccurrences(of: "\u{0}", with: "\\u0000"))": 1}]}}"#
        let workspace = try Workspace(["bad.json": data], schemas: ["TodoList"])
        let run = try workspace.run("load", "--schema", "TodoList.json", "todo.plist", "bad.json")
        #expect(run.status == 1)
        let escaped = #"\u{1B}[31mred\u{00}"#
        let shown = escaped + String(repeating: "k", count: 200 - escaped.count) + "…"
        #expect(run.stderr.contains("entity 'Tag' has no property '\(shown)'"), "\(run.stderr)")
        #expect(!run.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    /// At a terminal (a pseudo-terminal made by script(1)), the load shows its phases on one
    /// line of standard error, erased at the end; the other tests (pipes) see none.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressAtATerminal() throws {
        let workspace = try Workspace(["todo.json": todoData], schemas: ["TodoList"])
        let executable = try #require(StrataExecutable.url)
        let command = "\(executable.path) load --schema TodoList.json todo.plist todo.json > out.txt"
        let run = try ScriptRun.run(["-qec", command, "/dev/null"], in: workspace.url)
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("\r\u{1B}[Kreading todo.json: 0 objects (0%)"), "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains("\r\u{1B}[Kresolving relationships: 0/"), "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains("\r\u{1B}[Ksaving 12 objects"), "\(run.stdout.debugDescription)")
        #expect(run.stdout.hasSuffix("\r\u{1B}[K"), "\(run.stdout.debugDescription)")
        #expect(workspace.text("out.txt") == "loaded 12 objects into todo.plist: Location 2, Tag 3, Todo 7\n")
    }

    // MARK: - Usage errors

    @Test(arguments: [
        (["load", "--schema", "TodoList.json", "todo.plist"], "Error: Missing expected argument '<data-files> ...'\n", "Usage: strata load"),
        (["load", "todo.plist", "todo.json"], "Error: Missing expected argument '--schema <schema>'\n", "Usage: strata load"),
        // The lists of types and of extensions grow with the store types.
        (["load", "--schema", "TodoList.json", "--type", "nosuch", "todo.plist", "todo.json"],
         "strata: error: unknown store type 'nosuch'; known types: memory, ", "binary"),
        (["load", "--schema", "TodoList.json", "todo.unknown", "todo.json"],
         "strata: error: cannot tell the store type of 'todo.unknown'; name it with a known extension (", ".plist (binary)"),
    ])
    func usageErrorsExit2(_ arguments: [String], _ start: String, _ detail: String) throws {
        let workspace = try Workspace(["todo.json": todoData], schemas: ["TodoList"])
        let run = try workspace.run(arguments)
        #expect(run.stderr.hasPrefix(start), "stderr: \(run.stderr)")
        #expect(run.stderr.contains(detail), "stderr: \(run.stderr)")
        #expect(run.stdout == "")
        #expect(run.status == 2)
        #expect(try workspace.listing() == ["TodoList.json", "todo.json"])
    }
}

/// The first 12 hex digits of a model file's version hash, as messages abbreviate it.
func hashPrefix(_ modelFile: URL) throws -> String {
    String(try Schema(contentsOf: modelFile).versionHash.prefix(12))
}
