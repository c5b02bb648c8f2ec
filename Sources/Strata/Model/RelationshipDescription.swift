/// A relationship from one entity to another: to-one or to-many, with its inverse and delete rule.
public struct RelationshipDescription: Sendable, Hashable {
    public let name: String
    /// The name of the destination entity.
    public let destination: String
    /// The name of the relationship on the destination that points back, if any.
    public let inverse: String?
    public let isToMany: Bool
    /// An ordered to-many keeps its members in the order they were added.
    public let isOrdered: Bool
    /// For a to-one: false (the default) requires a destination at save. Always true for a
    /// to-many, which `minCount`/`maxCount` bound instead.
    public let isOptional: Bool
    /// The fewest members a to-many may have; 0 means no bound.
    public let minCount: Int
    /// The most members a to-many may have; 0 means no bound.
    public let maxCount: Int
    public let deleteRule: DeleteRule
    /// The name this relationship had in an earlier model version, for migrations.
    public let renamingIdentifier: String?
    /// Changes the version hash without changing anything else, to force a migration.
    public let versionHashModifier: String?

    public init(
        name: String,
        destination: String,
        inverse: String? = nil,
        isToMany: Bool = false,
        isOrdered: Bool = false,
        isOptional: Bool = false,
        minCount: Int = 0,
        maxCount: Int = 0,
        deleteRule: DeleteRule = .nullify,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isToMany ? true : isOptional
        self.minCount = minCount
        self.maxCount = maxCount
        self.deleteRule = deleteRule
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
    }
}

/// An attribute or a relationship, looked up by name.
public enum PropertyDescription: Sendable, Hashable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)

    public var name: String {
        switch self {
        case .attribute(let attribute): attribute.name
        case .relationship(let relationship): relationship.name
        }
    }
}
