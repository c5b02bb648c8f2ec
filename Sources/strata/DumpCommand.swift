import ArgumentParser
import Foundation
import Strata

/// `strata dump`: the canonical JSON of a store, no schema needed.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write a store's objects as canonical JSON (the model comes from the store).",
        discussion: """
            Concrete entities by name, objects by @id, keys sorted, every attribute and relationship \
            present: two stores hold the same graph exactly when their dumps are byte-identical.
            """
    )

    @Option(help: "The store type (sqlite, xml, binary); by default from the file.")
    var type: String?

    @Argument(help: "The store file.")
    var store: String

    @Option(name: .customLong("entity"), help: "Dump only this entity and its subentities (repeatable).")
    var entities: [String] = []

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (never the store itself).")
    var output: String?

    func run() throws {
        try runReportingErrors {
            if let output { try StoreAccess.refuseSameFile(output, role: "the output file", store: store) }
            let coordinator = try StoreAccess.openExisting(store, type: type)
            let json = try DataExporter.dump(coordinator, entityNames: entities.isEmpty ? nil : entities)
            if let output {
                do throws(StrataError) {
                    try FileSync.writeOutput(Data(json.utf8), to: URL(fileURLWithPath: output))
                } catch {
                    throw CLIError.unreadable(error.description)
                }
            } else {
                FileHandle.standardOutput.write(Data(json.utf8))
            }
        }
    }
}
