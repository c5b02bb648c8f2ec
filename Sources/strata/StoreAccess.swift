import ArgumentParser
import Foundation
import Strata
import StrataBinaryPlist
import StrataCoreData
import StrataPostgres
import StrataSQLite
import StrataXML

/// How the commands find and open stores of every type.
enum StoreAccess {
    /// Every store type the CLI can open.
    static var registry: StoreTypeRegistry {
        StoreTypeRegistry([
            SQLiteStoreFactory(),
            XMLStoreFactory(),
            BinaryPlistStoreFactory(),
            CoreDataSQLiteStoreFactory(),
            CoreDataXMLStoreFactory(),
            PostgresStoreFactory(),
        ])
    }

    /// A store location as a URL: a server store's URL (`postgres://…`) as it is, else a file path.
    static func location(_ path: String) -> URL {
        if PostgresLocation.schemes.contains(where: { path.lowercased().hasPrefix($0 + "://") }), let url = URL(string: path) { return url }
        return URL(fileURLWithPath: path)
    }

    /// The type named by `--type`, or found from the file's first bytes or its extension.
    static func type(of path: String, given: String?) throws -> StoreType {
        if let given {
            let type = StoreType(rawValue: given)
            _ = try registry.factory(for: type)
            return type
        }
        return try registry.type(of: location(path))
    }

    /// Opens an existing store with `schema`, or else the model it was written with (no schema
    /// needed, except for a Core Data store, which keeps none Strata can read). A SQLite
    /// file this process cannot write (or whose directory it cannot write) is opened for reading
    /// only; one it can write is upgraded in place if an earlier Strata wrote it. A store
    /// another process migrates meanwhile is opened with its new model.
    static func openExisting(_ path: String, type given: String?, schema: Schema? = nil) throws -> PersistentStoreCoordinator {
        let url = location(path)
        guard !url.isFileURL || FileManager.default.fileExists(atPath: url.path) else {
            throw CLIError.unreadable("no store at '\(path)'")
        }
        let type = try type(of: path, given: given)
        // Another process may migrate the store between reading its model and opening it: the
        // open then finds another model than the one just read, and the model is read again.
        for attempt in 1...3 {
            let model = try schema ?? PersistentStoreCoordinator.metadataForStore(at: url, type: type, storeTypes: registry).schema()
            let coordinator = PersistentStoreCoordinator(schema: model, storeTypes: registry)
            do {
                try coordinator.addStore(StoreDescription(type: type, url: url))
                return coordinator
            } catch {
                guard error.code == .incompatibleModel, schema == nil, attempt < 3 else { throw error }
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }

    /// Refuses (exit 2) a command that would change a store of a type Strata only reads: a Core
    /// Data store (SQLite or XML).
    static func refuseReadOnlyStore(_ path: String, type given: String?, command: String) throws {
        guard FileManager.default.fileExists(atPath: path),
              [.coreDataSQLite, .coreDataXML].contains(try type(of: path, given: given))
        else { return }
        throw CLIError.unreadable("'\(Echo.value(path))' is a Core Data store, which Strata reads but never writes, so `strata \(command)` cannot change it; nothing was changed. Convert it into a Strata store and work on the copy: strata convert --schema <model> '\(Echo.value(path))' copy.sqlite")
    }

    /// Opens a store with `schema`, creating the file when it is missing.
    /// - Parameter privateFile: `path` is a temporary file of this process, published whole
    ///   after (``SQLiteStore/privateFileOption``).
    static func openOrCreate(_ path: String, type given: String?, schema: Schema, privateFile: Bool = false) throws -> PersistentStoreCoordinator {
        let url = location(path)
        let type = try type(of: path, given: given)
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: registry)
        let options = privateFile && type == .sqlite ? [SQLiteStore.privateFileOption: "true"] : [:]
        try coordinator.addStore(StoreDescription(type: type, url: url, options: options))
        return coordinator
    }

    /// Refuses (exit 2) to write `output` when it is one of the files of the store at `store`
    /// (the store itself, SQLite's `-wal`, `-shm`, `-journal` or an atomic store's `.lock`,
    /// existing or not yet), so that symlinks, hard links and other spellings of a path count.
    /// - Parameter output: the path about to be written.
    /// - Parameter role: what `output` is, for the message ("the output", "the data file").
    /// - Parameter store: the path of the store the command reads or writes.
    static func refuseSameFile(_ output: String, role: String, store: String) throws {
        guard FileIdentity.isPartOfStore(output, store: store) else { return }
        throw CLIError.unreadable("\(role) '\(Echo.value(output))' is the store '\(Echo.value(store))' (or one of its files); no command writes over one of its inputs; choose another file")
    }

    /// Removes a store of `type` with the files its type keeps beside it, and its lock file.
    /// Only for a file no other process can have opened (a temporary file of this process):
    /// removing a database's `-wal` while another connection uses it loses that connection's
    /// committed transactions.
    static func removeStoreFiles(at path: String, type: StoreType) {
        let url = location(path)
        try? registry.factory(for: type).destroyStore(at: url)
        try? FileManager.default.removeItem(at: FileLock.lockFile(of: url))
    }

    /// Reads a model file; an unreadable one is a usage error (2), an invalid one exits 1. An
    /// Xcode model (`.xcdatamodel`, `.xcdatamodeld`, a `contents` file) is imported on the fly:
    /// its current version, with a note on standard error when the import has warnings.
    static func loadSchema(_ path: String) throws -> Schema {
        if XCDataModelImporter.isModel(at: URL(fileURLWithPath: path)) {
            let current = try ImportXCDataModelCommand.importModel(path).current
            if !current.warnings.isEmpty {
                Console.note("strata: note: imported the Xcode model '\(Echo.line(path))' (version '\(Echo.line(current.versionName))') with \(current.warnings.count) warning\(current.warnings.count == 1 ? "" : "s"); `strata import-xcdatamodel` lists them")
            }
            return current.schema
        }
        do {
            return try Schema(contentsOf: URL(fileURLWithPath: path))
        } catch {
            if error.code == .unreadableFile { throw CLIError.unreadable(error.description) }
            throw CLIError.invalid(error.description)
        }
    }
}

/// A failure that ends a command with its exit status, after printing `message`.
enum CLIError: Error, CustomStringConvertible {
    /// Exit 2: a usage error or a file that cannot be read.
    case unreadable(String)
    /// Exit 1: the input was read but is invalid.
    case invalid(String)

    var description: String {
        switch self {
        case .unreadable(let message), .invalid(let message): message
        }
    }

    var status: ExitStatus {
        switch self {
        case .unreadable: .usage
        case .invalid: .invalid
        }
    }
}

/// Runs a command body, turning errors into messages on stderr and exit statuses.
func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as CLIError {
        Console.error(error.description)
        throw ExitCode(error.status.rawValue)
    } catch let error as StrataError {
        Console.error(error.description)
        switch error.code {
        case .storeIO, .noStore, .invalidConfiguration:
            throw ExitCode(ExitStatus.usage.rawValue)
        default:
            throw ExitCode(ExitStatus.invalid.rawValue)
        }
    }
}
