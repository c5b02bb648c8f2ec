/// An entity of a model: its own properties, its place in an inheritance hierarchy, its
/// uniqueness constraints and indexes.
///
/// Inside a loaded ``Schema``, `attributes` and `relationships` include the inherited ones
/// (ancestors' first, in declaration order), and `subentityNames`/`ancestorNames` describe the
/// hierarchy. An entity built in code knows only its declared properties until a `Schema` is
/// made from it.
public struct EntityDescription: Sendable, Hashable {
    public let name: String
    /// The name of the parent entity, if this is a subentity.
    public let parentName: String?
    /// An abstract entity has no instances of its own, only of its subentities.
    public let isAbstract: Bool
    /// The attributes declared by this entity itself.
    public let declaredAttributes: [AttributeDescription]
    /// The relationships declared by this entity itself.
    public let declaredRelationships: [RelationshipDescription]
    /// Each constraint lists attributes or to-one relationships whose values together are unique
    /// among the objects of this entity and its subentities.
    public let uniquenessConstraints: [[String]]
    public let indexes: [IndexDescription]
    /// Changes the version hash without changing anything else, to force a migration.
    public let versionHashModifier: String?
    /// The name this entity had in an earlier model version, for migrations.
    public let renamingIdentifier: String?

    /// Every attribute, inherited ones first.
    public internal(set) var attributes: [AttributeDescription]
    /// Every relationship, inherited ones first.
    public internal(set) var relationships: [RelationshipDescription]
    /// The direct subentities, in model order.
    public internal(set) var subentityNames: [String] = []
    /// The ancestors from the parent up to the root of the hierarchy.
    public internal(set) var ancestorNames: [String] = []
    /// The stable hash of what in this entity affects how its objects are stored.
    public internal(set) var versionHash: String = ""

    /// Every attribute's name at its position in ``AttributeValues``: objects and records of
    /// this entity share it.
    public private(set) var attributeLayout: AttributeValues.Layout
    /// The positions of transient attributes in ``attributeLayout``.
    public private(set) var transientAttributePositions: [Int]
    /// Each attribute's type, by position in ``attributeLayout``.
    public private(set) var attributeTypes: [AttributeType]
    /// The attributes' default values, laid out by ``attributeLayout``: what a new object starts with.
    public private(set) var attributeDefaults: AttributeValues

    /// The name of every attribute and relationship.
    public private(set) var propertyNames: Set<String>

    private var propertyIndex: [String: PropertyDescription]

    public init(
        name: String,
        parentName: String? = nil,
        isAbstract: Bool = false,
        attributes: [AttributeDescription] = [],
        relationships: [RelationshipDescription] = [],
        uniquenessConstraints: [[String]] = [],
        indexes: [IndexDescription] = [],
        versionHashModifier: String? = nil,
        renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.parentName = parentName
        self.isAbstract = isAbstract
        self.declaredAttributes = attributes
        self.declaredRelationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
        self.indexes = indexes
        self.versionHashModifier = versionHashModifier
        self.renamingIdentifier = renamingIdentifier
        self.attributes = attributes
        self.relationships = relationships
        self.propertyIndex = Self.index(attributes, relationships)
        self.propertyNames = Set(propertyIndex.keys)
        (self.attributeLayout, self.transientAttributePositions, self.attributeTypes, self.attributeDefaults) = Self.layout(attributes)
    }

    /// The name of the root of this entity's hierarchy (itself when it has no parent).
    public var rootName: String { ancestorNames.last ?? name }

    public func attribute(named name: String) -> AttributeDescription? {
        if case .attribute(let attribute) = propertyIndex[name] { return attribute }
        return nil
    }

    public func relationship(named name: String) -> RelationshipDescription? {
        if case .relationship(let relationship) = propertyIndex[name] { return relationship }
        return nil
    }

    /// An attribute or relationship of this entity, inherited ones included.
    public func property(named name: String) -> PropertyDescription? {
        propertyIndex[name]
    }

    /// True when the property is declared by this entity and not inherited.
    public func declares(_ propertyName: String) -> Bool {
        declaredAttributes.contains { $0.name == propertyName }
            || declaredRelationships.contains { $0.name == propertyName }
    }

    mutating func resolve(
        inheritedAttributes: [AttributeDescription],
        inheritedRelationships: [RelationshipDescription],
        ancestors: [String],
        subentities: [String]
    ) {
        attributes = inheritedAttributes + declaredAttributes
        relationships = inheritedRelationships + declaredRelationships
        ancestorNames = ancestors
        subentityNames = subentities
        propertyIndex = Self.index(attributes, relationships)
        propertyNames = Set(propertyIndex.keys)
        (attributeLayout, transientAttributePositions, attributeTypes, attributeDefaults) = Self.layout(attributes)
    }

    private static func layout(
        _ attributes: [AttributeDescription]
    ) -> (AttributeValues.Layout, transient: [Int], types: [AttributeType], defaults: AttributeValues) {
        var seen = Set<String>()
        // A model that declares a name twice is refused by validation; lay out the first.
        let laidOut = attributes.filter { seen.insert($0.name).inserted }
        let layout = AttributeValues.Layout(names: laidOut.map(\.name))
        let transient = laidOut.indices.filter { laidOut[$0].isTransient }
        return (layout, transient, laidOut.map(\.type), AttributeValues(layout: layout, values: laidOut.map(\.defaultValue)))
    }

    private static func index(
        _ attributes: [AttributeDescription], _ relationships: [RelationshipDescription]
    ) -> [String: PropertyDescription] {
        var index: [String: PropertyDescription] = [:]
        for attribute in attributes { index[attribute.name] = .attribute(attribute) }
        for relationship in relationships { index[relationship.name] = .relationship(relationship) }
        return index
    }
}
