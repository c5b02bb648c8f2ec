import ArgumentParser
import Foundation
import Strata
import StrataBinaryPlist
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
        ])
    }

    /// The type named by `--type`, or found from the file's first bytes or its extension.
    static func type(of path: String, given: String?) throws -> StoreType {
        if let given {
            let type = StoreType(rawValue: given)
            _ = try registry.factory(for: type)
            return type
        }
        return try registry.type(of: URL(fileURLWithPath: path))
    }

    /// Opens an existing store with the model it was written with (no schema needed).
    static func openExisting(_ path: String, type given: String?) throws -> PersistentStoreCoordinator {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CLIError.unreadable("no store at '\(path)'")
        }
        let type = try type(of: path, given: given)
        let metadata = try PersistentStoreCoordinator.metadataForStore(at: url, type: type, storeTypes: registry)
        let coordinator = PersistentStoreCoordinator(schema: try metadata.schema(), storeTypes: registry)
        try coordinator.addStore(StoreDescription(type: type, url: url))
        return coordinator
    }

    /// Opens a store with `schema`, creating the file when it is missing.
    static func openOrCreate(_ path: String, type given: String?, schema: Schema) throws -> PersistentStoreCoordinator {
        let url = URL(fileURLWithPath: path)
        let type = try type(of: path, given: given)
        let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: registry)
        try coordinator.addStore(StoreDescription(type: type, url: url))
        return coordinator
    }

    /// Whether the store at `path` holds no object: a store this command created and failed to
    /// load into is removed only then, since another process may have opened the new store
    /// and saved into it meanwhile.
    static func isEmptyStore(_ path: String, type: String?) -> Bool {
        guard let coordinator = try? openExisting(path, type: type) else { return false }
        let context = ManagedObjectContext(coordinator: coordinator)
        for entity in coordinator.schema.entities where entity.parentName == nil {
            guard let count = try? context.count(for: FetchRequest(entityName: entity.name)), count == 0 else { return false }
        }
        return true
    }

    /// Removes a store file and the files SQLite keeps beside it.
    static func removeStoreFiles(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// Reads a model file; an unreadable one is a usage error (2), an invalid one exits 1.
    static func loadSchema(_ path: String) throws -> Schema {
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
