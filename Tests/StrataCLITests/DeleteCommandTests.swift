import Foundation
import Testing

@Suite("strata delete")
struct DeleteCommandTests {
    @Test func deletesWhatMatchesAndNullifiesTheInverses() throws {
        let workspace = try Workspace.todo()
        let run = try workspace.run("delete", "todo.plist", "Todo", "--where", "ANY tags.name == 'work'")
        #expect(run.stdout == "deleted 3 Todo objects\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)

        let objects = try workspace.dumpedObjects("todo.plist")
        #expect(objects["Todo"]?.ids == [1, 3, 4, 5])
        #expect(objects["Tag"]?[id: 2]?["todos"] as? [Int] == [])
        #expect(objects["Tag"]?[id: 1]?["todos"] as? [Int] == [1, 3])
        #expect(objects["Location"]?[id: 1]?["todos"] as? [Int] == [])
        #expect(objects["Location"]?[id: 2]?["todos"] as? [Int] == [1])
    }

    @Test func oneObject() throws {
        let workspace = try Workspace.todo()
        let run = try workspace.run("delete", "todo.plist", "Tag", "--where", "name == 'errands'")
        #expect(run.stdout == "deleted 1 Tag object\n")
        #expect(run.status == 0)
        let objects = try workspace.dumpedObjects("todo.plist")
        #expect(objects["Tag"]?.ids == [1, 2])
        #expect(objects["Todo"]?[id: 1]?["tags"] as? [Int] == [1])
        #expect(objects["Todo"]?[id: 4]?["tags"] as? [Int] == [])
    }

    @Test func nothingMatches() throws {
        let workspace = try Workspace.todo()
        let before = try #require(workspace.contents("todo.plist"))
        let run = try workspace.run("delete", "todo.plist", "Todo", "--where", "priority > 5")
        #expect(run.stdout == "deleted 0 Todo objects\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)
        #expect(workspace.contents("todo.plist") == before)
    }

    @Test func everything() throws {
        let workspace = try Workspace.todo()
        let run = try workspace.run("delete", "todo.plist", "Todo", "--where", "TRUEPREDICATE")
        #expect(run.stdout == "deleted 7 Todo objects\n")
        #expect(run.status == 0)
        let objects = try workspace.dumpedObjects("todo.plist")
        #expect(objects["Todo"]?.ids == [])
        #expect(objects["Tag"]?.ids == [1, 2, 3])
    }

    // MARK: - Delete rules

    /// Deleting Europe cascades to France and Germany; the mood of France loses its country.
    @Test func cascadedDeletesAreCounted() throws {
        let workspace = try Workspace.moody()
        let run = try workspace.run("delete", "moody.plist", "Continent", "--where", "code == 'EU'")
        #expect(run.stdout == "deleted 1 Continent object and 2 more by cascade\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)

        let objects = try workspace.dumpedObjects("moody.plist")
        #expect(objects["Continent"]?.ids == [2])
        #expect(objects["Country"]?.ids == [11])
        #expect(objects["Mood"]?.ids == [1, 2])
        #expect(objects["Mood"]?[id: 1]?["country"] is NSNull)
        #expect(objects["Mood"]?[id: 2]?["country"] as? Int == 11)
    }

    /// Through the abstract entity: what the predicate matched and what cascaded are counted
    /// once each.
    @Test func anAbstractEntity() throws {
        let workspace = try Workspace.moody()
        let countries = try workspace.run("delete", "moody.plist", "GeographicRegion", "--where", "code IN {'JP', 'DE'}")
        #expect(countries.stdout == "deleted 2 GeographicRegion objects\n")
        #expect(countries.status == 0)

        // Europe cascades to France; Asia has no country left. Nothing is counted twice.
        let all = try workspace.run("delete", "moody.plist", "GeographicRegion", "--where", "code != 'FR'")
        #expect(all.stdout == "deleted 2 GeographicRegion objects and 1 more by cascade\n")
        #expect(all.status == 0)
        let objects = try workspace.dumpedObjects("moody.plist")
        #expect(objects["Continent"]?.ids == [])
        #expect(objects["Country"]?.ids == [])
        #expect(objects["Mood"]?.map { $0["country"] is NSNull } == [true, true])
    }

    /// A deny rule refuses the whole delete: nothing is deleted, not even the objects it allows.
    @Test func aDenyRuleRefusesAndTheStoreIsUnchanged() throws {
        let workspace = try Workspace(["Library.json": libraryModel])
        try workspace.load("library.plist", schema: "Library.json", data: [("library.json", libraryData)])
        let dump = try workspace.dump("library.plist")
        let bytes = try #require(workspace.contents("library.plist"))

        let run = try workspace.run("delete", "library.plist", "Author", "--where", "TRUEPREDICATE")
        #expect(run.stderr == """
            strata: error: the save was refused: 1 problem found; nothing was written
              Author/p1.books: cannot delete Author/p1 while it has 2 Book objects (delete rule deny); remove or delete them first

            """)
        #expect(run.stdout == "")
        #expect(run.status == 1)
        #expect(try workspace.dump("library.plist") == dump)
        #expect(workspace.contents("library.plist") == bytes)

        // The author without books can go.
        let allowed = try workspace.run("delete", "library.plist", "Author", "--where", "books.@count == 0")
        #expect(allowed.stdout == "deleted 1 Author object\n")
        #expect(allowed.status == 0)
        // And once its books are gone, so can the other.
        #expect(try workspace.run("delete", "library.plist", "Book", "--where", "author != nil").stdout == "deleted 2 Book objects\n")
        #expect(try workspace.run("delete", "library.plist", "Author", "--where", "TRUEPREDICATE").stdout == "deleted 1 Author object\n")
        #expect(try workspace.dumpedObjects("library.plist")["Book"]?.ids == [3])
    }

    // MARK: - Errors leave the store as it was

    @Test(arguments: [
        (["Todo", "--where", "title =="], 1, """
            strata: error: invalid predicate: expected a value after '==' at column 9
              title ==
                      ^

            """),
        (["Todo", "--where", "titel == 'x'"], 1, "strata: error: entity 'Todo' has no property 'titel' (in key path 'titel'); did you mean 'title'?\n"),
        (["Todos", "--where", "TRUEPREDICATE"], 1, "strata: error: the model 'TodoList' has no entity 'Todos'; did you mean 'Todo'?\n"),
    ])
    func errorsExit1(_ arguments: [String], _ status: Int32, _ stderr: String) throws {
        let workspace = try Workspace.todo()
        let before = try #require(workspace.contents("todo.plist"))
        let run = try workspace.run(["delete", "todo.plist"] + arguments)
        #expect(run.stderr == stderr)
        #expect(run.stdout == "")
        #expect(run.status == status)
        #expect(workspace.contents("todo.plist") == before)
    }

    /// --where is required, so that deleting everything is always written out.
    @Test func withoutWhereIsAUsageError() throws {
        let workspace = try Workspace.todo()
        let before = try #require(workspace.contents("todo.plist"))
        let run = try workspace.run("delete", "todo.plist", "Todo")
        #expect(run.stderr.hasPrefix("Error: Missing expected argument '--where <where>'\n"), "stderr: \(run.stderr)")
        #expect(run.status == 2)
        #expect(workspace.contents("todo.plist") == before)
    }

    @Test func aMissingStoreExits2() throws {
        let workspace = try Workspace()
        let run = try workspace.run("delete", "missing.plist", "Todo", "--where", "TRUEPREDICATE")
        #expect(run.stderr == "strata: error: no store at 'missing.plist'\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
        #expect(try workspace.listing() == [])
    }
}
