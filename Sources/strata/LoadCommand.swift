import ArgumentParser
import Foundation
import Strata
import StrataPostgres
import StrataSQLite

/// `strata load`: imports JSON data files into a store in one save.
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load JSON data files into a store (created if missing), all in one save.",
        discussion: """
            The data format is {"objects": {"Entity": [{"@id": 1, ...}]}}: objects keep their @id, \
            missing attributes take their defaults, relationships may be given from either side, and \
            every reference must name an object in the files or already in the store. On any error \
            nothing is written and the command exits 1, listing every error with file:line:column.
            """
    )

    @Option(help: "The model file of the store.")
    var schema: String

    @Option(help: "The store type (sqlite, xml, binary); by default from the file or its extension.")
    var type: String?

    @Argument(help: "The store file.")
    var store: String

    @Argument(help: "The JSON data files.")
    var dataFiles: [String]

    func validate() throws {
        if dataFiles.isEmpty { throw ValidationError("name at least one data file") }
    }

    func run() throws {
        try runReportingErrors {
            if let type, StoreType(rawValue: type) == .inMemory {
                throw CLIError.unreadable("--type memory keeps nothing: the store would vanish when strata exits, so nothing would be loaded into any file; load into a file store instead (--type sqlite, xml or binary, or a store path ending in .sqlite, .xml or .plist)")
            }
            for file in dataFiles {
                try StoreAccess.refuseSameFile(file, role: "the data file", store: store)
            }
            try StoreAccess.refuseSameFile(self.schema, role: "the model file", store: store)
            try StoreAccess.refuseReadOnlyStore(store, type: type, command: "load")
            let schema = try StoreAccess.loadSchema(self.schema)
            var inputs: [(String, URL)] = []
            for file in dataFiles {
                let url = URL(fileURLWithPath: file)
                do throws(StrataError) {
                    try FileIdentity.requireRegularFile(url, role: "data file")
                } catch {
                    throw CLIError.unreadable(error.description)
                }
                // Read later, as a stream; a file that cannot be opened stops the load before it starts.
                guard let handle = FileHandle(forReadingAtPath: file) else {
                    throw CLIError.unreadable("cannot read the data file '\(Echo.value(file))'")
                }
                try? handle.close()
                inputs.append((file, url))
            }
            let counts = try loadCreatingTheStoreWhole(inputs, schema: schema)
            let total = counts.values.reduce(0, +)
            let detail = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            Console.print("loaded \(total) object\(total == 1 ? "" : "s") into \(store)\(detail.isEmpty ? "" : ": \(detail)")")
        }
    }

    /// Loads `inputs` into the store. A store that does not exist yet is made in a temporary file
    /// beside it and linked under its name once the load has succeeded: a failed load leaves
    /// nothing behind, and no file another process may have opened is ever removed. When another
    /// process creates the store in the meantime, the load goes into that one.
    private func loadCreatingTheStoreWhole(_ inputs: [(String, URL)], schema: Schema) throws -> [String: Int] {
        let storeType = try StoreAccess.type(of: store, given: type)
        // A store on a server (postgres://…) is loaded in place: one save, all or nothing; one
        // the load created is dropped again when it fails.
        guard storeType != .inMemory, StoreAccess.location(store).isFileURL, !FileManager.default.fileExists(atPath: store) else {
            return try load(inputs, schema: schema, into: store, type: storeType)
        }
        let url = URL(fileURLWithPath: store)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).loading")
        defer { StoreAccess.removeStoreFiles(at: temporary.path, type: storeType) }
        let counts: [String: Int]
        do {
            counts = try load(inputs, schema: schema, into: temporary.path, type: storeType, privateFile: true)
        } catch var error as StrataError {
            if error.file == temporary.path { error.file = store }
            throw error
        }
        if try FileSync.link(temporary, asNew: url) { return counts }
        return try load(inputs, schema: schema, into: store, type: storeType)
    }

    /// Opens or creates the store at `path` and loads `inputs` in one save. The store is closed
    /// when this returns.
    /// - Parameter privateFile: `path` is the temporary file no other process knows yet.
    private func load(_ inputs: [(String, URL)], schema: Schema, into path: String, type storeType: StoreType, privateFile: Bool = false) throws -> [String: Int] {
        let coordinator = try StoreAccess.openOrCreate(path, type: storeType.rawValue, schema: schema, privateFile: privateFile)
        // A server store this load created is taken away again if the load fails.
        var loaded = false
        defer {
            if !loaded { for store in coordinator.stores { _ = try? (store as? PostgresStore)?.removeIfCreatedAndUnused() } }
        }
        let context = ManagedObjectContext(coordinator: coordinator)
        let importer = DataImporter(context: context)
        let line = ProgressLine.forTerminal()
        defer { line?.clear() }
        if let line {
            // A new phase or file is drawn at once; counts at most every tenth of a second.
            var step: (DataImporter.Progress.Phase, String?)?
            importer.progress = { progress in
                let current = (progress.phase, progress.file)
                line.show(Self.progressText(progress), force: step.map { $0 != current } ?? true)
                step = current
            }
        }
        let counts: [String: Int]
        do throws(StrataError) {
            counts = try importer.load(contentsOf: inputs.map { (url: $0.1, name: $0.0) })
            if privateFile {
                for store in coordinator.stores { try (store as? SQLiteStore)?.finishPrivateFile() }
            }
        } catch where error.code == .storeIO && error.file == nil {
            // A data file that cannot be read (the store's own I/O errors name the store).
            throw CLIError.unreadable(error.message)
        } catch {
            guard error.code == .validationFailed, !error.failures.isEmpty else { throw error }
            var lines = ["the data breaks the model's rules; nothing was written:"]
            for failure in importer.sortedByInput(error.failures) {
                lines.append("  \(importer.describe(failure.objectID) ?? failure.objectID.description): \(failure.key.map { "\($0): " } ?? "")\(failure.message)")
            }
            throw CLIError.invalid(lines.joined(separator: "\n"))
        }
        loaded = true
        return counts
    }

    /// "reading data.json: 12000 objects (40%)", "resolving relationships: 5000/20000 (25%)".
    static func progressText(_ progress: DataImporter.Progress) -> String {
        switch progress.phase {
        case .reading:
            var text = "reading \(progress.file ?? "data"): \(progress.completed) objects"
            if let fraction = progress.fractionOfFile { text += " (\(Int(fraction * 100))%)" }
            return text
        case .resolving:
            let total = progress.total ?? 0
            return "resolving relationships: \(progress.completed)/\(total) (\(total > 0 ? progress.completed * 100 / total : 100)%)"
        case .saving:
            return "saving \(progress.total ?? progress.completed) objects"
        }
    }
}
