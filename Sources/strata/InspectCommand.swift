import ArgumentParser
import Foundation
import Strata
import StrataCoreData
import StrataPostgres

/// `strata inspect`: what a store is and holds, without a schema.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's type, size, UUID, model, version hashes and object counts (no schema needed).",
        discussion: """
            A Core Data store (type coredata) shows its entities from Z_PRIMARYKEY with their object \
            counts, the entity version hashes Core Data stored (NSStoreModelVersionHashes, base64), \
            the Core Data version that wrote it and its metadata; with --schema the store is also \
            checked against the model.
            """
    )

    @Option(help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @Option(help: "The store type (sqlite, xml, binary, coredata); by default from the file.")
    var type: String?

    @Argument(help: "The store file.")
    var store: String

    @Option(help: "The model to open the store with; by default the one stored in the store (a Core Data store is inspected without one).")
    var schema: String?

    struct Report: Encodable {
        var path: String
        var type: String
        var fileSize: Int64
        var storeIdentifier: String
        var modelName: String
        var modelVersionHash: String
        var entityVersionHashes: [String: String]
        var objectCounts: [String: Int]
        var customMetadata: [String: String]
    }

    func run() throws {
        try runReportingErrors {
            let model = try schema.map(StoreAccess.loadSchema)
            if try StoreAccess.type(of: store, given: type) == .coreDataSQLite {
                try inspectCoreData(model: model)
                return
            }
            let coordinator = try StoreAccess.openExisting(store, type: type, schema: model)
            guard let opened = coordinator.stores.first else { return }
            let metadata = opened.metadata
            let context = ManagedObjectContext(coordinator: coordinator)
            var counts: [String: Int] = [:]
            for entity in coordinator.schema.entities where !entity.isAbstract {
                var request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                counts[entity.name] = try context.count(for: request)
            }
            // A server store's size is its schema's tables with their indexes, as the server counts them.
            let server = opened as? PostgresStore
            let size = try server?.storageSize() ?? (try? FileManager.default.attributesOfItem(atPath: store)[.size] as? NSNumber)?.int64Value ?? 0
            let report = Report(
                path: server?.location.description ?? store, type: metadata.storeType.rawValue, fileSize: size, storeIdentifier: metadata.storeIdentifier,
                modelName: metadata.modelName, modelVersionHash: metadata.modelVersionHash,
                entityVersionHashes: metadata.entityVersionHashes, objectCounts: counts, customMetadata: metadata.custom)
            switch format {
            case .json:
                Console.print(try Console.json(report))
            case .text:
                Console.print(text(report))
            }
        }
    }

    private func text(_ report: Report) -> String {
        var lines = [
            "store:       \(report.path)",
            "type:        \(report.type)",
            "size:        \(report.fileSize) bytes\(report.type == StoreType.postgres.rawValue ? " (the schema's tables and indexes on the server)" : "")",
            "UUID:        \(report.storeIdentifier)",
            "model:       \(report.modelName)",
            "model hash:  \(report.modelVersionHash)",
            "objects:     \(report.objectCounts.values.reduce(0, +))",
        ]
        let width = report.entityVersionHashes.keys.map(\.count).max() ?? 0
        lines.append("entities:")
        for name in report.entityVersionHashes.keys.sorted() {
            let count = report.objectCounts[name].map { String($0) } ?? "abstract"
            lines.append("  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(count.padding(toLength: 8, withPad: " ", startingAt: 0))  \(report.entityVersionHashes[name] ?? "")")
        }
        for key in report.customMetadata.keys.sorted() {
            lines.append("metadata \(key): \(report.customMetadata[key] ?? "")")
        }
        return lines.joined(separator: "\n")
    }
}
