import ArgumentParser
import Foundation
import Strata
import StrataCoreData

/// `strata convert`: any store type to any other, keeping primary keys.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Copy a store into a store of another type, keeping primary keys.",
        discussion: """
            Example: strata convert todo.sqlite todo.xml
            `strata dump` of the source and of the copy are byte-identical. An existing destination \
            is refused unless --force, and then replaced atomically. The destination type comes from \
            --to or from its extension.
            """
    )

    @Option(help: "The model to open the source with (needed for a Core Data store); by default the one stored in the source.")
    var schema: String?

    @Option(help: "The source store type; by default from the file.")
    var type: String?

    @Option(help: "The destination store type (sqlite, xml, binary); by default from its extension.")
    var to: String?

    @Argument(help: "The source store.")
    var source: String

    @Argument(help: "The destination store.")
    var destination: String

    @Flag(help: "Replace an existing destination.")
    var force = false

    func run() throws {
        try runReportingErrors {
            let registry = StoreAccess.registry
            if let schema { try StoreAccess.refuseSameFile(schema, role: "the model file", store: destination) }
            let sourceType = try StoreAccess.type(of: source, given: type)
            let destinationType: StoreType
            if let to {
                destinationType = StoreType(rawValue: to)
                _ = try registry.factory(for: destinationType)
            } else if let factory = registry.factory(forURLScheme: StoreAccess.location(destination)) {
                destinationType = factory.type
            } else {
                let ext = URL(fileURLWithPath: destination).pathExtension.lowercased()
                guard let factory = registry.factories.first(where: { $0.fileExtensions.contains(ext) }) else {
                    throw CLIError.unreadable("cannot tell the destination's store type from '\(Echo.value(destination))'; pass --to sqlite, xml or binary")
                }
                destinationType = factory.type
            }
            if destinationType == .coreDataSQLite {
                throw CLIError.unreadable("Strata reads Core Data stores but never writes them; convert into a sqlite, xml or binary store")
            }
            let model = try schema.map(StoreAccess.loadSchema)
            let showsProgress = isatty(STDERR_FILENO) != 0
            let summary = try StoreConverter.convert(
                from: StoreAccess.location(source), type: sourceType, schema: model,
                to: StoreAccess.location(destination), type: destinationType,
                storeTypes: registry, overwrite: force,
                progress: showsProgress ? { done, total in
                    FileHandle.standardError.write(Data("\rreading \(done)/\(total) objects".utf8))
                    if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
                } : nil)
            let total = summary.objectCounts.values.reduce(0, +)
            Console.print("converted \(total) object\(total == 1 ? "" : "s") from \(summary.sourceType) \(source) to \(summary.destinationType) \(destination)")
        }
    }
}
