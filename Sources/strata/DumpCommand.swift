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

    @Option(help: "The store type (sqlite, xml, binary, coredata, coredata-xml); by default from the file.")
    var type: String?

    @Argument(help: "The store file.")
    var store: String

    @Option(help: "The model to open the store with (needed for a Core Data store); by default the one stored in the store.")
    var schema: String?

    @Option(name: .customLong("entity"), help: "Dump only this entity and its subentities (repeatable).")
    var entities: [String] = []

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (never the store itself).")
    var output: String?

    func run() throws {
        try runReportingErrors {
            if let output { try StoreAccess.refuseSameFile(output, role: "the output file", store: store) }
            let coordinator = try StoreAccess.openExisting(store, type: type, schema: schema.map(StoreAccess.loadSchema))
            let line = ProgressLine.forTerminal()
            defer { line?.clear() }
            let progress = line.map { line in { (progress: DataExporter.Progress) in line.show(Self.progressText(progress)) } }
            let entityNames = entities.isEmpty ? nil : entities
            // Written as it is made, a chunk at a time.
            if let output {
                // The store's errors as any command reports them; the output file's are unreadable (exit 2).
                var storeError: StrataError?
                do throws(StrataError) {
                    try FileSync.writeOutput(to: URL(fileURLWithPath: output)) { (write) throws(StrataError) in
                        var writeFailed = false
                        do throws(StrataError) {
                            try DataExporter.dump(coordinator, entityNames: entityNames, progress: progress) { (chunk) throws(StrataError) in
                                do throws(StrataError) { try write(chunk) } catch {
                                    writeFailed = true
                                    throw error
                                }
                            }
                        } catch {
                            if !writeFailed { storeError = error }
                            throw error
                        }
                    }
                } catch {
                    if let storeError { throw storeError }
                    throw CLIError.unreadable(error.description)
                }
            } else {
                try DataExporter.dump(coordinator, entityNames: entityNames, progress: progress) { (chunk) throws(StrataError) in
                    do {
                        try FileHandle.standardOutput.write(contentsOf: chunk)
                    } catch {
                        throw StrataError(.storeIO, "cannot write to standard output: \(error.localizedDescription)")
                    }
                }
            }
        }
    }

    /// "dumping Book: 12000/30000 (40%)".
    static func progressText(_ progress: DataExporter.Progress) -> String {
        "dumping \(progress.entityName): \(progress.completed)/\(progress.total) (\(progress.total > 0 ? progress.completed * 100 / progress.total : 100)%)"
    }
}
