import Foundation
import Testing

/// `strata query --select/--group-by/--having/--distinct` and `--format csv`, against
/// ``todoData`` in a binary, an XML and a SQLite store: every query prints the same on each.
@Suite("strata query rows", .sharedWorkspace {
    let workspace = try Workspace.todo()
    try workspace.load("todo.xml", schema: "TodoList.json", data: [("todo.json", todoData)])
    try workspace.load("todo.sqlite", schema: "TodoList.json", data: [("todo.json", todoData)])
    return workspace
})
struct QueryRowsTests {
    static let stores = ["todo.plist", "todo.xml", "todo.sqlite"]

    /// Runs a query on every store, expects the same successful output from each, returns it.
    static func query(_ arguments: [String]) throws -> String {
        let workspace = try SharedWorkspace.get()
        var outputs: [String] = []
        for store in stores {
            let run = try workspace.run(["query", store] + arguments)
            #expect(run.stderr == "", "\(store)")
            #expect(run.status == 0, "\(store)")
            outputs.append(run.stdout)
        }
        #expect(Set(outputs).count == 1, "the stores disagree: \(outputs)")
        return outputs[0]
    }

    @Test func groupsWithAggregatesAsCSV() throws {
        let csv = try Self.query([
            "Todo", "--select", "location.name,@count,@avg.priority,@sum.priority,@max.createdAt", "--group-by", "location.name",
            "--sort", "-@count", "--format", "csv",
        ])
        try golden.expect(csv, matches: "query-Todo-groups.csv")
    }

    @Test func groupsAsATable() throws {
        let table = try Self.query(["Todo", "--select", "location.name,@count,@min.title", "--group-by", "location.name", "--format", "table"])
        try golden.expect(table, matches: "query-Todo-groups.table.txt")
    }

    @Test func havingKeepsSomeGroups() throws {
        let csv = try Self.query(["Todo", "--select", "done,@count", "--group-by", "done", "--having", "@count > 1", "--format", "csv"])
        #expect(csv == "done,@count\r\nfalse,6\r\n")
    }

    @Test func aggregatesWithoutGroupsAreOneRow() throws {
        let csv = try Self.query(["Todo", "--select", "@count,@count.notes,@sum.priority,@min.createdAt", "--where", "done == NO", "--format", "csv"])
        #expect(csv == "@count,@count.notes,@sum.priority,@min.createdAt\r\n6,2,18,2024-05-01T10:00:00.000Z\r\n")
    }

    @Test func rowsAsJSON() throws {
        let json = try Self.query(["Todo", "--select", "location,@count", "--group-by", "location", "--sort", "-location"])
        #expect(json == """
            [
              {
                "location": 2,
                "@count": 2
              },
              {
                "location": 1,
                "@count": 2
              },
              {
                "location": null,
                "@count": 3
              }
            ]

            """)
    }

    @Test func distinctValuesInTheOrderOfTheirFirstObject() throws {
        let csv = try Self.query(["Todo", "--select", "location.name", "--distinct", "--sort", "title", "--format", "csv"])
        #expect(csv == "location.name\r\nHome\r\n\r\nOffice\r\n")
        let window = try Self.query(["Todo", "--select", "priority", "--distinct", "--sort", "-priority", "--offset", "1", "--limit", "2", "--format", "csv"])
        #expect(window == "priority\r\n4\r\n3\r\n")
    }

    @Test func plainColumnsAndPerObjectAggregates() throws {
        let csv = try Self.query(["Tag", "--select", "name,todos.@count,todos.@max.priority", "--sort", "-todos.@count,name", "--format", "csv"])
        #expect(csv == "name,todos.@count,todos.@max.priority\r\nhome,3,5\r\nwork,3,5\r\nerrands,2,3\r\n")
    }

    /// `name=expression`: functions and arithmetic of the predicate language as columns.
    @Test func namedExpressions() throws {
        let csv = try Self.query([
            "Todo", "--select", "location.name,n=count:(title),mean=sum:(priority) / @count,label=uppercase:(location.name)",
            "--group-by", "location.name", "--sort", "-mean", "--format", "csv",
        ])
        #expect(csv == "location.name,n,mean,label\r\nOffice,2,4.0,OFFICE\r\nHome,2,3.5,HOME\r\n,3,1.3333333333333333,\r\n")
        let plain = try Self.query(["Todo", "--select", "title, next = add:to:(priority, 1)", "--sort", "title", "--limit", "2", "--format", "csv"])
        #expect(plain == "title,next\r\nBuy milk,3\r\nCall Élodie,2\r\n")
    }

    /// RFC 4180: fields with commas, double quotes or line breaks in double quotes, quotes
    /// doubled; nil as an empty field.
    @Test func csvQuotesWhatItMust() throws {
        let workspace = try Workspace(schemas: ["TodoList"])
        try workspace.load("tags.plist", schema: "TodoList.json", data: [("tags.json", """
            {"objects": {"Tag": [{"@id": 1, "name": "plain"}, {"@id": 2, "name": "a,b"}, {"@id": 3, "name": "say \\"hi\\""},
              {"@id": 4, "name": "two\\nlines"}, {"@id": 5, "name": "cr\\r"}]}}
            """)])
        let run = try workspace.run("query", "tags.plist", "Tag", "--select", "name,todos.@max.title", "--format", "csv")
        #expect(run.stdout == "name,todos.@max.title\r\nplain,\r\n\"a,b\",\r\n\"say \"\"hi\"\"\",\r\n\"two\nlines\",\r\n\"cr\r\",\r\n")
        #expect(run.status == 0)
    }

    /// Without --select, CSV has the columns of the table: @id, attributes, to-one @ids.
    @Test func objectsAsCSV() throws {
        let csv = try Self.query(["Location", "--sort", "name", "--format", "csv"])
        try golden.expect(csv, matches: "query-Location.csv")
    }

    @Test(arguments: [
        (["--select", "titel"], "entity 'Todo' has no property 'titel' (in key path 'titel'); did you mean 'title'?"),
        (["--select", "location.nme,@count", "--group-by", "location.nme"], "entity 'Location' has no property 'nme' (in key path 'location.nme'); did you mean 'name'?"),
        (["--select", "title,@count"], "the column 'title' is neither grouped nor aggregated; add 'title' to propertiesToGroupBy or fetch an aggregate of it such as '@max.title'"),
        (["--select", "@count", "--having", "n > 1"], "the having predicate names 'n', which is not a column or group key of the fetch ('@count')"),
        (["--select", "@avg.title"], "'@avg.title' adds string values; @avg takes numbers"),
        (["--select", "title,,notes"], "--select has an empty key in 'title,,notes'"),
        (["--select", "x=sum:("], "--select: invalid expression 'sum:(' for column 'x': sum: takes 1 argument, not 0"),
        (["--select", "=title"], "--select has '=title'; a named column is name=expression, such as revenue=sum:(price)"),
        (["--select", "done,@count", "--group-by", "done", "--sort", "-count"], "cannot sort grouped results by 'count': sort by a column or group key ('done', '@count'); did you mean '@count'?"),
    ])
    func badColumnsExit1(_ options: [String], _ message: String) throws {
        let workspace = try SharedWorkspace.get()
        for store in Self.stores {
            let run = try workspace.run(["query", store, "Todo"] + options)
            #expect(run.stderr == "strata: error: \(message)\n", "\(store)")
            #expect(run.stdout == "")
            #expect(run.status == 1)
        }
    }

    @Test(arguments: [
        (["--select", "title", "--count"], "Error: --count counts objects; it does not go with --select, --group-by, --having or --distinct"),
        (["--distinct", "--format", "ids"], "Error: --format ids lists objects; use json, table or csv with --select, --group-by, --having or --distinct"),
    ])
    func usageErrorsExit2(_ options: [String], _ message: String) throws {
        let workspace = try SharedWorkspace.get()
        let run = try workspace.run(["query", "todo.plist", "Todo"] + options)
        #expect(run.stderr.hasPrefix(message + "\n"), "stderr: \(run.stderr)")
        #expect(run.status == 2)
    }
}
