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

    // The names are interned (``InternedName``), so that an ID holds no reference count: IDs
    // are copied, hashed and compared by the hundred thousand in saves, fetches and the
    // registry, and one of plain words costs a copy of three words, one identity comparison
    // per name, and no retain or release.
    private unowned(unsafe) let entity: InternedName
    /// Nil while the ID is temporary.
    private unowned(unsafe) let store: InternedName?
    /// A permanent key's bits (`high` is 0), or a temporary key's UUID, high and low halves.
    private let high: UInt64
    private let low: UInt64

    /// The concrete entity of the object (never an abstract ancestor).
    public var entityName: String { entity.string }
    /// The UUID of the store that holds the object; nil while the ID is temporary.
    public var storeIdentifier: String? { store?.string }

    var key: Key {
        store == nil ? .temporary(Self.uuid(high, low)) : .permanent(Int64(bitPattern: low))
    }

    /// A permanent ID. `package` so that store modules can rebuild the IDs of the records they
    /// read from their files.
    package init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.entity = InternedName.entity(entityName)
        self.store = InternedName.store(storeIdentifier)
        self.high = 0
        self.low = UInt64(bitPattern: primaryKey)
    }

    /// A permanent ID of the entity and store of `scope` with another key, without looking the
    /// names up again (a store or a batch making many IDs of one entity).
    package init(scope: ObjectID, primaryKey: Int64) {
        precondition(scope.store != nil, "\(scope) is temporary; it has no store to give another key in")
        self.entity = scope.entity
        self.store = scope.store
        self.high = 0
        self.low = UInt64(bitPattern: primaryKey)
    }

    init(temporaryFor entityName: String) {
        self.entity = InternedName.entity(entityName)
        self.store = nil
        (self.high, self.low) = TemporaryKeys.next()
    }

    private init(entity: InternedName, temporary uuid: UUID) {
        self.entity = entity
        self.store = nil
        let bytes = uuid.uuid
        self.high = UInt64(bytes.0) << 56 | UInt64(bytes.1) << 48 | UInt64(bytes.2) << 40 | UInt64(bytes.3) << 32
            | UInt64(bytes.4) << 24 | UInt64(bytes.5) << 16 | UInt64(bytes.6) << 8 | UInt64(bytes.7)
        self.low = UInt64(bytes.8) << 56 | UInt64(bytes.9) << 48 | UInt64(bytes.10) << 40 | UInt64(bytes.11) << 32
            | UInt64(bytes.12) << 24 | UInt64(bytes.13) << 16 | UInt64(bytes.14) << 8 | UInt64(bytes.15)
    }

    private static func uuid(_ high: UInt64, _ low: UInt64) -> UUID {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { bytes in
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }

    public var isTemporary: Bool { store == nil }

    /// The primary key, unique within the entity's inheritance hierarchy in its store; nil while
    /// the ID is temporary.
    public var primaryKey: Int64? { store == nil ? nil : Int64(bitPattern: low) }

    /// Names are interned: equal names are one object.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.low == rhs.low && lhs.high == rhs.high && lhs.entity === rhs.entity && lhs.store === rhs.store
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

    /// Hashes the key alone: the entity and store names IDs share would cost more to hash than
    /// the key. For a temporary ID, its counter half (see `TemporaryKeys`), unique within the
    /// process. Equality still compares everything.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(low)
    }

    /// Whether `other` names the same entity (one comparison of interned names).
    func hasEntity(of other: ObjectID) -> Bool { entity === other.entity }

    /// Whether `other` names the same entity and store (two comparisons of interned names).
    func hasScope(of other: ObjectID) -> Bool { entity === other.entity && store === other.store }

    /// The bits a context's registry hashes (``ObjectRegistry``): the key's, and the entity's.
    var registryHash: UInt64 {
        low ^ high ^ UInt64(UInt(bitPattern: Unmanaged.passUnretained(entity).toOpaque()))
    }

    /// Orders by entity, then primary key (temporary IDs after permanent ones, by UUID).
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        if lhs.entity !== rhs.entity { return lhs.entityName < rhs.entityName }
        switch (lhs.store == nil, rhs.store == nil) {
        case (false, false): return Int64(bitPattern: lhs.low) < Int64(bitPattern: rhs.low)
        case (false, true): return true
        case (true, false): return false
        case (true, true): return uuid(lhs.high, lhs.low) < uuid(rhs.high, rhs.low)
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
            self.init(entity: InternedName.entity(parts[0]), temporary: uuid)
        } else {
            guard tag == "p", let primaryKey = Int64(rest) else { return nil }
            self.init(entityName: parts[0], storeIdentifier: host, primaryKey: primaryKey)
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

    /// The high and low halves of the next UUID.
    static func next() -> (UInt64, UInt64) {
        (prefix, counter.add(1, ordering: .relaxed).newValue)
    }
}

/// A name an ``ObjectID`` holds (an entity's name, a store's identifier), interned: one object
/// per distinct name for the life of the process, so that IDs refer to it without reference
/// counting and compare names by identity. There are as many as the entity names of the models
/// used and the stores opened (a few dozen bytes each).
final class InternedName: Sendable {
    let string: String

    private init(_ string: String) {
        self.string = string
    }

    private static let table = Mutex<[String: InternedName]>([:])
    /// The last names found, by the length of the name (entities), and the last store: most IDs
    /// made in a row name the same few, found here without a lock.
    private static let recentEntity0 = Atomic<UInt>(0)
    private static let recentEntity1 = Atomic<UInt>(0)
    private static let recentEntity2 = Atomic<UInt>(0)
    private static let recentEntity3 = Atomic<UInt>(0)
    private static let recentStore = Atomic<UInt>(0)

    static func entity(_ name: String) -> InternedName {
        switch name.utf8.count & 3 {
        case 0: intern(name, recentEntity0)
        case 1: intern(name, recentEntity1)
        case 2: intern(name, recentEntity2)
        default: intern(name, recentEntity3)
        }
    }

    static func store(_ identifier: String) -> InternedName {
        intern(identifier, recentStore)
    }

    private static func intern(_ string: String, _ recent: borrowing Atomic<UInt>) -> InternedName {
        let bits = recent.load(ordering: .acquiring)
        if let pointer = UnsafeRawPointer(bitPattern: bits) {
            // Interned names are never freed: the pointer stays valid.
            let last = Unmanaged<InternedName>.fromOpaque(pointer)
            if last._withUnsafeGuaranteedRef({ $0.string == string }) { return last.takeUnretainedValue() }
        }
        let name = table.withLock { table in
            if let known = table[string] { return known }
            let name = InternedName(string)
            table[string] = name
            return name
        }
        recent.store(UInt(bitPattern: Unmanaged.passUnretained(name).toOpaque()), ordering: .releasing)
        return name
    }
}
