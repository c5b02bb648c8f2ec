import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// kill -9 during a migration of an XML store: the file is always the old store or the fully
/// migrated one, and reads whole.
@Suite struct XMLStoreMigrationCrashTests {
    static let v1 = migrationModel("1", #"{ "name": "text", "type": "string" }"#)
    /// `text` renamed to `body`, `tag` added; v2 → v1 is inferable too (a rename and a removal).
    static let v2 = migrationModel("2", #"{ "name": "body", "renamingIdentifier": "text", "type": "string" }, { "name": "tag", "type": "string", "default": "v2" }"#)

    static func migrationModel(_ version: String, _ attributes: String) -> Schema {
        do {
            return try Schema(data: Data(#"{ "name": "Ballast", "version": "\#(version)", "entities": [ { "name": "Sample", "attributes": [ \#(attributes), { "name": "index", "type": "int32" } ] } ] }"#.utf8))
        } catch {
            preconditionFailure("\(error)")
        }
    }

    static let childStoreVariable = "STRATA_XML_MIGRATION_CHILD_STORE"
    static let childReadyVariable = "STRATA_XML_MIGRATION_CHILD_READY"
    static let sampleCount = 3000

    /// The child's side of ``killedDuringMigrationsLeavesTheOldOrTheNewStore()``: run only in a
    /// child process the test starts, it migrates the store back and forth between v1 and v2
    /// until it is killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childStoreVariable] != nil))
    func migrationChildLoop() throws {
        let environment = ProcessInfo.processInfo.environment
        let url = URL(fileURLWithPath: environment[Self.childStoreVariable]!)
        let migrator = StoreMigrator(storeTypes: StoreTypeRegistry([XMLStoreFactory()]))
        try Data("ready".utf8).write(to: URL(fileURLWithPath: environment[Self.childReadyVariable]!))
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let atV1 = try XMLStoreFormat().readMetadata(from: url).modelVersionHash == Self.v1.versionHash
            _ = try migrator.migrateStore(at: url, versions: SchemaVersions(atV1 ? [Self.v1, Self.v2] : [Self.v2, Self.v1]))
        }
    }

    /// A real crash: a child process migrating in a loop is killed with SIGKILL at a random
    /// moment, several times; after each kill the store reads whole, with v1's or v2's model
    /// and every object in that model's form, and the next child carries on from it.
    @Test func killedDuringMigrationsLeavesTheOldOrTheNewStore() throws {
        var generator = SeededGenerator(seed: 11)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("ballast.xml")
            let coordinator = xmlCoordinator(Self.v1)
            let store = try coordinator.addStore(StoreDescription(type: .xml, url: url))
            let context = ManagedObjectContext(coordinator: coordinator)
            for index in 0..<Self.sampleCount {
                let sample = try context.insertObject(entityName: "Sample")
                sample["text"] = String(repeating: "ballast \(index) ", count: 8)
                sample["index"] = Int64(index)
            }
            try context.save()
            coordinator.removeStore(store)

            for round in 0..<3 {
                let ready = directory.appendingPathComponent("ready-\(round)")
                try killChildTest(
                    "migrationChildLoop", storeVariable: Self.childStoreVariable, store: url, readyVariable: Self.childReadyVariable,
                    ready: ready, running: Double.random(in: 0.3...1.2, using: &generator))

                let contents = try XMLStoreFormat().read(from: url)
                let hash = contents.metadata.modelVersionHash
                #expect(hash == Self.v1.versionHash || hash == Self.v2.versionHash)
                let atV1 = hash == Self.v1.versionHash
                let samples = contents.records["Sample"] ?? [:]
                #expect(samples.count == Self.sampleCount)
                let wrong = samples.values.filter { record in
                    guard case .integer(let index)? = record.attributes["index"] else { return true }
                    let text = AttributeValue.string(String(repeating: "ballast \(index) ", count: 8))
                    return atV1
                        ? record.attributes != ["text": text, "index": .integer(index)]
                        : record.attributes != ["body": text, "tag": .string("v2"), "index": .integer(index)]
                }
                #expect(wrong.isEmpty, "\(wrong.count) samples are not in the form of the model the file names")
                // The store opens with the model it names.
                let reopened = xmlCoordinator(atV1 ? Self.v1 : Self.v2)
                try reopened.addStore(StoreDescription(type: .xml, url: url))
            }
        }
    }
}
