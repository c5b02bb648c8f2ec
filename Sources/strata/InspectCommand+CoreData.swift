import Foundation
import Strata
import StrataCoreData

/// `strata inspect` of a Core Data store: what Core Data recorded about it, read without a model.
extension InspectCommand {
    struct CoreDataReport: Encodable {
        struct Entity: Encodable {
            var number: Int64
            var name: String
            var parent: String?
            var objects: Int?
            var table: String?
        }

        var path: String
        var type: String
        var fileSize: Int64
        var storeIdentifier: String
        /// The model the store was checked against (`--schema`), if any.
        var modelName: String?
        var modelVersionIdentifiers: [String]
        var frameworkVersion: String?
        var entities: [Entity]
        /// `NSStoreModelVersionHashes`, base64.
        var entityVersionHashes: [String: String]
        var objectCounts: [String: Int]
        /// Every other key of the store's metadata, as text.
        var metadata: [String: String]
        var customMetadata: [String: String]
    }

    /// Prints the report of a Core Data store; with `model`, the store is first opened with it,
    /// so that a store that does not match is refused.
    func inspectCoreData(model: Schema?) throws {
        let url = URL(fileURLWithPath: store)
        guard FileManager.default.fileExists(atPath: store) else {
            throw CLIError.unreadable("no store at '\(Echo.value(store))'")
        }
        if let model { _ = try StoreAccess.openExisting(store, type: StoreType.coreDataSQLite.rawValue, schema: model) }
        let summary = try CoreDataSQLiteStoreFactory().summary(at: url)
        let names = Dictionary(summary.entities.map { ($0.number, $0.name) }, uniquingKeysWith: { first, _ in first })
        let shown: Set<String> = ["NSStoreModelVersionHashes", "NSStoreModelVersionIdentifiers", "NSStoreUUID", "NSPersistenceFrameworkVersion"]
        let size = (try? FileManager.default.attributesOfItem(atPath: store)[.size] as? NSNumber)?.int64Value ?? 0
        var counts: [String: Int] = [:]
        for entity in summary.entities { if let objects = entity.objectCount { counts[entity.name] = objects } }
        let report = CoreDataReport(
            path: store, type: StoreType.coreDataSQLite.rawValue, fileSize: size, storeIdentifier: summary.storeUUID,
            modelName: model?.name, modelVersionIdentifiers: summary.modelVersionIdentifiers,
            frameworkVersion: summary.frameworkVersion,
            entities: summary.entities.map { entity in
                CoreDataReport.Entity(
                    number: entity.number, name: entity.name, parent: entity.superNumber == 0 ? nil : names[entity.superNumber] ?? "Z_ENT \(entity.superNumber)",
                    objects: entity.objectCount, table: entity.table)
            },
            entityVersionHashes: summary.entityVersionHashes.mapValues { $0.base64EncodedString() },
            objectCounts: counts,
            metadata: summary.metadata.filter { !shown.contains($0.key) && !summary.customMetadata.keys.contains($0.key) },
            customMetadata: summary.customMetadata)
        switch format {
        case .json:
            Console.print(try Console.json(report))
        case .text:
            Console.print(text(report))
        }
    }

    private func text(_ report: CoreDataReport) -> String {
        var lines = [
            "store:       \(report.path)",
            "type:        \(report.type) (a Core Data SQLite store; Strata reads it, never writes it)",
            "size:        \(report.fileSize) bytes",
            "UUID:        \(report.storeIdentifier)",
        ]
        if let model = report.modelName { lines.append("model:       \(model) (the store matches it)") }
        lines.append("versions:    \(report.modelVersionIdentifiers.isEmpty ? "(none)" : report.modelVersionIdentifiers.joined(separator: ", ")) (NSStoreModelVersionIdentifiers)")
        lines.append("written by:  \(report.frameworkVersion.map { "Core Data \($0)" } ?? "(not recorded)") (NSPersistenceFrameworkVersion)")
        lines.append("objects:     \(report.objectCounts.values.reduce(0, +))")
        let width = report.entities.map(\.name.count).max() ?? 0
        lines.append("entities:    (Z_ENT, name, parent, objects)")
        for entity in report.entities {
            let count = entity.objects.map { String($0) } ?? "no table"
            let parent = entity.parent.map { "(\($0))" } ?? ""
            lines.append("  \(String(entity.number).padding(toLength: 4, withPad: " ", startingAt: 0))\(entity.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(parent.padding(toLength: width + 2, withPad: " ", startingAt: 0))  \(count)")
        }
        let hashWidth = report.entityVersionHashes.keys.map(\.count).max() ?? 0
        lines.append("entity version hashes: (NSStoreModelVersionHashes, base64)")
        for name in report.entityVersionHashes.keys.sorted() {
            lines.append("  \(name.padding(toLength: hashWidth, withPad: " ", startingAt: 0))  \(report.entityVersionHashes[name] ?? "")")
        }
        for key in report.metadata.keys.sorted() {
            lines.append("core data \(key): \(Echo.value(report.metadata[key] ?? ""))")
        }
        for key in report.customMetadata.keys.sorted() {
            lines.append("metadata \(key): \(Echo.value(report.customMetadata[key] ?? ""))")
        }
        return lines.joined(separator: "\n")
    }
}
