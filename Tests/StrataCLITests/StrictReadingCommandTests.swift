import Foundation
import Testing

/// A SQLite store with a value that is not of its column's type: the commands that read it
/// name the table, the row and the column, and exit 1 (issue 10, W4).
@Suite("strata on a SQLite store with a damaged value")
struct StrictReadingCommandTests {
    /// Needs the sqlite3 shell (`apt-get install sqlite3`; `.ci/run` installs it).
    @Test func aDamagedValueExits1NamingTableRowAndColumn() throws {
        let workspace = try Workspace(schemas: ["People"])
        try workspace.load("people.sqlite", schema: "People.json", data: [
            ("people.json", #"{"objects": {"Person": [{"@id": 1, "firstName": "Ada", "lastName": "L"}, {"@id": 2, "firstName": "Bo", "lastName": "M"}]}}"#),
        ])
        let edit = Process.runSQLiteShell(workspace.file("people.sqlite").path, "UPDATE Person SET lastName = CAST(x'4C0AFF' AS TEXT) WHERE _pk = 2")
        #expect(edit == "")
        let expected = "strata: error: \(workspace.file("people.sqlite").path): table \"Person\", row _pk = 2, column \"lastName\": the text \"L\\n\u{FFFD}\" is not a text in UTF-8. The store is damaged; restore it from a backup, or correct the value with the sqlite3 shell\n"
        for arguments in [["dump", "people.sqlite"], ["query", "people.sqlite", "Person", "--where", "lastName != 'x'"]] {
            let run = try workspace.run(arguments)
            #expect(run.stderr == expected, "\(arguments)")
            #expect(run.stdout == "")
            #expect(run.status == 1)
        }
    }
}
