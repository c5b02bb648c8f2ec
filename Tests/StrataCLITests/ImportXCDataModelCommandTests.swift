import Foundation
import Strata
import StrataCoreData
import Testing

/// The Xcode model fixtures in `../shared/fixtures/coredata/models`, read in place.
private let modelFixtures = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata/models")

/// A `.xccurrentversion` naming `version` current, as Xcode writes one.
private func currentVersionPlist(_ version: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \t<key>_XCCurrentVersionName</key>
    \t<string>\(version).xcdatamodel</string>
    </dict>
    </plist>
    """
}

/// Data for the `Moody 2` version (objc.io's Moody with deny rules): a continent, a country, a mood.
private let moody2Data = """
    {"objects": {
      "Continent": [{"@id": 1, "numericISO3166Code": 150, "updatedAt": "2024-01-01T00:00:00Z", "countries": [2]}],
      "Country": [{"@id": 2, "numericISO3166Code": 250, "updatedAt": "2024-01-01T00:00:00Z", "continent": 1}],
      "Mood": [{"@id": 3, "date": "2024-01-02T00:00:00Z", "latitude": 48.85, "colors": "AQID", "country": 2}]
    }}
    """

extension Workspace {
    /// A workspace with `Moody.xcdatamodeld` holding the versions `Moody` (objc.io chapter 1.1)
    /// and `Moody 2` (chapter 1.2, current), copied from the fixtures.
    static func moodyModel() throws -> Workspace {
        let workspace = try Workspace()
        try workspace.modelBundle("Moody", versions: [
            ("Moody", "objcio__core-data__Chapter-1.1-Moody.xml"), ("Moody 2", "objcio__core-data__Chapter-1.2-Moody-deny.xml"),
        ], current: "Moody 2")
        return workspace
    }

    /// Writes `<name>.xcdatamodeld` with a version per (name, fixture file) and `current` named
    /// in its `.xccurrentversion`.
    func modelBundle(_ name: String, versions: [(String, String)], current: String) throws {
        for (version, fixture) in versions {
            let directory = file("\(name).xcdatamodeld/\(version).xcdatamodel")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: modelFixtures.appendingPathComponent(fixture), to: directory.appendingPathComponent("contents"))
        }
        try write("\(name).xcdatamodeld/.xccurrentversion", currentVersionPlist(current))
    }

    /// What the library imports from the workspace's model at `path`.
    func imported(_ path: String) throws -> XCDataModelImport {
        try XCDataModelImporter.importModel(at: file(path))
    }
}

@Suite("strata import-xcdatamodel")
struct ImportXCDataModelCommandTests {
    @Test("one model goes to standard output as the library imports it; warnings go to standard error")
    func oneModelToStandardOutput() throws {
        let workspace = try Workspace()
        let fixture = modelFixtures.appendingPathComponent("rentzsch__mogenerator__test.xml")
        try FileManager.default.copyItem(at: fixture, to: workspace.file("test.xml"))
        let run = try workspace.run("import-xcdatamodel", "test.xml")
        #expect(run.status == 0)
        let expected = try workspace.imported("test.xml").current
        #expect(run.stdout == expected.jsonString + "\n")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == expected.warnings.count)
        #expect(lines.contains("test.xml:64:5: warning: fetch request template 'allHumans' of entity 'Human' is not imported: Strata models hold no stored fetch requests; build the FetchRequest in code"))
    }

    @Test("-o writes one model's JSON to a file, which strata validate accepts")
    func oneModelToFile() throws {
        let workspace = try Workspace.moodyModel()
        let run = try workspace.run("import-xcdatamodel", "Moody.xcdatamodeld/Moody 2.xcdatamodel", "-o", "Moody.json")
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.stdout == "Moody.json: model Moody, 4 entities, 0 warnings\n")
        #expect(workspace.text("Moody.json") == (try workspace.imported("Moody.xcdatamodeld/Moody 2.xcdatamodel").current.jsonString) + "\n")
        let validate = try workspace.run("validate", "Moody.json")
        #expect(validate.status == 0)
        #expect(validate.stdout == "Moody.json: valid, model Moody, 4 entities, 0 warnings\n")
    }

    @Test("a .xcdatamodeld with -o gives one file per version in the directory, and says which is current")
    func bundleToDirectory() throws {
        let workspace = try Workspace.moodyModel()
        let run = try workspace.run("import-xcdatamodel", "Moody.xcdatamodeld", "-o", "schemas")
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(run.stdout == """
            schemas/Moody.json: model Moody, 1 entity, 0 warnings
            schemas/Moody 2.json: model Moody, 4 entities, 0 warnings (current)
            current version: Moody 2

            """)
        let imported = try workspace.imported("Moody.xcdatamodeld")
        #expect(workspace.text("schemas/Moody.json") == imported.version(named: "Moody")!.jsonString + "\n")
        #expect(workspace.text("schemas/Moody 2.json") == imported.version(named: "Moody 2")!.jsonString + "\n")
        let validate = try workspace.run("validate", "schemas/Moody.json", "schemas/Moody 2.json")
        #expect(validate.status == 0)
        #expect(validate.stdout == """
            schemas/Moody.json: valid, model Moody, 1 entity, 0 warnings
            schemas/Moody 2.json: valid, model Moody, 4 entities, 0 warnings

            """)
    }

    static let fixtureNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: modelFixtures.path)) ?? []
        return names.filter { $0.hasSuffix(".xml") }.sorted()
    }()

    @Test("every model fixture imports, and strata validate accepts the result", arguments: fixtureNames)
    func everyFixtureValidates(_ name: String) throws {
        let workspace = try Workspace()
        let run = try workspace.run("import-xcdatamodel", modelFixtures.appendingPathComponent(name).path, "-o", "model.json")
        #expect(run.status == 0, "\(run.stderr)")
        let validate = try workspace.run("validate", "model.json")
        #expect(validate.status == 0, "\(validate.stdout)")
        #expect(validate.stdout.hasSuffix("\n") && validate.stdout.split(separator: "\n").last?.hasPrefix("model.json: valid, model ") == true)
    }

    @Test("a .xcdatamodeld without -o prints the current version and says so")
    func bundleToStandardOutput() throws {
        let workspace = try Workspace.moodyModel()
        let run = try workspace.run("import-xcdatamodel", "Moody.xcdatamodeld")
        #expect(run.status == 0)
        #expect(run.stdout == (try workspace.imported("Moody.xcdatamodeld").current.jsonString) + "\n")
        #expect(run.stderr == "'Moody.xcdatamodeld' has 2 versions (Moody, Moody 2); this is the current one, 'Moody 2'; write every version with -o <directory>\n")
    }

    @Test("a file that is no Xcode model, or holds what Strata cannot represent, exits 1 naming the file and line")
    func invalidInput() throws {
        let workspace = try Workspace([
            "Model.json": "{\"name\": \"Shop\", \"entities\": []}",
            "contents": """
                <?xml version="1.0"?>
                <model>
                    <entity name="Note"><attribute name="x" attributeType="Integer 16" defaultValueString="99999"/></entity>
                </model>
                """,
        ])
        let json = try workspace.run("import-xcdatamodel", "Model.json")
        #expect(json.status == 1)
        #expect(json.stdout == "")
        #expect(json.stderr == """
            strata: error: Model.json has 1 error:
              Model.json:1:1: error: malformed XML: Start tag expected, '<' not found; an Xcode model file is XML

            """)
        let value = try workspace.run("import-xcdatamodel", "contents")
        #expect(value.status == 1)
        #expect(value.stderr == """
            strata: error: contents has 1 error:
              contents:2:1: warning: the model is named 'Contents' after 'contents': Strata model names start with an upper-case letter and use only ASCII letters, digits and '_' [name]
              contents:3:25: error: attribute 'Note.x': defaultValueString="99999" cannot be represented as a Strata int16: expected an int16 (a whole number from -32768 to 32767), found 99999 [entities[0].attributes[0]]

            """)
    }

    @Test("usage errors and unreadable paths exit 2")
    func usageErrors() throws {
        let workspace = try Workspace()
        let missingArgument = try workspace.run("import-xcdatamodel")
        #expect(missingArgument.status == 2)
        #expect(missingArgument.stderr.contains("Missing expected argument '<path>'"))
        let missingFile = try workspace.run("import-xcdatamodel", "Nothing.xcdatamodeld")
        #expect(missingFile.status == 2)
        #expect(missingFile.stderr == "strata: error: Nothing.xcdatamodeld: error: cannot read the file: no such file or directory\n")
    }

    @Test("--schema takes an Xcode model: load and dump a store with the current version, imported on the fly")
    func schemaOption() throws {
        let workspace = try Workspace.moodyModel()
        try workspace.load("moody.sqlite", schema: "Moody.xcdatamodeld", data: [("moody.json", moody2Data)])
        let objects = try workspace.dumpedObjects("moody.sqlite")
        #expect(objects.keys.sorted() == ["Continent", "Country", "Mood"])
        #expect(objects["Mood"]?[id: 3]?["country"] as? Int == 2)
        #expect(objects["Country"]?[id: 2]?["moods"] as? [Int] == [3])
        #expect(objects["Continent"]?[id: 1]?["numericISO3166Code"] as? Int == 150)

        // A model with warnings is imported all the same, with one note.
        let fixture = modelFixtures.appendingPathComponent("rentzsch__mogenerator__test.xml").path
        try workspace.write("empty.json", "{\"objects\": {}}")
        let loaded = try workspace.run("load", "--schema", fixture, "test.plist", "empty.json")
        #expect(loaded.status == 0)
        #expect(loaded.stderr == "strata: note: imported the Xcode model '\(fixture)' (version 'rentzsch__mogenerator__test') with 15 warnings; `strata import-xcdatamodel` lists them\n")
    }

    @Test("strata migrate takes a .xcdatamodeld: a store of an earlier version migrates to the current one")
    func migrateToCurrentVersion() throws {
        let workspace = try Workspace()
        try workspace.modelBundle("Model", versions: [
            ("Model 1", "objective-audio__CoreDataMigrationSample__Model_1.xml"), ("Model 2", "objective-audio__CoreDataMigrationSample__Model_2.xml"),
        ], current: "Model 2")
        try workspace.load("store.sqlite", schema: "Model.xcdatamodeld/Model 1.xcdatamodel", data: [
            ("data.json", #"{"objects": {"EntityA": [{"@id": 1, "name": "a", "group": 2}], "EntityB": [{"@id": 1, "name": "b", "relationship": 1}]}}"#),
        ])
        let run = try workspace.run("migrate", "--schema", "Model.xcdatamodeld", "store.sqlite")
        #expect(run.status == 0, "\(run.stderr)")
        let objects = try workspace.dumpedObjects("store.sqlite")
        let entityA = try #require(objects["EntityA"]?[id: 1])
        #expect(entityA["name"] as? String == "a")
        #expect(entityA["dummy"] is NSNull)
        #expect(entityA["relationship"] as? Int == 1)

    }

    /// -o naming the model being imported (its `contents`, by any spelling, or a version's
    /// file) is refused before anything is written: the Xcode model is never replaced by JSON.
    @Test(arguments: [
        ["Moody.xcdatamodeld/Moody 2.xcdatamodel/contents", "-o", "Moody.xcdatamodeld/Moody 2.xcdatamodel/contents"],
        ["Moody.xcdatamodeld/Moody 2.xcdatamodel", "-o", "./Moody.xcdatamodeld/Moody 2.xcdatamodel/../Moody 2.xcdatamodel/contents"],
        ["Moody.xcdatamodeld/Moody 2.xcdatamodel", "-o", "link"],
    ])
    func theOutputIsNeverTheModelItImports(_ arguments: [String]) throws {
        let workspace = try Workspace.moodyModel()
        try FileManager.default.createSymbolicLink(
            atPath: workspace.file("link").path, withDestinationPath: workspace.file("Moody.xcdatamodeld/Moody 2.xcdatamodel/contents").path)
        let contents = workspace.file("Moody.xcdatamodeld/Moody 2.xcdatamodel/contents")
        // Writable, as a model in a project is (the fixtures' copies are read-only).
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: contents.path)
        let before = try Data(contentsOf: contents)
        let run = try workspace.run(["import-xcdatamodel"] + arguments)
        #expect(run.status == 2)
        #expect(run.stdout == "")
        #expect(run.stderr.contains("is a file of the model '\(arguments[0])' being imported; no command writes over one of its inputs; nothing was written; choose another file"))
        #expect(try Data(contentsOf: contents) == before)
    }
}
