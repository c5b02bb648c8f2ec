import Foundation
import StrataTestKit
import Testing

/// The root of the package, found from this file, for `Schemas/`.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent() // Support
    .deletingLastPathComponent() // StrataCLITests
    .deletingLastPathComponent() // Tests
    .deletingLastPathComponent()

/// A temporary directory to run `strata` in, removed when the test ends. Model files, data files
/// and stores are named relative to it, so that messages print them as the test gave them.
final class Workspace: Sendable {
    private let directory: TemporaryDirectory
    var url: URL { directory.url }

    /// - Parameters:
    ///   - files: file names and their text.
    ///   - schemas: example models to copy from `Schemas/`, by name without `.json`
    ///     (`"TodoList"` becomes `TodoList.json`).
    init(_ files: [String: String] = [:], schemas: [String] = []) throws {
        directory = try TemporaryDirectory(prefix: "cli-tests")
        for (name, text) in files {
            try write(name, text)
        }
        for name in schemas {
            let source = packageRoot.appendingPathComponent("Schemas").appendingPathComponent(name + ".json")
            try FileManager.default.copyItem(at: source, to: file(name + ".json"))
        }
    }

    func run(_ arguments: String...) throws -> StrataRun {
        try StrataExecutable.run(arguments, in: url)
    }

    func run(_ arguments: [String]) throws -> StrataRun {
        try StrataExecutable.run(arguments, in: url)
    }

    /// Runs `strata` as user `nobody`, who cannot write what root made read-only.
    func runAsNobody(_ arguments: String...) throws -> StrataRun {
        try StrataExecutable.run(arguments, in: url, asNobody: true)
    }

    /// Runs `strata`, terminating it after `timeout` seconds (see ``StrataRun/timedOut``).
    func run(_ arguments: [String], timeout: Double) throws -> StrataRun {
        try StrataExecutable.run(arguments, in: url, timeout: timeout)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: file(name))
    }

    /// The bytes of a file, or nil when there is none.
    func contents(_ name: String) -> Data? {
        FileManager.default.contents(atPath: file(name).path)
    }

    func text(_ name: String) -> String? {
        contents(name).map { String(decoding: $0, as: UTF8.self) }
    }

    func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: file(name).path)
    }

    func remove(_ name: String) throws {
        try FileManager.default.removeItem(at: file(name))
    }

    /// The names in the directory, sorted, hidden files included.
    /// The names in the directory, sorted, without the lock files of the stores listed
    /// (`<store>.lock`, which XML and binary stores keep on purpose beside a store once it has
    /// been saved to; `lockFiles()` lists them).
    func listing() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return names.filter { !($0.hasSuffix(".lock") && names.contains(String($0.dropLast(5)))) }.sorted()
    }

    /// The lock files of the stores in the directory, sorted.
    func lockFiles() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return names.filter { $0.hasSuffix(".lock") && names.contains(String($0.dropLast(5))) }.sorted()
    }

    /// Creates `store` with `strata load --schema <schema> <store> <data files>`, requiring success.
    func load(_ store: String, schema: String, data: [(name: String, text: String)]) throws {
        for (name, text) in data { try write(name, text) }
        let run = try self.run(["load", "--schema", schema, store] + data.map(\.name))
        try #require(run.status == 0, "strata load \(store) failed: \(run.stderr)")
    }

    /// `strata dump <store>`, requiring success.
    func dump(_ store: String, _ options: String...) throws -> String {
        let run = try self.run(["dump", store] + options)
        try #require(run.status == 0 && run.stderr.isEmpty, "strata dump \(store) failed (\(run.status)): \(run.stderr)")
        return run.stdout
    }

    /// The objects of a dump, parsed: entity name to objects, each with `@id` and every property.
    func dumpedObjects(_ store: String, _ options: String...) throws -> [String: [[String: Any]]] {
        let run = try self.run(["dump", store] + options)
        try #require(run.status == 0, "strata dump \(store) failed (\(run.status)): \(run.stderr)")
        return try parseObjects(run.stdout)
    }
}

/// The `objects` of a text in the data format.
func parseObjects(_ text: String) throws -> [String: [[String: Any]]] {
    let json = try JSONSerialization.jsonObject(with: Data(text.utf8))
    let root = try #require(json as? [String: Any], "not a JSON object: \(text)")
    #expect(Set(root.keys) == ["objects"])
    return try #require(root["objects"] as? [String: [[String: Any]]], "not {\"objects\": {...}}: \(text)")
}

extension [[String: Any]] {
    /// The `@id`s of these objects, in order.
    var ids: [Int] { map { $0["@id"] as? Int ?? -1 } }

    /// The object with this `@id`.
    subscript(id id: Int) -> [String: Any]? { first { $0["@id"] as? Int == id } }
}
