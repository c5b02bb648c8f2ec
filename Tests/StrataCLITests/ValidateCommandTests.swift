import Foundation
import Strata
import Testing

/// Two entities, no problems.
let validModel = """
    {
      "name": "Shop",
      "entities": [
        { "name": "Item", "attributes": [ { "name": "title", "type": "string" } ] },
        { "name": "Category", "attributes": [ { "name": "label", "type": "string" } ] }
      ]
    }
    """

/// One error: a misspelt type on line 5, column 34.
let brokenModel = """
    {
      "name": "Shop",
      "entities": [
        { "name": "Item", "attributes": [
          { "name": "title", "type": "strng" }
        ] }
      ]
    }
    """

/// One warning: a relationship without an inverse, at line 5, column 26.
let warningModel = """
    {
      "name": "Shop",
      "entities": [
        { "name": "Item",
          "relationships": [ { "name": "next", "destination": "Item", "optional": true } ] }
      ]
    }
    """

let brokenLine = "Broken.json:5:34: error: unknown attribute type 'strng'; did you mean 'string'? [entities[0].attributes[0].type]"
let warningMessage = "relationship 'Item.next' has no inverse; without one Strata cannot keep both sides consistent. Add a relationship on 'Item' that points back, and name it in 'inverse'"

@Suite("strata validate")
struct ValidateCommandTests {
    // MARK: - Text output and exit status

    @Test func validFile() throws {
        let directory = try Workspace(["Valid.json": validModel])
        let run = try directory.run("validate", "Valid.json")
        #expect(run.stdout == "Valid.json: valid, model Shop, 2 entities, 0 warnings\n")
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    @Test func fileWithAnError() throws {
        let directory = try Workspace(["Broken.json": brokenModel])
        let run = try directory.run("validate", "Broken.json")
        #expect(run.stdout == """
            \(brokenLine)
            Broken.json: invalid, 1 error

            """)
        #expect(run.stderr == "")
        #expect(run.status == 1)
    }

    @Test func malformedJSON() throws {
        let directory = try Workspace(["Bad.json": #"{"name": "Shop",}"#])
        let run = try directory.run("validate", "Bad.json")
        #expect(run.stdout == """
            Bad.json:1:17: error: malformed JSON: trailing comma before '}'; remove the last ','
            Bad.json: invalid, 1 error

            """)
        #expect(run.status == 1)
    }

    @Test func warningsOnly() throws {
        let directory = try Workspace(["Warn.json": warningModel])
        let run = try directory.run("validate", "Warn.json")
        #expect(run.stdout == """
            Warn.json:5:26: warning: \(warningMessage) [entities[0].relationships[0]]
            Warn.json: valid, model Shop, 1 entity, 1 warning

            """)
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    /// M1: a model every store but SQLite can hold (one table of 2,001 attributes + Strata's
    /// columns) is valid, with a warning that says why SQLite would refuse it.
    @Test func aModelSQLiteCannotHoldGetsAWarning() throws {
        let attributes = (0..<2_001).map { "{ \"name\": \"a\($0)\", \"type\": \"int64\" }" }.joined(separator: ", ")
        let reserved = #"{ "name": "M", "entities": [ { "name": "Strata_metadata", "attributes": [] } ] }"#
        let directory = try Workspace([
            "Wide.json": #"{ "name": "Wide", "entities": [ { "name": "Wide", "attributes": [ "# + attributes + " ] } ] }",
            "Reserved.json": reserved,
        ])
        let run = try directory.run("validate", "Wide.json", "Reserved.json")
        #expect(run.stdout == """
            Wide.json: warning: a sqlite store cannot hold this model: entity hierarchy 'Wide' has 2,003 stored columns; a SQLite store holds at most 2,000 in one table (the hierarchy's attributes, to-one relationships and Strata's own columns); split the hierarchy or move attributes to related entities
            Reserved.json: warning: a sqlite store cannot hold this model: entity 'Strata_metadata' cannot be a SQLite table: SQLite compares names without case, and 'strata_metadata' is Strata's own table; rename the entity
            Wide.json: valid, model Wide, 1 entity, 1 warning
            Reserved.json: valid, model M, 1 entity, 1 warning

            """)
        #expect(run.status == 0)
    }

    @Test func warningsAsErrors() throws {
        let directory = try Workspace(["Warn.json": warningModel, "Valid.json": validModel])
        let run = try directory.run("validate", "--warnings-as-errors", "Valid.json", "Warn.json")
        #expect(run.stdout == """
            Warn.json:5:26: error: \(warningMessage) [--warnings-as-errors] [entities[0].relationships[0]]
            Valid.json: valid, model Shop, 2 entities, 0 warnings
            Warn.json: invalid, 1 error

            """)
        #expect(run.status == 1)

        // Without warnings there is nothing to promote.
        #expect(try directory.run("validate", "--warnings-as-errors", "Valid.json").status == 0)
    }

    @Test func severalFilesReportEveryOneAndTheWorstStatus() throws {
        let directory = try Workspace(["Valid.json": validModel, "Broken.json": brokenModel, "Warn.json": warningModel])
        let run = try directory.run("validate", "Valid.json", "Broken.json", "Warn.json")
        #expect(run.stdout == """
            \(brokenLine)
            Warn.json:5:26: warning: \(warningMessage) [entities[0].relationships[0]]
            Valid.json: valid, model Shop, 2 entities, 0 warnings
            Broken.json: invalid, 1 error
            Warn.json: valid, model Shop, 1 entity, 1 warning

            """)
        #expect(run.status == 1)
    }

    @Test func missingFile() throws {
        let directory = try Workspace([:])
        let run = try directory.run("validate", "Missing.json")
        #expect(run.stdout == """
            Missing.json: error: cannot read the file: no such file
            Missing.json: unreadable

            """)
        #expect(run.status == 2)
    }

    @Test func anUnreadableFileOutranksAnInvalidOne() throws {
        let directory = try Workspace(["Broken.json": brokenModel])
        let run = try directory.run("validate", "Broken.json", "Missing.json")
        #expect(run.stdout.hasSuffix("Broken.json: invalid, 1 error\nMissing.json: unreadable\n"))
        #expect(run.status == 2)
    }

    // MARK: - Usage errors

    /// argument-parser exits with 64 (EX_USAGE) for these; `strata` promises 2.
    @Test(arguments: [
        (["validate"], "Error: Missing expected argument '<files> ...'"),
        (["validate", "--bogus", "Valid.json"], "Error: Unknown option '--bogus'"),
        (["--bogus"], "Error: Unknown option '--bogus'"),
        (["validate", "--format", "xml", "Valid.json"], "Error: The value 'xml' is invalid for '--format <format>'"),
        (["frobnicate"], "Error: Unexpected argument 'frobnicate'"),
    ])
    func usageErrorsExitWith2(_ arguments: [String], _ message: String) throws {
        let directory = try Workspace(["Valid.json": validModel])
        let run = try StrataExecutable.run(arguments, in: directory.url)
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix(message), "stderr: \(run.stderr)")
        #expect(run.stderr.contains("Usage: strata"))
    }

    @Test func helpIsNotAnError() throws {
        let directory = try Workspace([:])
        let run = try directory.run("validate", "--help")
        #expect(run.status == 0)
        #expect(run.stdout.contains("USAGE: strata validate <files> ..."))
    }

    // MARK: - JSON output

    /// The diagnostics of `--format json`, parsed.
    private func diagnostics(_ text: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(json as? [[String: Any]], "not a JSON array of objects: \(text)")
    }

    @Test func jsonFormatWithAnError() throws {
        let directory = try Workspace(["Broken.json": brokenModel, "Warn.json": warningModel])
        let run = try directory.run("validate", "--format", "json", "Broken.json", "Warn.json")
        #expect(run.status == 1)
        let entries = try diagnostics(run.stdout)
        try #require(entries.count == 2)
        #expect(Set(entries[0].keys) == ["severity", "code", "message", "path", "file", "line", "column"])
        #expect(entries[0]["severity"] as? String == "error")
        #expect(entries[0]["code"] as? String == "unknownType")
        #expect(entries[0]["message"] as? String == "unknown attribute type 'strng'; did you mean 'string'?")
        #expect(entries[0]["path"] as? String == "entities[0].attributes[0].type")
        #expect(entries[0]["file"] as? String == "Broken.json")
        #expect(entries[0]["line"] as? Int == 5)
        #expect(entries[0]["column"] as? Int == 34)

        #expect(Set(entries[1].keys) == ["severity", "code", "message", "path", "file", "line", "column"])
        #expect(entries[1]["severity"] as? String == "warning")
        #expect(entries[1]["code"] as? String == "missingInverse")
        #expect(entries[1]["message"] as? String == warningMessage)
        #expect(entries[1]["path"] as? String == "entities[0].relationships[0]")
        #expect(entries[1]["file"] as? String == "Warn.json")
        #expect(entries[1]["line"] as? Int == 5)
        #expect(entries[1]["column"] as? Int == 26)
    }

    @Test func jsonFormatOfAValidFileIsAnEmptyArray() throws {
        let directory = try Workspace(["Valid.json": validModel])
        let run = try directory.run("validate", "--format", "json", "Valid.json")
        #expect(run.status == 0)
        #expect(try diagnostics(run.stdout).isEmpty)
        #expect(run.stderr == "")
    }

    @Test func jsonFormatOfAMissingFile() throws {
        let directory = try Workspace([:])
        let run = try directory.run("validate", "--format", "json", "Missing.json")
        #expect(run.status == 2)
        let entries = try diagnostics(run.stdout)
        try #require(entries.count == 1)
        // No line or column: the keys are left out rather than null.
        #expect(Set(entries[0].keys) == ["severity", "code", "message", "path", "file"])
        #expect(entries[0]["severity"] as? String == "error")
        #expect(entries[0]["code"] as? String == "unreadableFile")
        #expect(entries[0]["message"] as? String == "cannot read the file: no such file")
        #expect(entries[0]["path"] as? String == "")
        #expect(entries[0]["file"] as? String == "Missing.json")
    }

    @Test func jsonFormatWithWarningsAsErrors() throws {
        let directory = try Workspace(["Warn.json": warningModel])
        let run = try directory.run("validate", "--format", "json", "--warnings-as-errors", "Warn.json")
        #expect(run.status == 1)
        let entries = try diagnostics(run.stdout)
        try #require(entries.count == 1)
        #expect(entries[0]["severity"] as? String == "error")
        #expect(entries[0]["code"] as? String == "missingInverse")
        #expect(entries[0]["message"] as? String == warningMessage + " [--warnings-as-errors]")
    }

    // MARK: - Hashes

    @Test func hashesAsText() throws {
        let directory = try Workspace(["Valid.json": validModel])
        let schema = try Schema(contentsOf: directory.url.appendingPathComponent("Valid.json"))
        let item = try #require(schema.entity(named: "Item")?.versionHash)
        let category = try #require(schema.entity(named: "Category")?.versionHash)
        let run = try directory.run("validate", "--hashes", "Valid.json")
        // Entities by name, their names padded to the longest.
        #expect(run.stdout == """
            Valid.json: valid, model Shop, 2 entities, 0 warnings
            Valid.json: model Shop versionHash \(schema.versionHash)
              Category  \(category)
              Item      \(item)

            """)
        #expect(run.status == 0)
        #expect(schema.versionHash.count == 64 && schema.versionHash.allSatisfy(\.isHexDigit))
        #expect(item != category)
    }

    @Test func hashesAsJSON() throws {
        let directory = try Workspace(["Valid.json": validModel, "Warn.json": warningModel, "Broken.json": brokenModel])
        let valid = try Schema(contentsOf: directory.url.appendingPathComponent("Valid.json"))
        let warned = try Schema(contentsOf: directory.url.appendingPathComponent("Warn.json"))
        let run = try directory.run("validate", "--format", "json", "--hashes", "Valid.json", "Warn.json", "Broken.json")
        #expect(run.status == 1)
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
        let report = try #require(json as? [String: Any])
        #expect(Set(report.keys) == ["diagnostics", "models"])
        let diagnostics = try #require(report["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.map { $0["file"] as? String } == ["Warn.json", "Broken.json"])
        #expect(diagnostics.map { $0["code"] as? String } == ["missingInverse", "unknownType"])
        // Only the files that loaded have hashes.
        let models = try #require(report["models"] as? [[String: Any]])
        try #require(models.count == 2)
        for (model, (file, schema)) in zip(models, [("Valid.json", valid), ("Warn.json", warned)]) {
            #expect(Set(model.keys) == ["file", "name", "versionHash", "entityVersionHashes"])
            #expect(model["file"] as? String == file)
            #expect(model["name"] as? String == "Shop")
            #expect(model["versionHash"] as? String == schema.versionHash)
            #expect(model["entityVersionHashes"] as? [String: String] == schema.entityVersionHashes)
        }
        #expect(valid.versionHash != warned.versionHash)
    }

    // MARK: - The example models

    static let exampleModels: [String] = {
        let schemas = packageRoot.appendingPathComponent("Schemas")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: schemas.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && $0 != "strata-schema.json" }.sorted().map { "Schemas/" + $0 }
    }()

    @Test func thereAreExampleModels() {
        #expect(Self.exampleModels.count >= 6, "\(Self.exampleModels)")
    }

    @Test(arguments: exampleModels)
    func exampleModelIsValid(_ path: String) throws {
        let result = try Schema.load(contentsOf: packageRoot.appendingPathComponent(path))
        let schema = try #require(result.schema, "\(result.diagnostics)")
        let warnings = result.diagnostics.warnings.count
        let run = try StrataExecutable.run(["validate", path], in: packageRoot)
        let entities = "\(schema.entities.count) \(schema.entities.count == 1 ? "entity" : "entities")"
        let summary = "\(path): valid, model \(schema.name), \(entities), \(warnings) \(warnings == 1 ? "warning" : "warnings")"
        #expect(run.stdout.hasSuffix(summary + "\n"), "stdout: \(run.stdout)")
        #expect(run.stdout.split(separator: "\n").count == warnings + 1)
        #expect(run.status == 0)
    }

    @Test func allExampleModelsTogether() throws {
        let run = try StrataExecutable.run(["validate"] + Self.exampleModels, in: packageRoot)
        #expect(run.status == 0, "stdout: \(run.stdout)")
        #expect(!run.stdout.contains(": error:"))
    }
}
