import Foundation
import Strata
import StrataBinaryPlist

/// The model the binary-store tests use: one attribute of every type, to-one and to-many
/// relationships, an ordered to-many into an inheritance hierarchy, and a relationship without
/// inverse (whose targets can dangle).
enum Fixtures {
    static let schemaJSON = """
    {
      "name": "BinarySink",
      "version": "1",
      "entities": [
        {
          "name": "Item",
          "attributes": [
            { "name": "text",   "type": "string",  "optional": true },
            { "name": "small",  "type": "int16",   "optional": true },
            { "name": "medium", "type": "int32",   "optional": true },
            { "name": "large",  "type": "int64",   "optional": true },
            { "name": "amount", "type": "decimal", "optional": true },
            { "name": "ratio",  "type": "double",  "optional": true },
            { "name": "level",  "type": "float",   "optional": true },
            { "name": "flag",   "type": "bool",    "optional": true },
            { "name": "when",   "type": "date",    "optional": true },
            { "name": "blob",   "type": "binary",  "optional": true },
            { "name": "shape",  "type": "transformable", "transformer": "Shape", "optional": true },
            { "name": "token",  "type": "uuid",    "optional": true },
            { "name": "link",   "type": "uri",     "optional": true },
            { "name": "scratch", "type": "string", "optional": true, "transient": true }
          ],
          "relationships": [
            { "name": "owner", "destination": "Owner", "inverse": "items", "optional": true },
            { "name": "tags",  "destination": "Tag",   "inverse": "items", "toMany": true },
            { "name": "next",  "destination": "Item",  "optional": true, "deleteRule": "noAction" }
          ]
        },
        {
          "name": "Owner",
          "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [
            { "name": "items",  "destination": "Item",  "inverse": "owner", "toMany": true },
            { "name": "assets", "destination": "Asset", "inverse": "owner", "toMany": true, "ordered": true }
          ]
        },
        {
          "name": "Tag",
          "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [
            { "name": "items", "destination": "Item", "inverse": "tags", "toMany": true }
          ]
        },
        {
          "name": "Asset",
          "abstract": true,
          "attributes": [ { "name": "title", "type": "string" } ],
          "relationships": [
            { "name": "owner", "destination": "Owner", "inverse": "assets", "optional": true }
          ]
        },
        { "name": "Document", "parent": "Asset", "attributes": [ { "name": "pages", "type": "int32" } ] },
        { "name": "Photo",    "parent": "Asset", "attributes": [ { "name": "width", "type": "int32" } ] }
      ]
    }
    """

    static let schema: Schema = {
        do {
            return try Schema(data: Data(schemaJSON.utf8), file: "BinarySink")
        } catch {
            fatalError("the test model does not load: \(error)")
        }
    }()

    static let storeIdentifier = "6F9619FF-8B86-D011-B42D-00C04FC964FF"

    static func id(_ entity: String, _ key: Int64, store: String = storeIdentifier) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: store, primaryKey: key)
    }

    static func record(
        _ entity: String, _ key: Int64, version: Int64 = 1, _ attributes: AttributeValues = [:],
        toOne: [String: ObjectID] = [:], toMany: [String: [ObjectID]] = [:]
    ) -> StoreRecord {
        StoreRecord(objectID: id(entity, key), attributes: attributes, toOne: toOne, toMany: toMany, version: version)
    }

    static func contents(_ records: [StoreRecord], keySequences: [String: Int64] = [:], custom: [String: String] = [:]) -> AtomicStoreContents {
        var metadata = StoreMetadata(newStoreOf: .binaryPlist, schema: schema, identifier: storeIdentifier)
        metadata.custom = custom
        var contents = AtomicStoreContents(metadata: metadata, keySequences: keySequences)
        for record in records {
            contents.records[record.objectID.entityName, default: [:]][record.objectID] = record
        }
        return contents
    }

    /// A small store touching every feature of the layout (used by the golden file too).
    static func smallStore() -> AtomicStoreContents {
        let when = Date(timeIntervalSince1970: 1_714_557_600.123)
        return contents([
            record("Owner", 1, ["name": .string("Ada")], toMany: ["items": [id("Item", 1), id("Item", 2)], "assets": [id("Photo", 2), id("Document", 1)]]),
            record("Owner", 2, version: 3, ["name": .string("Zoë <&> \"Q\"")], toMany: ["items": [], "assets": []]),
            record("Tag", 1, ["name": .string("home")], toMany: ["items": [id("Item", 1)]]),
            record("Item", 1, [
                "text": .string("Buy milk"), "small": .integer(-7), "medium": .integer(70_000), "large": .integer(.max),
                "amount": .decimal(Decimal(string: "123456789012345678.901234567890")!), "ratio": .double(.nan),
                "level": .float(0.25), "flag": .bool(true), "when": .date(when), "blob": .binary(Data()),
                "token": .uuid(UUID(uuidString: "3F2504E0-4F89-11D3-9A0C-0305E82C3301")!),
                "link": .uri(URL(string: "https://example.com/a?b=c")!),
            ], toOne: ["owner": id("Owner", 1), "next": id("Item", 9)], toMany: ["tags": [id("Tag", 1)]]),
            record("Item", 2, version: 2, ["text": .string("tab\tnew\nline 😀"), "ratio": .double(-.infinity)],
                   toOne: ["owner": id("Owner", 1)]),
            record("Document", 1, ["title": .string("Report"), "pages": .integer(12)], toOne: ["owner": id("Owner", 1)]),
            record("Photo", 2, ["title": .string("Beach"), "width": .integer(640)], toOne: ["owner": id("Owner", 1)]),
        ], keySequences: ["Item": 9, "Owner": 2, "Tag": 1, "Asset": 2], custom: ["app": "tests", "note": "ünïcode"])
    }

    static let format = BinaryPlistStoreFormat()

    static var storeTypes: StoreTypeRegistry { StoreTypeRegistry([BinaryPlistStoreFactory()]) }

    /// A coordinator with a binary store at `url`.
    static func coordinator(at url: URL) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: storeTypes)
        try coordinator.addStore(StoreDescription(type: .binaryPlist, url: url))
        return coordinator
    }
}

/// True when two stores hold the same metadata, records and key sequences.
func sameContents(_ a: AtomicStoreContents, _ b: AtomicStoreContents) -> Bool {
    a.metadata == b.metadata && a.records == b.records && a.keySequences == b.keySequences
}



/// Runs python3 when the machine has it.
enum Python {
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    static var isAvailable: Bool { executable != nil }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `script` with `arguments`; the script's output is returned whole.
    static func run(_ script: String, _ arguments: [String] = []) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable!)
        process.arguments = ["-c", script] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so that a large output cannot fill the pipe and block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
