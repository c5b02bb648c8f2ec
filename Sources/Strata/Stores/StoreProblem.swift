/// One thing ``StoreChecker`` found wrong in a store: what kind of problem, where (the entity,
/// the object's primary key and the property, as far as they apply) and a message for the
/// person at the terminal.
public struct StoreProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kinds of problem, one per invariant.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// The file's own format is damaged (SQLite's `integrity_check`, a store's bookkeeping).
        case fileIntegrity
        /// The store's reader refused part of the contents (a value that does not decode to its
        /// type, a malformed element); the message is the reader's.
        case unreadableContents
        /// A row or record names an entity the model does not have, or one that cannot be there.
        case unknownEntity
        /// A reference names an object that does not exist.
        case danglingReference
        /// A reference names an object of an entity the relationship cannot lead to.
        case wrongEntity
        /// A to-many relationship lists the same object twice.
        case duplicateMember
        /// A relationship and its inverse disagree.
        case inverseMismatch
        /// An attribute holds a value of another type, or out of its type's range.
        case wrongType
        /// A required attribute or to-one relationship has no value.
        case missingValue
        /// A to-many relationship has fewer members than its `minCount`.
        case tooFewObjects
        /// A to-many relationship has more members than its `maxCount`.
        case tooManyObjects
        /// Two objects break a uniqueness constraint.
        case notUnique
        /// A primary key above the key counter of its hierarchy: a new object would get it again.
        case keyAboveCounter
        /// A join-table row whose source or destination object does not exist.
        case orphanJoinRow
        /// A SQLite shadow column (`_x_nfc`, `_x_key`) that does not hold the comparison key of
        /// its attribute's value: the row was edited by hand, and comparisons use the stale key.
        case staleComparisonKey
    }

    public var code: Code
    /// The entity of the object concerned (or the table, for rows that name no valid entity).
    public var entity: String?
    public var primaryKey: Int64?
    /// The attribute or relationship concerned (or the uniqueness constraint's keys, comma-separated).
    public var property: String?
    public var message: String

    public init(_ code: Code, entity: String? = nil, primaryKey: Int64? = nil, property: String? = nil, message: String) {
        self.code = code
        self.entity = entity
        self.primaryKey = primaryKey
        self.property = property
        self.message = message
    }

    private enum CodingKeys: String, CodingKey {
        case code, entity, primaryKey, property, message
    }

    /// Every key, null where the problem has no such part, so that readers see one shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(entity, forKey: .entity)
        try container.encode(primaryKey, forKey: .primaryKey)
        try container.encode(property, forKey: .property)
        try container.encode(message, forKey: .message)
    }

    /// Where the problem is, `Entity/p12.property` (each part as far as it is known).
    public var place: String? {
        guard let entity else { return property }
        var text = entity
        if let primaryKey { text += "/p\(primaryKey)" }
        if let property { text += ".\(property)" }
        return text
    }

    /// `Entity/p12.property: message`, or the message alone when the problem has no place.
    public var description: String {
        place.map { "\($0): \(message)" } ?? message
    }

    /// The order problems are reported in: by place, then kind, then message.
    static func reportOrder(_ lhs: StoreProblem, _ rhs: StoreProblem) -> Bool {
        let l = (lhs.entity ?? "", lhs.primaryKey ?? Int64.min, lhs.property ?? "", lhs.code.rawValue, lhs.message)
        let r = (rhs.entity ?? "", rhs.primaryKey ?? Int64.min, rhs.property ?? "", rhs.code.rawValue, rhs.message)
        return l < r
    }
}
