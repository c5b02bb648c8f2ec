public import Foundation
internal import Synchronization

/// The identity of one object: its entity, its primary key and the store that holds it.
///
/// An object inserted in a context has a temporary ID until its first save, when the coordinator
/// gives it a permanent one. IDs are `Sendable`: pass them between contexts and tasks, never the
/// objects themselves. The URI form (`strata://<store UUID>/<Entity>/p<key>`) round-trips through
/// ``PersistentStoreCoordinator/objectID(forURIRepresentation:)``.
public struct ObjectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    enum Key: Sendable, Hashable {
        case permanent(Int64)
        case temporary(UUID)
    }

    /// The concrete entity of the object (never an abstract ancestor).
    public let entityName: String
    /// The UUID of the store that holds the object; nil while the ID is temporary.
    public let storeIdentifier: String?
    let key: Key

    /// A permanent ID. `package` so that store modules can rebuild the IDs of the records they
    /// read from their files.
    package init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = .permanent(primaryKey)
    }

    init(temporaryFor entityName: String) {
        self.entityName = entityName
        self.storeIdentifier = nil
        self.key = .temporary(TemporaryKeys.next())
    }

    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The primary key, unique within the entity's inheritance hierarchy in its store; nil while
    /// the ID is temporary.
    public var primaryKey: Int64? {
        if case .permanent(let value) = key { return value }
        return nil
    }

    /// `strata://<store UUID>/<Entity>/p<key>`; a temporary ID is `strata://temporary/<Entity>/t<UUID>`.
    public var uriRepresentation: URL {
        switch key {
        case .permanent(let primaryKey):
            URL(string: "strata://\(storeIdentifier ?? "")/\(entityName)/p\(primaryKey)")!
        case .temporary(let uuid):
            URL(string: "strata://temporary/\(entityName)/t\(uuid.uuidString)")!
        }
    }

    public var description: String {
        switch key {
        case .permanent(let primaryKey): "\(entityName)/p\(primaryKey)"
        case .temporary(let uuid): "\(entityName)/t\(uuid.uuidString.suffix(8))"
        }
    }

    /// Hashes the key alone: IDs are hashed by the hundred thousand in saves and caches, and
    /// the entity and store names they share would cost more to hash than the key. Equality
    /// still compares everything.
    public func hash(into hasher: inout Hasher) {
        switch key {
        case .permanent(let primaryKey): hasher.combine(primaryKey)
        case .temporary(let uuid):
            // The counter half of the UUID (see `TemporaryKeys`): unique within the process.
            let bytes = uuid.uuid
            hasher.combine(UInt64(bytes.8) << 56 | UInt64(bytes.9) << 48 | UInt64(bytes.10) << 40 | UInt64(bytes.11) << 32
                | UInt64(bytes.12) << 24 | UInt64(bytes.13) << 16 | UInt64(bytes.14) << 8 | UInt64(bytes.15))
        }
    }

    /// Orders by entity, then primary key (temporary IDs after permanent ones, by UUID).
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        switch (lhs.key, rhs.key) {
        case (.permanent(let a), .permanent(let b)): return a < b
        case (.permanent, .temporary): return true
        case (.temporary, .permanent): return false
        case (.temporary(let a), .temporary(let b)): return a < b
        }
    }

    /// Parses the URI form; nil when it is not one. Store identity is checked by the coordinator.
    init?(uri: URL) {
        guard uri.scheme == "strata", let host = uri.host else { return nil }
        let parts = uri.path.split(separator: "/").map(String.init)
        guard parts.count == 2, ReservedNames.isValidEntityName(parts[0]), let tag = parts[1].first else { return nil }
        let rest = String(parts[1].dropFirst())
        if host == "temporary" {
            guard tag == "t", let uuid = UUID(uuidString: rest) else { return nil }
            self.entityName = parts[0]
            self.storeIdentifier = nil
            self.key = .temporary(uuid)
        } else {
            guard tag == "p", let primaryKey = Int64(rest) else { return nil }
            self.entityName = parts[0]
            self.storeIdentifier = host
            self.key = .permanent(primaryKey)
        }
    }
}

/// Temporary keys: UUIDs unique in the process without asking the system for randomness each
/// time (a save of 100,000 new objects made 100,000 of them): 8 random bytes drawn once, then
/// a counter, so temporary IDs also sort in the order they were made.
enum TemporaryKeys {
    private static let prefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UUID {
        let count = counter.add(1, ordering: .relaxed).newValue
        let high = prefix.bigEndian, low = count.bigEndian
        return withUnsafeBytes(of: (high, low)) { bytes in
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }
}
