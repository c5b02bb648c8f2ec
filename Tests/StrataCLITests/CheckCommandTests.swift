import Foundation
import Strata
import StrataBinaryPlist
@testable import StrataSQLite
import Testing

@Suite("strata check")
struct CheckCommandTests {
    // MARK: - Sound stores

    @Test(arguments: storeExtensions)
    func soundStore(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        let type = try workspace.storeType("todo.\(ext)")
        let run = try workspace.run("check", "todo.\(ext)")
        #expect(run.stderr == "")
        #expect(run.stdout == "todo.\(ext): sound (\(type) store, 12 objects checked)\n")
        #expect(run.status == 0)

        let json = try workspace.run("check", "--format", "json", "todo.\(ext)")
        #expect(json.stdout == "[]\n")
        #expect(json.status == 0)
    }

    /// A hierarchy with an abstract root (one SQLite table with `_entity`) is sound too.
    @Test(arguments: storeExtensions)
    func soundHierarchy(_ ext: String) throws {
        let workspace = try Workspace.moody(ext)
        let run = try workspace.run("check", "moody.\(ext)", "--type", try workspace.storeType("moody.\(ext)"))
        #expect(run.stdout.hasSuffix(" store, 7 objects checked)\n"), "\(run.stdout)")
        #expect(run.status == 0)
    }

    // MARK: - SQLite, problems planted with SQL

    /// Each kind of problem, planted in a sound store with one SQL edit, and the line it gives.
    static let sqliteProblems: [(sql: String, line: String)] = [
        (#"UPDATE "Todo" SET "location" = 9 WHERE "_pk" = 2"#,
         "todo.sqlite: Todo/p2.location: refers to Location/p9, which does not exist"),
        (#"INSERT INTO "Tag.todos" ("source", "destination") VALUES (1, 77)"#,
         "todo.sqlite: Tag.todos: the row (source 1, destination 77) links objects that do not exist: destination Todo/p77"),
        (#"UPDATE "strata_keys" SET "last" = 6 WHERE "entity" = 'Todo'"#,
         "todo.sqlite: Todo/p10: primary key 10 is above the key counter of the 'Todo' hierarchy (6): a new object could be given the same key"),
        (#"UPDATE "Todo" SET "title" = NULL WHERE "_pk" = 5"#,
         "todo.sqlite: Todo/p5.title: the attribute is required but has no value"),
        (#"DELETE FROM "strata_keys" WHERE "entity" = 'Tag'"#,
         "todo.sqlite: Tag: strata_keys has no key counter for the 'Tag' hierarchy; new objects cannot be given keys"),
    ]

    @Test(arguments: sqliteProblems)
    func sqliteProblem(_ sql: String, _ line: String) throws {
        let workspace = try Workspace.todo("sqlite")
        try Self.execute(sql, in: workspace.file("todo.sqlite"))
        let run = try workspace.run("check", "todo.sqlite")
        #expect(run.stdout == line + "\ntodo.sqlite: 1 problem found\n")
        #expect(run.stderr == "")
        #expect(run.status == 1)
    }

    /// A uniqueness constraint the engine no longer enforces (its index dropped) is still checked.
    @Test func sqliteDuplicate() throws {
        let workspace = try Workspace.todo("sqlite")
        let url = workspace.file("todo.sqlite")
        let indexes = try Self.query(#"SELECT "name" FROM "sqlite_master" WHERE "type" = 'index' AND "tbl_name" = 'Tag' AND "sql" IS NOT NULL"#, in: url)
        try #require(!indexes.isEmpty)
        for index in indexes { try Self.execute("DROP INDEX \"\(index)\"", in: url) }
        // Check reads and does not repair: opening the store for anything else would create
        // the missing index again.
        let sound = try workspace.run("check", "todo.sqlite")
        #expect(sound.status == 0)
        #expect(try Self.query(#"SELECT "name" FROM "sqlite_master" WHERE "type" = 'index' AND "tbl_name" = 'Tag' AND "sql" IS NOT NULL"#, in: url) == [])

        try Self.execute(#"UPDATE "Tag" SET "name" = 'home' WHERE "_pk" = 2"#, in: url)
        let run = try workspace.run("check", "todo.sqlite")
        #expect(run.stderr == "")
        #expect(run.stdout == """
            todo.sqlite: Tag/p2.name: 'name' must be unique, and Tag/p1 has the same value
            todo.sqlite: 1 problem found

            """)
        #expect(run.status == 1)
    }

    /// A row whose `_entity` names no concrete entity is invisible to fetches; check names it,
    /// the to-many that lists it cannot be read, and the to-one that refers to it dangles.
    @Test func sqliteUnknownEntityRow() throws {
        let workspace = try Workspace.moody("sqlite")
        try Self.execute(#"UPDATE "GeographicRegion" SET "_entity" = 'Planet' WHERE "_pk" = 10"#, in: workspace.file("moody.sqlite"))
        let run = try workspace.run("check", "--format", "json", "moody.sqlite")
        #expect(run.status == 1)
        let problems = try JSONDecoder().decode([StoreProblem].self, from: Data(run.stdout.utf8))
        #expect(problems == [
            StoreProblem(
                .unreadableContents, entity: "Continent", primaryKey: 1, property: "countries",
                message: #"cannot be read: table "GeographicRegion", row _pk = 10, column "_entity": the text "Planet" is not the name of an entity of the GeographicRegion hierarchy (GeographicRegion, Country, Continent). The store is damaged; restore it from a backup, or correct the value with the sqlite3 shell"#),
            StoreProblem(
                .unknownEntity, entity: "GeographicRegion", primaryKey: 10,
                message: #"the row's _entity is "Planet", which is not a concrete entity of the 'GeographicRegion' hierarchy (Country, Continent); fetches skip the row"#),
            StoreProblem(.danglingReference, entity: "Mood", primaryKey: 1, property: "country", message: "refers to Country/p10, which does not exist"),
        ])
    }

    /// Damage only SQLite itself can see: an index whose entries no longer match its
    /// definition (its SQL rewritten behind SQLite's back).
    @Test func sqliteIntegrityCheck() throws {
        let workspace = try Workspace.todo("sqlite")
        let url = workspace.file("todo.sqlite")
        try Self.execute(#"CREATE INDEX "damaged" ON "Tag" ("name")"#, in: url)
        try Self.execute("""
            PRAGMA writable_schema = ON;
            UPDATE "sqlite_master" SET "sql" = 'CREATE INDEX "damaged" ON "Tag" ("_version")' WHERE "name" = 'damaged';
            PRAGMA writable_schema = OFF;
            """, in: url)
        let run = try workspace.run("check", "--format", "json", "todo.sqlite")
        #expect(run.status == 1)
        let problems = try JSONDecoder().decode([StoreProblem].self, from: Data(run.stdout.utf8))
        #expect(!problems.isEmpty)
        #expect(problems.allSatisfy { $0.code == .fileIntegrity && $0.message.hasPrefix("SQLite's integrity_check: ") && $0.message.contains("damaged") }, "\(problems)")
    }

    /// A value out of its type's range: a problem of the object's entity, whether the reader
    /// refuses it or hands it over.
    @Test func sqliteValueOutOfRange() throws {
        let workspace = try Workspace.todo("sqlite")
        try Self.execute(#"UPDATE "Todo" SET "priority" = 100000 WHERE "_pk" = 1"#, in: workspace.file("todo.sqlite"))
        let run = try workspace.run("check", "--format", "json", "todo.sqlite")
        #expect(run.status == 1)
        let problems = try JSONDecoder().decode([StoreProblem].self, from: Data(run.stdout.utf8))
        #expect(problems.count == 1)
        #expect(problems.first?.entity == "Todo")
        #expect(problems.first.map { [.wrongType, .unreadableContents].contains($0.code) } == true)
        #expect(problems.first?.message.contains("100000") == true, "\(problems)")
    }

    // MARK: - SQLite, shadow columns left stale by hand edits

    /// A model with a string and a decimal (each with a shadow column in SQLite), and
    /// `note.sqlite`: p1 "e\u{301}" (not NFC, so `_s_nfc` holds "é"), p2 "abc", p3 1.5, p4 10.
    static func notes() throws -> Workspace {
        let model = """
            { "name": "Notes", "entities": [
              { "name": "Note", "attributes": [
                  { "name": "s", "type": "string", "optional": true },
                  { "name": "d", "type": "decimal", "optional": true } ] } ] }
            """
        let workspace = try Workspace(["notes.json": model])
        try workspace.load("note.sqlite", schema: "notes.json", data: [("note.json", #"""
            {"objects": {"Note": [
              {"@id": 1, "s": "e\u0301"}, {"@id": 2, "s": "abc"}, {"@id": 3, "d": "1.5"}, {"@id": 4, "d": "10"}]}}
            """#)])
        return workspace
    }

    /// What the sqlite3 shell leaves after editing values without their shadow columns: a
    /// non-NFC string made ASCII (`_s_nfc` still "é"), an ASCII one made non-NFC (`_s_nfc`
    /// still NULL), a decimal changed (`_d_key` still the old key), a decimal key set to NULL.
    static let staleKeyEdits = #"""
        UPDATE "Note" SET "s" = 'zzz' WHERE "_pk" = 1;
        UPDATE "Note" SET "s" = 'e' || char(769) WHERE "_pk" = 2;
        UPDATE "Note" SET "d" = '2.5' WHERE "_pk" = 3;
        UPDATE "Note" SET "_d_key" = NULL WHERE "_pk" = 4;
        """#

    static let staleKeyLines = [
        "note.sqlite: Note/p1.s: the shadow column _s_nfc holds the text \"\u{E9}\", but for the value, the text \"zzz\", it should hold NULL (the row was edited without it): queries, indexes and uniqueness constraints compare the stale key; run strata check --repair on the store",
        "note.sqlite: Note/p2.s: the shadow column _s_nfc holds NULL, but for the value, the text \"e\u{301}\", it should hold the text \"\u{E9}\" (the row was edited without it): queries, indexes and uniqueness constraints compare the stale key; run strata check --repair on the store",
        "note.sqlite: Note/p3.d: the shadow column _d_key holds the text \"250015\", but for the value, the text \"2.5\", it should hold the text \"250025\" (the row was edited without it): queries, indexes and uniqueness constraints compare the stale key; run strata check --repair on the store",
        "note.sqlite: Note/p4.d: the shadow column _d_key holds NULL, but for the value, the text \"10\", it should hold the text \"25011\" (the row was edited without it): queries, indexes and uniqueness constraints compare the stale key; run strata check --repair on the store",
    ]

    /// Shadow columns that no longer match their values (rows edited by hand) are problems.
    @Test func sqliteStaleComparisonKeys() throws {
        let workspace = try Self.notes()
        let sound = try workspace.run("check", "note.sqlite")
        #expect(sound.stdout == "note.sqlite: sound (sqlite store, 4 objects checked)\n")
        try Self.execute(Self.staleKeyEdits, in: workspace.file("note.sqlite"))
        // The stale key answers the query: what the check is for.
        #expect(try workspace.run("query", "note.sqlite", "Note", "--where", #"s == "zzz""#, "--count").stdout == "0\n")

        let run = try workspace.run("check", "note.sqlite")
        #expect(run.stdout == (Self.staleKeyLines + ["note.sqlite: 4 problems found"]).joined(separator: "\n") + "\n")
        #expect(run.stderr == "")
        #expect(run.status == 1)

        let json = try workspace.run("check", "--format", "json", "note.sqlite")
        let problems = try JSONDecoder().decode([StoreProblem].self, from: Data(json.stdout.utf8))
        #expect(problems.map(\.code.rawValue) == Array(repeating: "staleComparisonKey", count: 4))
        #expect(problems.map(\.place) == ["Note/p1.s", "Note/p2.s", "Note/p3.d", "Note/p4.d"])
    }

    /// `--repair` rewrites the stale keys, says how many, and the check that follows is sound;
    /// queries then compare the values as they are.
    @Test func sqliteRepairComparisonKeys() throws {
        let workspace = try Self.notes()
        try Self.execute(Self.staleKeyEdits, in: workspace.file("note.sqlite"))
        let run = try workspace.run("check", "--repair", "note.sqlite")
        #expect(run.stdout == "note.sqlite: repaired 4 comparison keys\nnote.sqlite: sound (sqlite store, 4 objects checked)\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)

        #expect(try workspace.run("query", "note.sqlite", "Note", "--where", #"s == "zzz""#, "--count").stdout == "1\n")
        #expect(try workspace.run("query", "note.sqlite", "Note", "--where", "s == \"\u{E9}\"", "--format", "ids").stdout == "2\n")
        #expect(try workspace.run("query", "note.sqlite", "Note", "--where", "d > 2 AND d < 3", "--format", "ids").stdout == "3\n")

        let again = try workspace.run("check", "--repair", "note.sqlite")
        #expect(again.stdout == "note.sqlite: repaired 0 comparison keys\nnote.sqlite: sound (sqlite store, 4 objects checked)\n")
        #expect(again.status == 0)

        // With --format json, standard output is the JSON array alone. The edits again: only
        // p4's key (set to NULL) is stale this time.
        try Self.execute(Self.staleKeyEdits, in: workspace.file("note.sqlite"))
        let json = try workspace.run("check", "--repair", "--format", "json", "note.sqlite")
        #expect(json.stdout == "[]\n")
        #expect(json.stderr == "note.sqlite: repaired 1 comparison key\n")
        #expect(json.status == 0)
    }

    /// Other store types keep no comparison keys: `--repair` says so, and the check decides.
    @Test func repairOtherStoreTypes() throws {
        let workspace = try Workspace.todo("xml")
        let run = try workspace.run("check", "--repair", "todo.xml")
        #expect(run.stdout == "todo.xml: nothing to repair: only SQLite stores keep comparison keys\ntodo.xml: sound (xml store, 12 objects checked)\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    // MARK: - XML, problems planted by editing the text

    static let xmlProblems: [(from: String, to: String, line: String)] = [
        (#"<keySequence entity="Todo">10<"#, #"<keySequence entity="Todo">6<"#,
         "todo.xml: Todo/p10: primary key 10 is above the key counter of the 'Todo' hierarchy (6): a new object could be given the same key"),
        (#"idrefs="p2 p6 p10""#, #"idrefs="p2 p6""#,
         "todo.xml: Todo/p10.tags: lists Tag/p2, but Tag/p2.todos does not lead back to Todo/p10"),
        (#"<attribute name="name" type="string">work<"#, #"<attribute name="name" type="string">home<"#,
         "todo.xml: Tag/p2.name: 'name' must be unique, and Tag/p1 has the same value"),
        (#"<attribute name="title" type="string">Fix bike</attribute>"#, "",
         "todo.xml: Todo/p5.title: the attribute is required but has no value"),
    ]

    @Test(arguments: xmlProblems)
    func xmlProblem(_ from: String, _ to: String, _ line: String) throws {
        let workspace = try Workspace.todo("xml")
        let text = try #require(workspace.text("todo.xml"))
        try #require(text.components(separatedBy: from).count == 2, "the fixture has no single \(from)")
        try workspace.write("todo.xml", text.replacingOccurrences(of: from, with: to))
        let run = try workspace.run("check", "todo.xml")
        #expect(run.stdout == line + "\ntodo.xml: 1 problem found\n")
        #expect(run.status == 1)
    }

    /// A reference to an object no longer in the file (the `Entity.pN` form) dangles, and the
    /// other side no longer agrees.
    @Test func xmlDanglingReference() throws {
        let workspace = try Workspace.todo("xml")
        let text = try #require(workspace.text("todo.xml"))
        let from = #"destination="Location" idrefs="p1"></relationship>"#
        try #require(text.components(separatedBy: from).count == 3)
        // Todo p2 is made to refer to Location.p9, an object the file does not hold.
        var lines = text.components(separatedBy: "\n")
        let index = try #require(lines.firstIndex { $0.contains(#"<object type="Todo" id="p2">"#) })
        let relationship = try #require(lines[index...].firstIndex { $0.contains(from) })
        lines[relationship] = lines[relationship].replacingOccurrences(of: #"idrefs="p1""#, with: #"idrefs="Location.p9""#)
        try workspace.write("todo.xml", lines.joined(separator: "\n"))
        let run = try workspace.run("check", "todo.xml")
        #expect(run.stdout == """
            todo.xml: Location/p1.todos: lists Todo/p2, but Todo/p2.location does not lead back to Location/p1
            todo.xml: Todo/p2.location: refers to Location/p9, which does not exist
            todo.xml: 2 problems found

            """)
        #expect(run.status == 1)
    }

    /// Contents the reader refuses (a value that is not an int16) are one problem, exit 1.
    @Test func xmlUndecodableValue() throws {
        let workspace = try Workspace.todo("xml")
        let text = try #require(workspace.text("todo.xml"))
        let from = #"<attribute name="priority" type="int16">5</attribute>"#
        try #require(text.components(separatedBy: from).count == 2)
        try workspace.write("todo.xml", text.replacingOccurrences(of: from, with: #"<attribute name="priority" type="int16">lots</attribute>"#))
        let run = try workspace.run("check", "--format", "json", "todo.xml")
        #expect(run.status == 1)
        let problems = try JSONDecoder().decode([StoreProblem].self, from: Data(run.stdout.utf8))
        #expect(problems.map(\.code) == [.unreadableContents])
        #expect(problems.first?.message.hasPrefix("the store's reader refused the contents: line ") == true, "\(problems)")
        #expect(problems.first?.message.contains("lots") == true, "\(problems)")
    }

    // MARK: - Binary, contents built through the library

    @Test func binaryDanglingReference() throws {
        let workspace = try Workspace.todo("plist")
        let url = workspace.file("todo.plist")
        let format = BinaryPlistStoreFormat()
        var contents = try format.read(from: url)
        let todo = try #require(contents.records["Todo"]?.keys.first { $0.primaryKey == 1 })
        let location = ObjectID(entityName: "Location", storeIdentifier: todo.storeIdentifier ?? "", primaryKey: 9)
        contents.records["Todo"]?[todo]?.toOne["location"] = location
        try FileManager.default.removeItem(at: url)
        try format.write(contents, to: url)
        let run = try workspace.run("check", "todo.plist")
        #expect(run.stdout == """
            todo.plist: Location/p2.todos: lists Todo/p1, but Todo/p1.location does not lead back to Location/p2
            todo.plist: Todo/p1.location: refers to Location/p9, which does not exist
            todo.plist: 2 problems found

            """)
        #expect(run.status == 1)

        let json = try workspace.run("check", "--format", "json", "todo.plist")
        try golden.expect(json.stdout, matches: "check-dangling.json")
        #expect(json.status == 1)
    }

    // MARK: - Files that cannot be checked

    @Test(arguments: storeExtensions)
    func garbage(_ ext: String) throws {
        let workspace = try Workspace(["junk.\(ext)": "this is not a store\n"])
        let run = try workspace.run("check", "junk.\(ext)")
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("strata: error: cannot check 'junk.\(ext)': "), "\(run.stderr)")
        #expect(run.status == 2)
    }

    /// With or without --repair, the same message and exit 2.
    @Test(arguments: [["check"], ["check", "--repair"]])
    func missingFile(_ command: [String]) throws {
        let workspace = try Workspace()
        let run = try workspace.run(command + ["nothing.sqlite"])
        #expect(run.stdout == "")
        #expect(run.stderr == "strata: error: cannot check 'nothing.sqlite': no store at 'nothing.sqlite'\n")
        #expect(run.status == 2)
    }

    /// A truncated binary store has lost its trailer, and with it the metadata: exit 2.
    @Test func truncatedBinary() throws {
        let workspace = try Workspace.todo("plist")
        let data = try #require(workspace.contents("todo.plist"))
        try data.prefix(data.count / 2).write(to: workspace.file("todo.plist"))
        let run = try workspace.run("check", "todo.plist")
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("strata: error: cannot check 'todo.plist': "), "\(run.stderr)")
        #expect(run.status == 2)
    }

    // MARK: - Helpers

    /// Runs SQL on a store file through a connection of its own, closed before returning.
    static func execute(_ sql: String, in url: URL) throws {
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: false))
        try database.execute(sql)
    }

    static func query(_ sql: String, in url: URL) throws -> [String] {
        let database = try Database(path: url.path, mode: .init(readOnly: false, create: false))
        return try database.rows(sql) { $0.text(0) }
    }
}
