/// A named index over one or more properties of an entity (`"indexes"` in the model file).
public struct IndexDescription: Sendable, Hashable {
    public enum Order: String, Sendable, Hashable, Codable {
        case ascending
        case descending
    }

    public struct Element: Sendable, Hashable {
        /// An attribute or a to-one relationship of the entity (inherited ones included).
        public let property: String
        public let order: Order

        public init(property: String, order: Order = .ascending) {
            self.property = property
            self.order = order
        }
    }

    public let name: String
    public let elements: [Element]

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}

/// A named subset of a model's entities; each store of a coordinator holds one configuration.
public struct ConfigurationDescription: Sendable, Hashable {
    public let name: String
    public let entityNames: [String]

    public init(name: String, entityNames: [String]) {
        self.name = name
        self.entityNames = entityNames
    }
}
