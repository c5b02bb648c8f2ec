public import Foundation

/// The versions of an app's model, oldest first; the last is the current one.
///
/// A store's version is found by the model version hash stored in it, never by the model's
/// `version` label (a label can be left unchanged by mistake; the hash cannot).
///
/// ```swift
/// let versions = try SchemaVersions(contentsOf: [v1URL, v2URL, v3URL])
/// let container = try PersistentContainer(
///     versions: versions, stores: [StoreDescription(type: .sqlite, url: storeURL)], storeTypes: types)
/// ```
public struct SchemaVersions: Sendable {
    /// Every version, oldest first.
    public let schemas: [Schema]

    /// Two adjacent versions may have the same version hash when what changed is not stored
    /// (indexes, defaults, validation rules, delete rules): a store of that hash is then taken
    /// to be at the later of them.
    /// - Throws: `invalidConfiguration` for an empty list.
    public init(_ schemas: [Schema]) throws(StrataError) {
        guard !schemas.isEmpty else {
            throw StrataError(.invalidConfiguration, "a list of model versions needs at least one model")
        }
        self.schemas = schemas
    }

    /// Loads every model file, oldest first.
    /// - Throws: `invalidConfiguration` naming the file that does not load.
    public init(contentsOf urls: [URL]) throws(StrataError) {
        var schemas: [Schema] = []
        for url in urls {
            do {
                schemas.append(try Schema(contentsOf: url))
            } catch {
                throw StrataError(.invalidConfiguration, "the model version '\(url.relativePath)' does not load:\n\(error)", file: url.relativePath)
            }
        }
        try self.init(schemas)
    }

    /// The current version: the last.
    public var current: Schema { schemas[schemas.count - 1] }

    /// The position of the (last) version with this model version hash.
    public func index(ofVersionHash hash: String) -> Int? {
        schemas.lastIndex { $0.versionHash == hash }
    }

    /// `Moody 2 (a1b2c3d4e5f6…)`: the name, the version label when there is one, and the hash.
    package static func label(_ schema: Schema) -> String {
        "\(schema.name)\(schema.version.map { " \($0)" } ?? "") (\(schema.versionHash.prefix(12))…)"
    }
}
