public import Foundation
public import Strata

/// Where a PostgreSQL store is: a `postgres://` (or `postgresql://`) URL naming the server, the
/// database and the schema the store lives in.
///
/// ```text
/// postgres://app@db.example.com:5432/shop?schema=orders&sslmode=verify-full
/// postgres://app@/shop?host=/var/run/postgresql&schema=orders      (a unix socket)
/// ```
///
/// Strata reads its own query items and passes every other one to libpq as a connection
/// parameter (`sslmode`, `sslrootcert`, `application_name`, `connect_timeout`, `password`, …;
/// see libpq's "Connection Strings"), so TLS is configured exactly as for `psql`. Passwords
/// are best kept out of the URL, in `~/.pgpass` or `PGPASSWORD`, which libpq reads too.
///
/// Strata's items:
/// - `schema`: the PostgreSQL schema holding the store's tables (default `strata`). Each store
///   is one schema; two stores in one database need two schemas.
/// - `poolSize`: the most connections the store opens for reading (default 4); saves use one
///   connection of their own.
/// - `statementTimeout`: milliseconds a statement may run before the server cancels it (default
///   60000; 0 for none).
///
/// `connect_timeout` defaults to 10 seconds when the URL does not set it; TCP keepalives to
/// a probe after 30 idle seconds, every 10, 3 unanswered ending the connection, when the URL
/// sets none of `keepalives…` (a server that vanished is noticed in about a minute).
public struct PostgresLocation: Sendable, Hashable {
    /// The URL as given.
    public let url: URL
    /// The schema the store's tables live in.
    public let schema: String
    /// The most reader connections.
    public let poolSize: Int
    /// The server-side statement timeout in milliseconds (0: none).
    public let statementTimeout: Int
    /// The libpq connection URI: the URL without Strata's query items.
    let conninfo: String

    /// The URL schemes of PostgreSQL stores.
    public static let schemes = ["postgres", "postgresql"]

    /// Reads a store URL.
    /// - Throws: `invalidConfiguration` naming what is wrong with the URL.
    public init(_ url: URL) throws(StrataError) {
        self.url = url
        guard let scheme = url.scheme?.lowercased(), Self.schemes.contains(scheme),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw StrataError(.invalidConfiguration, "'\(Self.redacted(url))' is not a PostgreSQL URL like postgres://user@host:5432/database?schema=name")
        }
        var schema = "strata"
        var poolSize = 4
        var statementTimeout = 60_000
        var passed: [URLQueryItem] = []
        for item in components.queryItems ?? [] {
            switch item.name {
            case "schema":
                guard let value = item.value, Self.isValidSchemaName(value) else {
                    throw StrataError(.invalidConfiguration, "'schema=\(item.value ?? "")' in '\(Self.redacted(url))' is not a schema name: use 1 to 56 letters, digits and underscores, not starting with a digit or 'pg_'")
                }
                schema = value
            case "poolSize":
                guard let value = item.value.flatMap(Int.init), (1...64).contains(value) else {
                    throw StrataError(.invalidConfiguration, "'poolSize=\(item.value ?? "")' in '\(Self.redacted(url))' must be a number of connections from 1 to 64")
                }
                poolSize = value
            case "statementTimeout":
                guard let value = item.value.flatMap(Int.init), value >= 0 else {
                    throw StrataError(.invalidConfiguration, "'statementTimeout=\(item.value ?? "")' in '\(Self.redacted(url))' must be milliseconds (0 for none)")
                }
                statementTimeout = value
            default:
                passed.append(item)
            }
        }
        if !passed.contains(where: { $0.name == "connect_timeout" }) {
            passed.append(URLQueryItem(name: "connect_timeout", value: "10"))
        }
        // A server that vanished (network partition, machine lost) is noticed in about a
        // minute instead of the system's two hours: until then a save would wait for its reply
        // holding the store's writer connection.
        if !passed.contains(where: { $0.name.hasPrefix("keepalives") }) {
            passed += [URLQueryItem(name: "keepalives_idle", value: "30"), URLQueryItem(name: "keepalives_interval", value: "10"), URLQueryItem(name: "keepalives_count", value: "3")]
        }
        components.scheme = "postgresql"
        components.queryItems = passed
        guard let conninfo = components.string else {
            throw StrataError(.invalidConfiguration, "'\(Self.redacted(url))' is not a PostgreSQL URL like postgres://user@host:5432/database?schema=name")
        }
        self.schema = schema
        self.poolSize = poolSize
        self.statementTimeout = statementTimeout
        self.conninfo = conninfo
    }

    /// The channel saves notify (`LISTEN`): `strata.<schema>`, at most 63 bytes (PostgreSQL
    /// refuses a longer channel name), hence schema names of at most 56.
    var channel: String { "strata.\(schema)" }

    /// The key (`hashtext`) of the store's advisory lock: taken exclusively by whoever creates
    /// or migrates the store, shared by every write.
    var advisoryLockKey: String { "strata:" + schema }

    /// The URL for errors and logs: without its password.
    public var description: String { Self.redacted(url) }

    /// Whether `url` names a PostgreSQL store.
    public static func isPostgres(_ url: URL) -> Bool {
        url.scheme.map { schemes.contains($0.lowercased()) } ?? false
    }

    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else {
            return url.absoluteString
        }
        components.password = "***"
        components.queryItems = components.queryItems?.map { $0.name == "password" ? URLQueryItem(name: $0.name, value: "***") : $0 }
        return components.string ?? url.absoluteString
    }

    /// Letters, digits and underscores, 1 to 56 bytes (PostgreSQL's identifiers have at most
    /// 63, and the store's notification channel, `strata.<schema>`, is one), not a digit first
    /// and not `pg_` (reserved for the system's schemas).
    static func isValidSchemaName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 56,
              !CharacterSet.decimalDigits.contains(first), !name.lowercased().hasPrefix("pg_") else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }
    }
}
