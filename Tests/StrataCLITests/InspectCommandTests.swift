import Foundation
import Strata
import Testing

@Suite("strata inspect")
struct InspectCommandTests {
    /// A store UUID as stores write it: upper-case, 8-4-4-4-12 hex digits.
    static func isStoreUUID(_ text: String) -> Bool {
        text.count == 36 && UUID(uuidString: text) != nil && text == text.uppercased()
    }

    /// The size of a file, as `inspect` reports it.
    static func size(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    }

    @Test(arguments: storeExtensions)
    func text(_ ext: String) throws {
        let workspace = try Workspace.todo(ext)
        let schema = try Schema(contentsOf: workspace.file("TodoList.json"))
        let hashes = schema.entityVersionHashes
        let type = try workspace.storeType("todo.\(ext)")
        let run = try workspace.run("inspect", "todo.\(ext)")
        #expect(run.stderr == "")
        #expect(run.status == 0)

        var lines = run.stdout.components(separatedBy: "\n")
        try #require(lines.count == 12, "stdout: \(run.stdout)")
        let uuid = String(lines[3].dropFirst("UUID:        ".count))
        #expect(lines[3].hasPrefix("UUID:        ") && Self.isStoreUUID(uuid), "\(lines[3])")
        lines[3] = "UUID:        <uuid>"
        #expect(lines == [
            "store:       todo.\(ext)",
            "type:        \(type)",
            "size:        \(try Self.size(workspace.file("todo.\(ext)"))) bytes",
            "UUID:        <uuid>",
            "model:       TodoList",
            "model hash:  \(schema.versionHash)",
            "objects:     12",
            "entities:",
            "  Location  2         \(try #require(hashes["Location"]))",
            "  Tag       3         \(try #require(hashes["Tag"]))",
            "  Todo      7         \(try #require(hashes["Todo"]))",
            "",
        ])

        // The UUID belongs to the store: the same on every open, another for another store.
        let again = try workspace.run("inspect", "todo.\(ext)")
        #expect(again.stdout.contains("UUID:        \(uuid)\n"))
        try workspace.load("other.\(ext)", schema: "TodoList.json", data: [("todo.json", todoData)])
        let other = try workspace.run("inspect", "other.\(ext)")
        #expect(other.stdout.contains("UUID:        "))
        #expect(!other.stdout.contains(uuid))
    }

    /// An abstract entity has a hash and no objects of its own.
    @Test func textWithAnAbstractEntity() throws {
        let workspace = try Workspace.moody()
        let hashes = try Schema(contentsOf: workspace.file("Moody.json")).entityVersionHashes
        let run = try workspace.run("inspect", "moody.plist")
        #expect(run.status == 0)
        let lines = run.stdout.components(separatedBy: "\n")
        #expect(lines.contains("objects:     7"))
        #expect(Array(lines.suffix(6)) == [
            "entities:",
            "  Continent         2         \(try #require(hashes["Continent"]))",
            "  Country           3         \(try #require(hashes["Country"]))",
            "  GeographicRegion  abstract  \(try #require(hashes["GeographicRegion"]))",
            "  Mood              2         \(try #require(hashes["Mood"]))",
            "",
        ])
    }

    @Test(arguments: storeExtensions)
    func json(_ ext: String) throws {
        let workspace = try Workspace.moody(ext)
        let schema = try Schema(contentsOf: workspace.file("Moody.json"))
        let run = try workspace.run("inspect", "--format", "json", "moody.\(ext)")
        #expect(run.stderr == "")
        #expect(run.status == 0)
        #expect(run.stdout.hasSuffix("}\n"))

        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(Set(report.keys) == [
            "path", "type", "fileSize", "storeIdentifier", "modelName", "modelVersionHash",
            "entityVersionHashes", "objectCounts", "customMetadata",
        ])
        #expect(report["path"] as? String == "moody.\(ext)")
        #expect(report["type"] as? String == (try workspace.storeType("moody.\(ext)")))
        #expect(report["fileSize"] as? Int == (try Self.size(workspace.file("moody.\(ext)"))))
        let uuid = try #require(report["storeIdentifier"] as? String)
        #expect(Self.isStoreUUID(uuid), "\(uuid)")
        #expect(report["modelName"] as? String == "Moody")
        #expect(report["modelVersionHash"] as? String == schema.versionHash)
        #expect(report["entityVersionHashes"] as? [String: String] == schema.entityVersionHashes)
        // Concrete entities only, each counted without its subentities.
        #expect(report["objectCounts"] as? [String: Int] == ["Continent": 2, "Country": 3, "Mood": 2])
        #expect(report["customMetadata"] as? [String: String] == [:])

        // Text and JSON tell the same UUID.
        #expect(try workspace.run("inspect", "moody.\(ext)").stdout.contains("UUID:        \(uuid)\n"))
    }

    /// Counts follow the data: after a delete, and for an empty store.
    @Test func countsFollowTheData() throws {
        let workspace = try Workspace.moody()
        #expect(try workspace.run("delete", "moody.plist", "Continent", "--where", "code == 'EU'").status == 0)
        let run = try workspace.run("inspect", "--format", "json", "moody.plist")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["objectCounts"] as? [String: Int] == ["Continent": 1, "Country": 1, "Mood": 2])

        try workspace.load("empty.plist", schema: "Moody.json", data: [("empty.json", #"{"objects": {}}"#)])
        let empty = try workspace.run("inspect", "empty.plist")
        #expect(empty.stdout.contains("\nobjects:     0\n"))
        #expect(empty.stdout.contains("\n  Mood              0         "))
    }

    // MARK: - Errors

    @Test func aMissingStoreExits2() throws {
        let workspace = try Workspace()
        let run = try workspace.run("inspect", "missing.plist")
        #expect(run.stderr == "strata: error: no store at 'missing.plist'\n")
        #expect(run.stdout == "")
        #expect(run.status == 2)
    }

    @Test func aFileThatIsNotAStoreExits1() throws {
        let workspace = try Workspace(["junk.plist": "hello\n"])
        let run = try workspace.run("inspect", "--format", "json", "junk.plist")
        #expect(run.stderr.contains("junk.plist: not a readable binary property list"), "stderr: \(run.stderr)")
        #expect(run.stdout == "")
        #expect(run.status == 1)
    }

    @Test func anUnknownFormatIsAUsageError() throws {
        let workspace = try Workspace()
        let run = try workspace.run("inspect", "--format", "yaml", "missing.plist")
        #expect(run.stderr.hasPrefix("Error: The value 'yaml' is invalid for '--format <format>'"), "stderr: \(run.stderr)")
        #expect(run.status == 2)
    }
}
