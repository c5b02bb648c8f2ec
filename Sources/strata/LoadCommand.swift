import ArgumentParser
import Foundation
import Strata

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

    @Option(help: "The store type (memory, sqlite, xml, binary); by default from the file.")
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
            let schema = try StoreAccess.loadSchema(self.schema)
            var inputs: [(String, Data)] = []
            for file in dataFiles {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CLIError.unreadable("cannot read the data file '\(file)'")
                }
                inputs.append((file, data))
            }
            // Opening a missing store creates it; a load that fails must not leave it behind.
            let existed = FileManager.default.fileExists(atPath: store)
            let counts: [String: Int]
            do {
                counts = try load(inputs, schema: schema)
            } catch {
                if !existed && StoreAccess.isEmptyStore(store, type: type) { StoreAccess.removeStoreFiles(at: store) }
                throw error
            }
            let total = counts.values.reduce(0, +)
            let detail = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            Console.print("loaded \(total) object\(total == 1 ? "" : "s") into \(store)\(detail.isEmpty ? "" : ": \(detail)")")
        }
    }

    /// Opens or creates the store and loads `inputs` in one save. The store is closed when this
    /// returns, so that a new one can be removed after a failure.
    private func load(_ inputs: [(String, Data)], schema: Schema) throws -> [String: Int] {
        let coordinator = try StoreAccess.openOrCreate(store, type: type, schema: schema)
        let context = ManagedObjectContext(coordinator: coordinator)
        let importer = DataImporter(context: context)
        for (file, data) in inputs { importer.add(data, file: file) }
        let counts = try importer.finish()
        do throws(StrataError) {
            try context.save()
        } catch {
            guard error.code == .validationFailed else { throw error }
            var lines = ["the data breaks the model's rules; nothing was written:"]
            for failure in importer.sortedByInput(error.failures) {
                lines.append("  \(importer.describe(failure.objectID) ?? failure.objectID.description): \(failure.key.map { "\($0): " } ?? "")\(failure.message)")
            }
            throw CLIError.invalid(lines.joined(separator: "\n"))
        }
        return counts
    }
}
