public import Foundation

/// A per-app configuration file (`strata.json`): the schema and the stores, so that the backend
/// is chosen by configuration, not code.
///
/// ```json
/// {
///   "schema": "Schemas/Moody-v3.json",
///   "versions": ["Schemas/Moody-v1.json", "Schemas/Moody-v2.json"],
///   "stores": [ { "type": "sqlite", "path": "Data/app.sqlite", "options": {} } ]
/// }
/// ```
/// Paths are relative to the file's folder. `versions` (optional) lists the model's earlier
/// versions, oldest first: a store written with one of them is migrated to `schema` when the
/// container opens it (``PersistentContainer/init(configurationFile:storeTypes:classes:stages:environment:progress:)``).
/// `eraseStoreOnModelMismatch` (optional, `false` by default; development only) deletes a store
/// written with another model instead, and starts an empty one. Store keys: `type` (`memory`, `sqlite`, `xml`,
/// `binary`, or another registered type), `path` (not for `memory`), `configuration` (a
/// configuration of the model), `options` (strings). The environment variable `STRATA_STORE`
/// replaces every store with one: `memory`, or `TYPE:PATH` such as `sqlite:Data/app.sqlite`
/// (a relative path is relative to the current directory), or a server store's URL such as
/// `postgres://app@db/shop?schema=orders`. A `path` that is such a URL is kept as it is.
public struct StrataConfiguration: Sendable, Hashable {
    public static let environmentVariable = "STRATA_STORE"
    private static let keys = ["schema", "versions", "stores", "eraseStoreOnModelMismatch"]

    public var schemaURL: URL
    /// The model's earlier versions, oldest first.
    public var versionURLs: [URL]
    public var stores: [StoreDescription]
    /// Whether a store written with another model is deleted and started anew (development only).
    public var erasesStoreOnModelMismatch: Bool

    public init(schemaURL: URL, versionURLs: [URL] = [], stores: [StoreDescription], erasesStoreOnModelMismatch: Bool = false) {
        self.schemaURL = schemaURL
        self.versionURLs = versionURLs
        self.stores = stores
        self.erasesStoreOnModelMismatch = erasesStoreOnModelMismatch
    }

    /// Reads a configuration file, applying `STRATA_STORE` from `environment`.
    /// - Throws: `invalidConfiguration` naming the file, line and column of the problem.
    public init(contentsOf url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StrataError) {
        let file = url.relativePath
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StrataError(.invalidConfiguration, "cannot read the configuration file: \(error.localizedDescription)", file: file)
        }
        let root: JSONNode
        do {
            root = try JSONParser.parse(Array(data))
        } catch {
            throw StrataError(.invalidConfiguration, "malformed JSON: \(error.message)", file: file, location: error.location)
        }
        let base = url.deletingLastPathComponent()
        func fail(_ message: String, _ node: JSONNode?) -> StrataError {
            StrataError(.invalidConfiguration, message, file: file, location: node?.location)
        }
        guard let members = root.value.objectMembers else { throw fail("expected a JSON object with 'schema' and 'stores'", root) }
        var schemaPath: String?
        var versionPaths: [String] = []
        var erases = false
        var stores: [StoreDescription] = []
        for member in members {
            switch member.key {
            case "schema":
                guard let path = member.value.value.stringValue else { throw fail("'schema' must be a path string", member.value) }
                schemaPath = path
            case "versions":
                guard let elements = member.value.value.arrayElements else { throw fail("'versions' must be an array of model file paths, oldest first", member.value) }
                for element in elements {
                    guard let path = element.value.stringValue, !path.isEmpty else { throw fail("each of 'versions' must be the path of a model file", element) }
                    versionPaths.append(path)
                }
            case "eraseStoreOnModelMismatch":
                guard let flag = member.value.value.boolValue else { throw fail("'eraseStoreOnModelMismatch' must be true or false", member.value) }
                erases = flag
            case "stores":
                guard let elements = member.value.value.arrayElements else { throw fail("'stores' must be an array of stores", member.value) }
                for element in elements { stores.append(try Self.store(element, base: base, file: file, fail: fail)) }
            default:
                throw StrataError(
                    .invalidConfiguration,
                    "unknown key '\(member.key)'\(Suggestion.didYouMean(member.key, in: Self.keys)); a configuration has \(Self.keys.map { "'\($0)'" }.joined(separator: ", "))",
                    file: file, location: member.keyLocation)
            }
        }
        guard let schemaPath else { throw fail("the configuration needs 'schema': the path of the model file", root) }
        schemaURL = Self.resolve(schemaPath, against: base)
        versionURLs = versionPaths.map { Self.resolve($0, against: base) }
        erasesStoreOnModelMismatch = erases
        if let override = environment[Self.environmentVariable], !override.isEmpty {
            stores = [try Self.store(fromEnvironment: override)]
        }
        if stores.isEmpty {
            throw fail("the configuration has no stores; add one, like {\"type\": \"sqlite\", \"path\": \"Data/app.sqlite\"}", root)
        }
        self.stores = stores
    }

    /// Parses a `STRATA_STORE` value: `memory`, `TYPE:PATH`, or a store URL such as
    /// `postgres://app@db/shop?schema=orders` (its scheme names the type; `postgresql` is
    /// `postgres`).
    public static func store(fromEnvironment value: String) throws(StrataError) -> StoreDescription {
        if value == StoreType.inMemory.rawValue { return .inMemory() }
        if let url = storeURL(value), let scheme = url.scheme?.lowercased() {
            return StoreDescription(type: StoreType(rawValue: scheme == "postgresql" ? "postgres" : scheme), url: url)
        }
        guard let colon = value.firstIndex(of: ":"), colon != value.startIndex, value.index(after: colon) != value.endIndex else {
            throw StrataError(.invalidConfiguration, "\(environmentVariable)='\(value)' is not 'memory' or TYPE:PATH, like 'sqlite:Data/app.sqlite'")
        }
        let type = StoreType(rawValue: String(value[..<colon]))
        let path = String(value[value.index(after: colon)...])
        return StoreDescription(type: type, url: resolve(path, against: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)))
    }

    private static func store(_ node: JSONNode, base: URL, file: String, fail: (String, JSONNode?) -> StrataError) throws(StrataError) -> StoreDescription {
        guard let members = node.value.objectMembers else { throw fail("a store must be an object with 'type' and 'path'", node) }
        var type: StoreType?
        var path: String?
        var configuration: String?
        var options: [String: String] = [:]
        for member in members {
            let value = member.value
            switch member.key {
            case "type":
                guard let text = value.value.stringValue else { throw fail("'type' must be a string such as \"sqlite\"", value) }
                type = StoreType(rawValue: text)
            case "path":
                guard let text = value.value.stringValue, !text.isEmpty else { throw fail("'path' must be a file path", value) }
                path = text
            case "configuration":
                guard let text = value.value.stringValue else { throw fail("'configuration' must be the name of a configuration of the model", value) }
                configuration = text
            case "options":
                guard let entries = value.value.objectMembers else { throw fail("'options' must be an object of strings", value) }
                for entry in entries {
                    guard let text = entry.value.value.stringValue else { throw fail("option '\(entry.key)' must be a string", entry.value) }
                    options[entry.key] = text
                }
            default:
                throw StrataError(
                    .invalidConfiguration,
                    "unknown store key '\(member.key)'\(Suggestion.didYouMean(member.key, in: ["type", "path", "configuration", "options"]))",
                    file: file, location: member.keyLocation)
            }
        }
        guard let type else { throw fail("a store needs 'type' (memory, sqlite, xml, binary)", node) }
        if type != .inMemory && path == nil { throw fail("a \(type) store needs 'path'", node) }
        return StoreDescription(
            type: type, url: path.map { resolve($0, against: base) }, configurationName: configuration, options: options)
    }

    private static func resolve(_ path: String, against base: URL) -> URL {
        if let url = storeURL(path) { return url }
        return path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path)
    }

    /// A location that is a URL of a store on a server (`scheme://…`, not `file:`), kept as is.
    private static func storeURL(_ location: String) -> URL? {
        guard let separator = location.range(of: "://"), !location[..<separator.lowerBound].isEmpty,
              location[..<separator.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
              let url = URL(string: location), let scheme = url.scheme, scheme.lowercased() != "file" else { return nil }
        return url
    }
}
