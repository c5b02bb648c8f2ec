import Foundation
@testable import Strata
import Testing

/// Records built by hand for ``RecordMigration``'s tests: models from a few lines of JSON,
/// stores of records laid out as a file reader lays them out, and one step applied to them.
enum Migrating {
    static let storeIdentifier = "6C1E7A52-0B0F-4E4B-9E55-2D0C3F1B7A10"

    /// A model `Moody` with `entities` (the JSON of the entity array's elements).
    static func model(_ version: String, _ entities: String) -> Schema {
        do {
            return try Schema(data: Data(#"{ "name": "Moody", "version": "\#(version)", "entities": [\#(entities)] }"#.utf8), file: "Moody \(version)")
        } catch {
            preconditionFailure("a migration test model does not load: \(error)")
        }
    }

    static func id(_ entity: String, _ key: Int64) -> ObjectID {
        ObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: key)
    }

    static func record(
        _ entity: String, _ key: Int64, _ attributes: [String: AttributeValue] = [:], toOne: [String: ObjectID] = [:],
        toMany: [String: [ObjectID]] = [:], version: Int64 = 1
    ) -> StoreRecord {
        StoreRecord(objectID: id(entity, key), attributes: AttributeValues(attributes), toOne: toOne, toMany: toMany, version: version)
    }

    /// A store of `schema` holding `records`, each laid out by its entity's layout (as the file
    /// readers lay them out), with custom metadata.
    static func contents(_ schema: Schema, _ records: [StoreRecord], keySequences: [String: Int64] = [:]) -> AtomicStoreContents {
        var metadata = StoreMetadata(newStoreOf: .xml, schema: schema, identifier: storeIdentifier)
        metadata.custom = ["owner": "tests"]
        var byEntity: [String: [ObjectID: StoreRecord]] = [:]
        for var record in records {
            if let layout = schema.entity(named: record.objectID.entityName)?.attributeLayout {
                record.attributes = record.attributes.laidOut(by: layout)
            }
            byEntity[record.objectID.entityName, default: [:]][record.objectID] = record
        }
        return AtomicStoreContents(metadata: metadata, records: byEntity, keySequences: keySequences)
    }

    /// `contents` carried through one step (a custom one when `custom`: no stage code, but the
    /// changes the diff cannot infer are allowed), with the destination's requirements checked.
    static func migrate(_ contents: AtomicStoreContents, from source: Schema, to destination: Schema, custom: Bool = false) throws(StrataError) -> AtomicStoreContents {
        let stage = custom ? MigrationStage.custom(from: source, to: destination, didMigrate: { _ in }) : nil
        let step = MigrationStep(source: source, destination: destination, stage: stage)
        let migrated = try RecordMigration.apply(step, to: contents)
        try RecordMigration.checkRequirements(step, migrated)
        return migrated
    }

    /// Runs `body`, expecting `migrationRefused`; returns the message.
    static func refusal(sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> String {
        do {
            try body()
            Issue.record("expected the migration to be refused", sourceLocation: sourceLocation)
        } catch let error as StrataError {
            #expect(error.code == .migrationRefused, "\(error)", sourceLocation: sourceLocation)
            return error.message
        } catch {
            Issue.record("expected a StrataError, got \(error)", sourceLocation: sourceLocation)
        }
        return ""
    }
}
