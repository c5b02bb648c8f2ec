import Foundation
import Strata
import Testing

@Suite("strata update")
struct UpdateCommandTests {
    static let extensions = ["plist", "xml", "sqlite"]

    /// The same update on every store type gives the same dump, byte for byte.
    @Test(arguments: extensions)
    func setsTheMatchingObjects(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        let update = try workspace.run(
            "update", "todo.\(ext)", "Todo", "--where", "priority >= 4",
            "--set", "done=yes", "--set", "notes=", "--set", "createdAt=2025-01-02T03:04:05.678+01:00", "--set-null", "location")
        #expect(update.stderr == "strata: error: 'Todo.location' is a relationship; a batch update sets attributes only (as Core Data's does): set relationships through a context\n")
        #expect(update.status == 1)
        let good = try workspace.run(
            "update", "todo.\(ext)", "Todo", "--where", "priority >= 4",
            "--set", "done=yes", "--set", "notes=", "--set", "createdAt=2025-01-02T03:04:05.678+01:00")
        #expect(good.stdout == "updated 3 Todo objects\n")
        #expect(good.stderr == "")
        #expect(good.status == 0)
        let single = try workspace.run("update", "todo.\(ext)", "Todo", "--where", "title == 'Call Élodie'", "--set", "title=Call Élodie=done", "--set-null", "notes")
        #expect(single.stdout == "updated 1 Todo object\n")
        try golden.expect(try workspace.dump("todo.\(ext)"), matches: "update-Todo.dump.json")
    }

    /// `--set-expr KEY=EXPRESSION`: an expression of each object's own values, computed by the
    /// store; the same result on every store type, and a bad expression refused before anything.
    @Test(arguments: extensions)
    func setsExpressions(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        let run = try workspace.run(
            "update", "todo.\(ext)", "Todo", "--where", "priority >= 4", "--set-expr", "priority=priority - 3", "--set-expr", "title=uppercase:(title)")
        #expect(run.stderr == "")
        #expect(run.stdout == "updated 3 Todo objects\n")
        let todos = try #require(try workspace.dumpedObjects("todo.\(ext)")["Todo"])
        let changed = todos.filter { ($0["title"] as? String).map { $0 == $0.uppercased() } == true }
        #expect(changed.count == 3)
        #expect(changed.allSatisfy { ($0["priority"] as? Int).map { $0 >= 1 && $0 <= 2 } == true })
        let bad = try workspace.run("update", "todo.\(ext)", "Todo", "--where", "TRUEPREDICATE", "--set-expr", "priority=priority +")
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("strata: error: --set-expr \"priority=priority +\": invalid expression:"))
        let unknown = try workspace.run("update", "todo.\(ext)", "Todo", "--where", "TRUEPREDICATE", "--set-expr", "priority=priorty + 1")
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("did you mean 'priority'"))
    }

    /// Every attribute type read from its text.
    @Test(arguments: extensions)
    func readsEveryType(_ ext: String) throws {
        let workspace = try Workspace(schemas: ["KitchenSink"])
        try workspace.load("sink.\(ext)", schema: "KitchenSink.json", data: [("sink.json", kitchenSinkData)])
        let run = try workspace.run(
            "update", "sink.\(ext)", "Product", "--where", "TRUEPREDICATE",
            "--set", "stock=10000", "--set", "views=7", "--set", "serial=9223372036854775807",
            "--set", "price=12345678901234567890.123456789", "--set", "score=NaN", "--set", "reach=1e-300",
            "--set", "ratio=0.5", "--set", "available=FALSE", "--set", "releaseDate=2099-07-20T20:17:40-02:30",
            "--set", "thumbnail=AAEC", "--set", "batch=e621e1f8-c36c-495a-93fc-0c247a3e6e5f",
            "--set", "homepage=https://example.org/x?y=1", "--set", "name=null", "--set-null", "notes")
        #expect(run.stderr == "")
        #expect(run.stdout == "updated 2 Product objects\n")
        let products = try #require(try workspace.dumpedObjects("sink.\(ext)")["Product"])
        for product in products {
            #expect(product["stock"] as? Int == 10000)
            #expect(product["serial"] as? Int64 == Int64.max)
            #expect(product["price"] as? String == "12345678901234567890.123456789")
            #expect(product["score"] as? String == "NaN")
            #expect(product["reach"] as? Double == 1e-300)
            #expect(product["available"] as? Bool == false)
            #expect(product["releaseDate"] as? String == "2099-07-20T22:47:40.000Z")
            #expect(product["thumbnail"] as? String == "AAEC")
            #expect(product["batch"] as? String == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            #expect(product["homepage"] as? String == "https://example.org/x?y=1")
            #expect(product["name"] as? String == "null")
            #expect(product["notes"] is NSNull)
        }
    }

    /// A value that breaks a rule changes nothing: exit 1, the objects and rules listed.
    @Test(arguments: [
        (["--where", "priority >= 4", "--set", "priority=9"], """
            strata: error: the save was refused: 3 problems found; nothing was written
              Todo/p2.priority: 9 is above the maximum 5
              Todo/p6.priority: 9 is above the maximum 5
              Todo/p10.priority: 9 is above the maximum 5

            """),
        (["--where", "done == YES", "--set", "title="], """
            strata: error: the save was refused: 1 problem found; nothing was written
              Todo/p3.title: 0 characters is shorter than the minimum length 1

            """),
        (["--where", "priority == 4", "--set-null", "createdAt"], """
            strata: error: the save was refused: 2 problems found; nothing was written
              Todo/p2.createdAt: a value is required (the attribute is not optional)
              Todo/p6.createdAt: a value is required (the attribute is not optional)

            """),
        (["--where", "priority == 4", "--set", "title=Same"], """
            strata: error: the save would break a uniqueness constraint
              Todo/p6.title: 'title' must be unique, and Todo/p2 has the same value

            """),
        (["--where", "priority == 4", "--set", "title=Buy milk"], """
            strata: error: the save would break a uniqueness constraint
              Todo/p2.title: 'title' must be unique, and Todo/p1 has the same value
              Todo/p6.title: 'title' must be unique, and Todo/p1 has the same value

            """),
        (["--where", "TRUEPREDICATE", "--set", "priority=high"], """
            strata: error: --set "priority=high": 'priority' is an int16 attribute; expected an int16 (a whole number from -32768 to 32767), found "high"

            """),
        (["--where", "TRUEPREDICATE", "--set", "priority=70000"], """
            strata: error: --set "priority=70000": 'priority' is an int16 attribute; expected an int16 (a whole number from -32768 to 32767), found 70000

            """),
        (["--where", "TRUEPREDICATE", "--set", "done=maybe"], """
            strata: error: --set "done=maybe": 'done' is a bool attribute; expected true or false, found "maybe"

            """),
        (["--where", "TRUEPREDICATE", "--set", "createdAt=yesterday"], """
            strata: error: --set "createdAt=yesterday": 'createdAt' is a date attribute; expected an ISO 8601 date like "2024-05-01T10:00:00.000Z", found "yesterday"

            """),
        (["--where", "TRUEPREDICATE", "--set", "titel=x"], "strata: error: entity 'Todo' has no attribute 'titel'; did you mean 'title'?\n"),
        (["--where", "titel == 'x'", "--set", "title=x"], "strata: error: entity 'Todo' has no property 'titel' (in key path 'titel'); did you mean 'title'?\n"),
        (["--where", "TRUEPREDICATE", "--set", "notes=a", "--set-null", "notes"], "strata: error: 'notes' is set twice\n"),
    ] as [([String], String)])
    func refusedUpdatesChangeNothing(_ arguments: [String], _ stderr: String) throws {
        for ext in Self.extensions {
            let workspace = try Workspace.todo(ext)
            let before = try workspace.dump("todo.\(ext)")
            let run = try workspace.run(["update", "todo.\(ext)", "Todo"] + arguments)
            #expect(run.stderr == stderr, "\(ext)")
            #expect(run.stdout == "")
            #expect(run.status == 1)
            #expect(try workspace.dump("todo.\(ext)") == before)
        }
    }

    @Test func usageErrorsExit2() throws {
        let workspace = try Workspace.todo()
        let before = try #require(workspace.contents("todo.plist"))
        let noSet = try workspace.run("update", "todo.plist", "Todo", "--where", "TRUEPREDICATE")
        #expect(noSet.stderr.hasPrefix("Error: give at least one --set KEY=VALUE or --set-null KEY\n"), "\(noSet.stderr)")
        #expect(noSet.status == 2)
        let noEquals = try workspace.run("update", "todo.plist", "Todo", "--where", "TRUEPREDICATE", "--set", "done")
        #expect(noEquals.stderr.hasPrefix("Error: --set 'done' has no '='"), "\(noEquals.stderr)")
        #expect(noEquals.status == 2)
        let noWhere = try workspace.run("update", "todo.plist", "Todo", "--set", "done=1")
        #expect(noWhere.stderr.hasPrefix("Error: Missing expected argument '--where <where>'\n"), "\(noWhere.stderr)")
        #expect(noWhere.status == 2)
        #expect(workspace.contents("todo.plist") == before)
        let missing = try workspace.run("update", "missing.plist", "Todo", "--where", "TRUEPREDICATE", "--set", "done=1")
        #expect(missing.stderr == "strata: error: no store at 'missing.plist'\n")
        #expect(missing.status == 2)
    }

    /// An update beside a load of the same store, as separate processes: every object the update
    /// matched is updated, and every object the load added is there.
    @Test(arguments: extensions)
    func besideAnotherProcessWritingTheStore(_ ext: String) throws {
        let todos = (0..<300).map { "{\"@id\": \(1_000 + $0), \"title\": \"loaded \($0)\", \"createdAt\": 0, \"notes\": \"loaded\"}" }
        let workspace = try Workspace(["more.json": "{\"objects\": {\"Todo\": [\n" + todos.joined(separator: ",\n") + "\n]}}"], schemas: ["TodoList"])
        try workspace.load("todo.\(ext)", schema: "TodoList.json", data: [("todo.json", todoData)])
        for round in 1...3 {
            let runs = try ConcurrentProcessTests.runTogether(workspace, [
                ["update", "todo.\(ext)", "Todo", "--where", "NOT title BEGINSWITH 'loaded'", "--set", "priority=\(round)"],
                ["load", "--schema", "TodoList.json", "todo.\(ext)", "more.json"],
            ])
            #expect(runs[0].stdout == "updated 7 Todo objects\n", "round \(round): \(runs[0].stderr)")
            #expect(runs[0].status == 0)
            #expect(runs[1].status == 0, "round \(round): \(runs[1].stderr)")
            let stored = try #require(try workspace.dumpedObjects("todo.\(ext)")["Todo"])
            #expect(stored.count == 307)
            #expect(stored.filter { $0["notes"] as? String != "loaded" }.map { $0["priority"] as? Int } == Array(repeating: round, count: 7), "round \(round)")
            let remove = try workspace.run("delete", "todo.\(ext)", "Todo", "--where", "title BEGINSWITH 'loaded'")
            #expect(remove.stdout == "deleted 300 Todo objects\n")
        }
    }
}
