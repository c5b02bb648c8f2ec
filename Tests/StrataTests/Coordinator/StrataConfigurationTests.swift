import Foundation
import Strata
import StrataTestKit
import Testing

/// A configuration file with `text` in a new temporary directory.
private final class ConfigurationFile {
    let directory: URL
    let url: URL

    init(_ text: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("strata.json")
        try Data(text.utf8).write(to: url)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func load(environment: [String: String] = [:]) throws(StrataError) -> StrataConfiguration {
        try StrataConfiguration(contentsOf: url, environment: environment)
    }
}

@Suite struct StrataConfigurationTests {
    @Test func readsSchemaAndStoresRelativeToTheFile() throws {
        let file = try ConfigurationFile("""
        {
          "schema": "Schemas/Todo.json",
          "stores": [
            { "type": "sqlite", "path": "Data/app.sqlite", "configuration": "Main", "options": { "journal": "wal", "x": "" } },
            { "type": "memory" },
            { "type": "xml", "path": "/var/data/x.xml" }
          ]
        }
        """)
        let configuration = try file.load()
        #expect(configuration.schemaURL.path == file.directory.appendingPathComponent("Schemas/Todo.json").path)
        #expect(configuration.stores.count == 3)
        let sqlite = configuration.stores[0]
        #expect(sqlite.type == .sqlite)
        #expect(sqlite.url?.path == file.directory.appendingPathComponent("Data/app.sqlite").path)
        #expect(sqlite.configurationName == "Main")
        #expect(sqlite.options == ["journal": "wal", "x": ""])
        #expect(configuration.stores[1] == .inMemory())
        #expect(configuration.stores[2].type == .xml)
        #expect(configuration.stores[2].url?.path == "/var/data/x.xml")
        #expect(configuration.stores[2].options.isEmpty)
        #expect(configuration.stores[2].configurationName == nil)
    }

    /// Bad files, and where the error must point: line, column, and what the message says.
    static let badFiles: [(String, String, SourceLocation?, String)] = [
        ("malformed JSON", "{\n  \"schema\": \"s.json\",\n  \"stores\": [ }\n}", SourceLocation(line: 3, column: 15), "malformed JSON"),
        ("unknown key", "{\n  \"schema\": \"s.json\",\n  \"stors\": []\n}", SourceLocation(line: 3, column: 3), "unknown key 'stors'; did you mean 'stores'?"),
        ("unknown store key", "{\n  \"schema\": \"s.json\",\n  \"stores\": [\n    { \"type\": \"memory\", \"pth\": \"x\" }\n  ]\n}",
         SourceLocation(line: 4, column: 25), "unknown store key 'pth'; did you mean 'path'?"),
        ("type not a string", "{ \"schema\": \"s.json\",\n  \"stores\": [ { \"type\": 5 } ] }", SourceLocation(line: 2, column: 25), "'type' must be a string"),
        ("no path", "{ \"schema\": \"s.json\",\n  \"stores\": [\n    { \"type\": \"sqlite\" } ] }", SourceLocation(line: 3, column: 5), "a sqlite store needs 'path'"),
        ("empty path", "{ \"schema\": \"s.json\", \"stores\": [ { \"type\": \"xml\", \"path\": \"\" } ] }", SourceLocation(line: 1, column: 60), "'path' must be a file path"),
        ("option not a string", "{ \"schema\": \"s.json\", \"stores\": [ { \"type\": \"memory\",\n \"options\": { \"wal\": true } } ] }",
         SourceLocation(line: 2, column: 22), "option 'wal' must be a string"),
        ("stores not an array", "{ \"schema\": \"s.json\", \"stores\": {} }", SourceLocation(line: 1, column: 33), "'stores' must be an array"),
        ("root not an object", "[]", SourceLocation(line: 1, column: 1), "expected a JSON object"),
        ("no schema", "\n  { \"stores\": [ { \"type\": \"memory\" } ] }", SourceLocation(line: 2, column: 3), "the configuration needs 'schema'"),
        ("schema not a string", "{ \"schema\": [\"a\"], \"stores\": [] }", SourceLocation(line: 1, column: 13), "'schema' must be a path string"),
        ("no stores", "{ \"schema\": \"s.json\", \"stores\": [] }", SourceLocation(line: 1, column: 1), "the configuration has no stores"),
    ]

    @Test(arguments: badFiles.indices)
    func errorsPointAtTheProblem(_ index: Int) throws {
        let (name, text, location, message) = Self.badFiles[index]
        let file = try ConfigurationFile(text)
        let error = expectError(.invalidConfiguration) { _ = try file.load() }
        #expect(error?.file == file.url.relativePath, "\(name)")
        #expect(error?.location == location, "\(name)")
        #expect(error?.message.contains(message) == true, "\(name): \(error?.message ?? "")")
        if let error, let location {
            #expect(error.description.hasPrefix("\(file.url.relativePath):\(location.line):\(location.column): "), "\(name)")
        }
    }

    @Test func unreadableFile() {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString)/strata.json")
        let error = expectError(.invalidConfiguration) { _ = try StrataConfiguration(contentsOf: url, environment: [:]) }
        #expect(error?.file == url.relativePath)
        #expect(error?.location == nil)
        #expect(error?.message.hasPrefix("cannot read the configuration file") == true)
    }

    @Test func environmentOverridesTheStores() throws {
        let file = try ConfigurationFile("""
        { "schema": "s.json", "stores": [ { "type": "sqlite", "path": "a.sqlite" }, { "type": "xml", "path": "b.xml" } ] }
        """)
        #expect(try file.load(environment: ["STRATA_STORE": "memory"]).stores == [.inMemory()])
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let relative = try file.load(environment: ["STRATA_STORE": "sqlite:Data/other.sqlite"]).stores
        #expect(relative.map(\.type) == [.sqlite])
        #expect(relative.first?.url?.path == cwd.appendingPathComponent("Data/other.sqlite").path)
        let absolute = try file.load(environment: ["STRATA_STORE": "binary:/tmp/x:y.bplist"]).stores
        #expect(absolute.map(\.type) == [.binaryPlist])
        #expect(absolute.first?.url?.path == "/tmp/x:y.bplist")
        // Unset or empty: the file's stores; other variables do not matter.
        #expect(try file.load(environment: ["STRATA_STORE": "", "OTHER": "memory"]).stores.map(\.type) == [.sqlite, .xml])
        // The override also stands in for a file without stores.
        let empty = try ConfigurationFile(#"{ "schema": "s.json", "stores": [] }"#)
        #expect(try empty.load(environment: ["STRATA_STORE": "memory"]).stores == [.inMemory()])
    }

    @Test(arguments: ["sqlite", ":x.sqlite", "sqlite:", "Memory"])
    func badOverridesAreRefused(_ value: String) throws {
        let file = try ConfigurationFile(#"{ "schema": "s.json", "stores": [ { "type": "memory" } ] }"#)
        let error = expectError(.invalidConfiguration) { _ = try file.load(environment: ["STRATA_STORE": value]) }
        #expect(error?.message == "STRATA_STORE='\(value)' is not 'memory' or TYPE:PATH, like 'sqlite:Data/app.sqlite'")
    }
}
