import Foundation
import Strata
import StrataXML
import Testing

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func exampleSchema(_ name: String) throws -> Schema {
    try Schema(contentsOf: repositoryRoot.appendingPathComponent("Schemas/\(name).json"))
}

/// A model with an optional attribute of every type and every kind of relationship, including
/// inheritance, for round trips.
let valuesSchemaJSON = """
    {
      "name": "Values",
      "version": "1",
      "entities": [
        {
          "name": "Sample",
          "attributes": [
            { "name": "text",       "type": "string",  "optional": true },
            { "name": "small",      "type": "int16",   "optional": true },
            { "name": "medium",     "type": "int32",   "optional": true },
            { "name": "large",      "type": "int64",   "optional": true },
            { "name": "amount",     "type": "decimal", "optional": true },
            { "name": "real",       "type": "double",  "optional": true },
            { "name": "single",     "type": "float",   "optional": true },
            { "name": "flag",       "type": "bool",    "optional": true },
            { "name": "moment",     "type": "date",    "optional": true },
            { "name": "blob",       "type": "binary",  "optional": true },
            { "name": "identifier", "type": "uuid",    "optional": true },
            { "name": "link",       "type": "uri",     "optional": true },
            { "name": "payload",    "type": "transformable", "transformer": "Payload", "optional": true },
            { "name": "scratch",    "type": "string",  "optional": true, "transient": true }
          ],
          "relationships": [
            { "name": "owner",    "destination": "Owner", "inverse": "samples", "optional": true },
            { "name": "parts",    "destination": "Part",  "inverse": "sample", "toMany": true, "ordered": true },
            { "name": "labels",   "destination": "Label", "inverse": "samples", "toMany": true },
            { "name": "next",     "destination": "Sample", "optional": true, "deleteRule": "noAction" }
          ]
        },
        {
          "name": "Owner",
          "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [
            { "name": "samples", "destination": "Sample", "inverse": "owner", "toMany": true }
          ]
        },
        {
          "name": "Part",
          "abstract": true,
          "attributes": [ { "name": "title", "type": "string" } ],
          "relationships": [
            { "name": "sample", "destination": "Sample", "inverse": "parts" }
          ]
        },
        {
          "name": "Bolt",
          "parent": "Part",
          "attributes": [ { "name": "size", "type": "int32" } ]
        },
        {
          "name": "Nut",
          "parent": "Part",
          "attributes": [ { "name": "thread", "type": "double" } ]
        },
        {
          "name": "Label",
          "attributes": [ { "name": "name", "type": "string" } ],
          "relationships": [
            { "name": "samples", "destination": "Sample", "inverse": "labels", "toMany": true }
          ]
        }
      ]
    }
    """

func valuesSchema() throws -> Schema {
    try Schema(data: Data(valuesSchemaJSON.utf8), file: "Values.json")
}


/// A coordinator that knows the XML store type (and the Values model's transformer).
func xmlCoordinator(_ schema: Schema) -> PersistentStoreCoordinator {
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([XMLStoreFactory()]))
    coordinator.attributeTransformers.register(CodableAttributeTransformer<[String]>(), name: "Payload")
    return coordinator
}

/// Writes an empty XML store with a fixed identifier, so that files built on it are byte-stable.
func createEmptyStore(at url: URL, schema: Schema, identifier: String) throws {
    try XMLStoreFormat().write(
        AtomicStoreContents(metadata: StoreMetadata(newStoreOf: .xml, schema: schema, identifier: identifier)), to: url)
}

/// Writes `text` to a file in `directory` and returns its URL.
func writeFile(_ text: String, named name: String = "store.xml", in directory: URL) throws -> URL {
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url
}



/// The store identifier of stores built for golden files and format-level tests.
let fixedStoreIdentifier = "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"

/// The permanent ID of an object in the store with `identifier`.
func objectID(_ entity: String, _ key: Int64, store identifier: String = fixedStoreIdentifier) -> ObjectID {
    ObjectID(entityName: entity, storeIdentifier: identifier, primaryKey: key)
}

/// Contents for format-level tests: `records` in a store of `schema` with the fixed identifier.
func contents(_ schema: Schema, _ records: [StoreRecord], keySequences: [String: Int64] = [:]) -> AtomicStoreContents {
    var result = AtomicStoreContents(
        metadata: StoreMetadata(newStoreOf: .xml, schema: schema, identifier: fixedStoreIdentifier),
        keySequences: keySequences)
    for record in records { result.records[record.objectID.entityName, default: [:]][record.objectID] = record }
    return result
}

/// Records in the form a store reads them back in: versions (a store's own bookkeeping) zero,
/// unordered to-many members by key, empty to-many relationships left out (a missing key means
/// an empty to-many).
func canonical(_ records: [String: [ObjectID: StoreRecord]], _ schema: Schema) -> [String: [ObjectID: StoreRecord]] {
    records.mapValues { $0.mapValues { record in
        var copy = record
        copy.version = 0
        let entity = schema.entity(named: record.objectID.entityName)!
        for (name, members) in record.toMany {
            if members.isEmpty {
                copy.toMany[name] = nil
            } else if entity.relationship(named: name)?.isOrdered == false {
                copy.toMany[name] = members.sorted()
            }
        }
        return copy
    } }
}

/// A TCP listener on 127.0.0.1 with a port of the system's choosing, to prove that nothing
/// connects to it.
final class LocalListener {
    private let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0
                    && listen(descriptor, 8) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// True when a client connected since the listener opened.
    func acceptedConnection() -> Bool {
        let client = accept(descriptor, nil, nil)
        if client >= 0 {
            close(client)
            return true
        }
        return false
    }
}

/// Runs the test `filter` of this test binary in a child process with `store` and a ready
/// file in its environment (under `storeVariable` and `readyVariable`), waits until the child
/// has written the ready file, lets it run for `running` seconds, then kills it with SIGKILL.
func killChildTest(
    _ filter: String, storeVariable: String, store: URL, readyVariable: String, ready: URL, running: Double,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
    var environment = ProcessInfo.processInfo.environment
    environment[storeVariable] = store.path
    environment[readyVariable] = ready.path
    child.environment = environment
    child.standardOutput = FileHandle.nullDevice
    child.standardError = FileHandle.nullDevice
    try child.run()
    let start = ContinuousClock.now
    while !FileManager.default.fileExists(atPath: ready.path) && ContinuousClock.now - start < .seconds(120) {
        Thread.sleep(forTimeInterval: 0.02)
    }
    #expect(FileManager.default.fileExists(atPath: ready.path), "the child never got going", sourceLocation: sourceLocation)
    Thread.sleep(forTimeInterval: running)
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    #expect(child.terminationReason == .uncaughtSignal, sourceLocation: sourceLocation)
    #expect(child.terminationStatus == SIGKILL, sourceLocation: sourceLocation)
}
