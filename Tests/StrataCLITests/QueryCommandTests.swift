import Foundation
import Testing

/// Queries run against ``todoData`` (see its table) and ``moodyData``, in a workspace the
/// tests share: none of them writes to it.
@Suite("strata query", .sharedWorkspace {
    let workspace = try Workspace.todo()
    try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Schemas/Moody.json"), to: workspace.file("Moody.json"))
    try workspace.load("moody.plist", schema: "Moody.json", data: [("moody.json", moodyData)])
    return workspace
})
struct QueryCommandTests {
    // MARK: - The predicate language

    /// Each predicate and the @ids it matches, by creation date (the order of the @ids).
    @Test(arguments: [
        ("ANY tags.name ==[c] \"HOME\"", [1, 3, 10]),
        ("ANY tags.name == \"HOME\"", []),
        ("title BEGINSWITH[cd] \"buy\"", [1, 4]),
        ("title BEGINSWITH \"buy\"", [4]),
        ("title ==[cd] \"call elodie\"", [3]),
        ("title ==[c] \"call elodie\"", []),
        ("title CONTAINS[c] 'R'", [2, 6, 10]),
        ("title LIKE '*e*'", [2, 3, 5, 6]),
        ("title ENDSWITH 'e' OR title MATCHES 'P.* t.*'", [3, 5, 10]),
        ("tags.@count >= 2", [1, 10]),
        ("tags.@count == 0", [5]),
        ("location.todos.@count == 2", [1, 2, 6, 10]),
        ("SUBQUERY(tags, $t, $t.name == \"home\" OR $t.name == \"work\").@count == 2", [10]),
        ("SUBQUERY(tags, $t, $t.name BEGINSWITH \"e\").@count > 0", [1, 4]),
        ("priority BETWEEN {2, 4}", [1, 2, 4, 6]),
        ("priority IN {0, 5}", [5, 10]),
        ("title IN {\"Fix bike\", \"Pay rent\", \"Nothing\"}", [5, 6]),
        ("location.name IN {\"Home\"}", [1, 10]),
        ("NOT (ANY tags.name == \"home\") AND done == NO", [2, 4, 5, 6]),
        ("ALL tags.name != 'work'", [1, 3, 4, 5]),
        ("notes != nil", [2, 10]),
        ("location == nil", [3, 4, 5]),
        ("done == YES OR priority > 4", [3, 10]),
        ("createdAt >= CAST(736560000, \"NSDate\")", [5, 6, 10]),
        ("TRUEPREDICATE", [1, 2, 3, 4, 5, 6, 10]),
        ("FALSEPREDICATE", []),
    ])
    func predicate(_ predicate: String, _ ids: [Int]) throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "Todo", "--where", predicate, "--sort", "createdAt", "--format", "ids")
        #expect(run.stdout == ids.map { "\($0)\n" }.joined())
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    // MARK: - Sort, limit, offset, count

    @Test(arguments: [
        (["--sort", "-priority,title"], [10, 6, 2, 4, 1, 3, 5]),
        (["--sort", "priority,-title"], [5, 3, 1, 4, 2, 6, 10]),
        (["--sort=-priority, title"], [10, 6, 2, 4, 1, 3, 5]),
        // Unicode order: upper case before lower case.
        (["--sort", "title"], [1, 3, 5, 6, 10, 2, 4]),
        (["--sort", "-createdAt"], [10, 6, 5, 4, 3, 2, 1]),
        // Through a to-one relationship; nil first when ascending, then by title.
        (["--sort", "location.name,title"], [3, 5, 4, 1, 10, 6, 2]),
        (["--sort", "-priority,title", "--limit", "3"], [10, 6, 2]),
        (["--sort", "-priority,title", "--limit", "3", "--offset", "2"], [2, 4, 1]),
        (["--sort", "-priority,title", "--offset", "5"], [3, 5]),
        (["--sort", "-priority,title", "--offset", "7"], []),
        // 0 is no limit, as in Core Data.
        (["--sort", "-priority,title", "--limit", "0"], [10, 6, 2, 4, 1, 3, 5]),
        (["--where", "done == NO", "--sort", "-priority,title", "--limit", "2", "--offset", "1"], [6, 2]),
    ])
    func sortLimitAndOffset(_ options: [String], _ ids: [Int]) throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run(["query", "todo.plist", "Todo", "--format", "ids"] + options)
        #expect(run.stdout == ids.map { "\($0)\n" }.joined())
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    @Test(arguments: [
        ([], "7"),
        (["--where", "ANY tags.name == 'home'"], "3"),
        (["--where", "priority > 9"], "0"),
        (["--limit", "2"], "2"),
        (["--offset", "5"], "2"),
        // The format does not matter with --count.
        (["--where", "done == YES", "--format", "table"], "1"),
    ])
    func count(_ options: [String], _ count: String) throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run(["query", "todo.plist", "Todo", "--count"] + options)
        #expect(run.stdout == count + "\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    // MARK: - Output formats

    @Test func tableMatchesTheGoldenFile() throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "Todo", "--sort", "-priority,title", "--format", "table")
        #expect(run.stderr == "")
        #expect(run.status == 0)
        try golden.expect(run.stdout, matches: "query-Todo.table.txt")
    }

    @Test func tableOfNothing() throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "Tag", "--where", "name == 'none'", "--format", "table")
        #expect(run.stdout == "(no objects)\n")
        #expect(run.status == 0)
    }

    /// JSON is the data format, the objects in result order.
    @Test func json() throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "Tag", "--where", "todos.@count >= 2", "--sort", "-name")
        #expect(run.stdout == """
            {
              "objects": {
                "Tag": [
                  {
                    "@id": 2,
                    "name": "work",
                    "todos": [
                      2,
                      6,
                      10
                    ]
                  },
                  {
                    "@id": 1,
                    "name": "home",
                    "todos": [
                      1,
                      3,
                      10
                    ]
                  },
                  {
                    "@id": 3,
                    "name": "errands",
                    "todos": [
                      1,
                      4
                    ]
                  }
                ]
              }
            }

            """)
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    @Test func jsonOfNothing() throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "Tag", "--where", "FALSEPREDICATE", "--format", "json")
        #expect(run.stdout == "{\n  \"objects\": {}\n}\n")
        #expect(run.status == 0)
    }

    /// What `query --format json` prints, `load` reads back.
    @Test func jsonLoadsBack() throws {
        let workspace = try Workspace(schemas: ["KitchenSink"])
        try workspace.load("sink.plist", schema: "KitchenSink.json", data: [("sink.json", kitchenSinkData)])
        let query = try workspace.run("query", "sink.plist", "Product", "--sort", "-name")
        #expect(query.status == 0)
        try workspace.write("products.json", query.stdout)
        let load = try workspace.run("load", "--schema", "KitchenSink.json", "products.plist", "products.json")
        #expect(load.stdout == "loaded 2 objects into products.plist: Product 2\n")
        #expect(load.stderr == "")
        #expect(try workspace.dump("products.plist", "--entity", "Product") == (try workspace.dump("sink.plist", "--entity", "Product")))
    }

    @Test func ids() throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "Location", "--format", "ids", "--sort", "name")
        #expect(run.stdout == "2\n1\n")
        #expect(run.status == 0)
    }

    // MARK: - An abstract entity

    @Test func anAbstractEntityReturnsItsConcreteObjects() throws {
        let workspace = try SharedWorkspace.get()
        let ids = try workspace.run("query", "moody.plist", "GeographicRegion", "--sort", "name", "--format", "ids")
        #expect(ids.stdout == "2\n1\n10\n12\n11\n")
        #expect(ids.status == 0)

        let count = try workspace.run("query", "moody.plist", "GeographicRegion", "--count", "--where", "code BEGINSWITH 'E' OR code == 'FR'")
        #expect(count.stdout == "2\n")

        let table = try workspace.run("query", "moody.plist", "GeographicRegion", "--sort", "-code", "--format", "table")
        #expect(table.status == 0)
        try golden.expect(table.stdout, matches: "query-GeographicRegion.table.txt")

        // JSON groups the objects by concrete entity, each group in result order.
        let json = try workspace.run("query", "moody.plist", "GeographicRegion", "--sort", "-name")
        let objects = try parseObjects(json.stdout)
        #expect(Set(objects.keys) == ["Continent", "Country"])
        #expect(objects["Continent"]?.ids == [1, 2])
        #expect(objects["Country"]?.ids == [11, 12, 10])
    }

    // MARK: - Errors

    @Test func anInvalidPredicateShowsWhere() throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "Todo", "--where", "title ==[c] 'x' AND")
        #expect(run.stderr == """
            strata: error: invalid predicate: expected a predicate after 'AND' at column 20
              title ==[c] 'x' AND
                                 ^

            """)
        #expect(run.stdout == "")
        #expect(run.status == 1)

        let option = try workspace.run("query", "todo.plist", "Todo", "--where", "title BEGINSWITH[cx] 'b'")
        #expect(option.stderr == """
            strata: error: invalid predicate: unknown comparison option 'x'; use c (case-insensitive), d (diacritic-insensitive) or n (normalized) at column 19
              title BEGINSWITH[cx] 'b'
                                ^

            """)
        #expect(option.status == 1)
    }

    @Test(arguments: [
        (["--where", "titel == 'x'"], "entity 'Todo' has no property 'titel' (in key path 'titel'); did you mean 'title'?"),
        (["--where", "ANY tags.nme == 'home'"], "entity 'Tag' has no property 'nme' (in key path 'tags.nme'); did you mean 'name'?"),
        (["--where", "location.todos.@count > 1 AND location.lattitude > 0"], "entity 'Location' has no property 'lattitude' (in key path 'location.lattitude'); did you mean 'latitude'?"),
        (["--sort", "-priorty"], "entity 'Todo' has no property 'priorty' (in key path 'priorty'); did you mean 'priority'?"),
        (["--sort", "tags"], "cannot sort by 'tags': 'tags' is a to-many relationship; sort keys go through to-one relationships only"),
        (["--sort", "title,"], "--sort has an empty key in 'title,'"),
        (["--sort", "-priority,,title"], "--sort has an empty key in '-priority,,title'"),
        (["--sort", "title,-"], "--sort has an empty key in 'title,-'"),
    ])
    func anUnknownKeyPathIsNamed(_ options: [String], _ message: String) throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run(["query", "todo.plist", "Todo"] + options)
        #expect(run.stderr == "strata: error: \(message)\n")
        #expect(run.stdout == "")
        #expect(run.status == 1)
    }

    /// C1 and W1 through the CLI: on xml, binary and sqlite stores, a key path of 70 to-one
    /// steps (more tables than SQLite joins) answers, one past the limit (and 5,000 steps, which
    /// crashed the sqlite store) and a MATCHES the regex engine cannot decide exit 1 with the
    /// same message.
    @Test func limitsAreTheSameOnEveryStore() throws {
        let model = """
            { "name": "Chain", "entities": [
              { "name": "Node",
                "attributes": [ { "name": "s", "type": "string", "optional": true } ],
                "relationships": [
                  { "name": "parent", "destination": "Node", "inverse": "children", "optional": true },
                  { "name": "children", "destination": "Node", "inverse": "parent", "toMany": true } ] } ] }
            """
        let hard = String(repeating: "a", count: 25) + "!"
        let nodes = (1...80).map { n in
            "{\"@id\": \(n)" + (n == 1 ? ", \"s\": \"\(hard)\"" : ", \"parent\": \(n - 1)") + "}"
        }
        let workspace = try Workspace(["chain.json": model])
        let stores = ["chain.xml", "chain.plist", "chain.sqlite"]
        for store in stores {
            try workspace.load(store, schema: "chain.json", data: [("nodes.json", "{\"objects\": {\"Node\": [\(nodes.joined(separator: ", "))]}}")])
        }
        func parents(_ hops: Int) -> String { Array(repeating: "parent", count: hops).joined(separator: ".") }
        for store in stores {
            let deep = try workspace.run("query", store, "Node", "--where", "\(parents(70)).s MATCHES 'a+!'", "--format", "ids")
            #expect(deep.stdout == "71\n", "\(store): \(deep.stderr)")
            #expect(deep.status == 0)
            for hops in [100, 5_000] {
                let run = try workspace.run("query", store, "Node", "--where", "\(parents(hops)).s == nil", "--format", "ids")
                #expect(run.stderr == "strata: error: the key path 'parent.parent.parent.….parent.s' has \(hops + 1) components; a key path may have at most 100\n", "\(store)")
                #expect(run.stdout == "")
                #expect(run.status == 1)
            }
            let matches = try workspace.run("query", store, "Node", "--where", "s MATCHES '(a+)+c|a*!'", "--format", "ids")
            #expect(matches.stderr == "strata: error: MATCHES failed: the pattern \"(a+)+c|a*!\" could not be evaluated: the match exceeded the regular expression engine's limits (too much backtracking or nesting); simplify the pattern, for example by removing nested quantifiers such as (a+)+\n", "\(store)")
            #expect(matches.stdout == "")
            #expect(matches.status == 1)
        }
    }

    @Test func anUnknownEntityExits1() throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "Todos")
        #expect(run.stderr == "strata: error: the model 'TodoList' has no entity 'Todos'; did you mean 'Todo'?\n")
        #expect(run.status == 1)
    }

    /// Values with control characters are escaped in tables, and long ones cut at 200
    /// characters: an ESC in the data cannot rewrite the terminal, a newline cannot forge a row.
    @Test func tableCellsAreEscapedAndCut() throws {
        let long = String(repeating: "x", count: 250)
        let workspace = try Workspace(schemas: ["TodoList"])
        try workspace.load("tags.plist", schema: "TodoList.json", data: [("tags.json", """
            {"objects": {"Tag": [{"@id": 1, "name": "a\\u001b[2Jb\\u0000c\\nd\\u0085e"}, {"@id": 2, "name": "\(long)"}]}}
            """)])
        let run = try workspace.run("query", "tags.plist", "Tag", "--format", "table")
        #expect(run.stdout == """
            @id  name
            ---  \(String(repeating: "-", count: 201))
            1    a\\u{1B}[2Jb\\u{00}c\\nd\\u{85}e
            2    \(String(repeating: "x", count: 200))…

            """)
        #expect(run.status == 0)
    }

    /// An entity name given on the command line is echoed escaped and cut.
    @Test func anEchoedEntityNameIsEscapedAndCut() throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run("query", "todo.plist", "\u{1B}]0;owned\u{7}" + String(repeating: "E", count: 500))
        let escaped = #"\u{1B}]0;owned\u{07}"#
        #expect(run.stderr == "strata: error: the model 'TodoList' has no entity '\(escaped)\(String(repeating: "E", count: 200 - escaped.count))…'\n")
        #expect(run.status == 1)
    }

    @Test func aMissingStoreExits2() throws {
        let workspace = try Workspace()
        let run = try workspace.run("query", "missing.plist", "Todo")
        #expect(run.stderr == "strata: error: no store at 'missing.plist'\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
    }

    @Test(arguments: [
        (["--limit", "-1"], "Error: Missing value for '--limit <limit>'"),
        (["--limit=-1"], "Error: --limit must be 0 (no limit) or more, not -1"),
        (["--offset=-3"], "Error: --offset must be 0 or more, not -3"),
        (["--format", "xml"], "Error: The value 'xml' is invalid for '--format <format>'. Please provide one of 'json', 'table', 'ids' or 'csv'."),
    ])
    func usageErrorsExit2(_ options: [String], _ message: String) throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run(["query", "todo.plist", "Todo"] + options)
        #expect(run.stderr.hasPrefix(message + "\n"), "stderr: \(run.stderr)")
        #expect(run.stdout == "")
        #expect(run.status == 2)
    }
}
