/// An entity of a model: its own properties, its place in an inheritance hierarchy, its
/// uniqueness constraints and indexes.
///
/// Inside a loaded ``Schema``, `attributes` and `relationships` include the inherited ones
/// (ancestors' first, in declaration order), and `subentityNames`/`ancestorNames` describe the
/// hierarchy. An entity built in code knows only its declared properties until a `Schema` is
/// made from it.
public struct EntityDescription: Sendable, Hashable {
    /// Everything the entity holds, shared by its copies: objects and records carry an entity
    /// each, and a copy costs one retain instead of one per property.
    private final class Storage: Sendable {
        let name: String
        let parentName: String?
        let isAbstract: Bool
        let declaredAttributes: [AttributeDescription]
        let declaredRelationships: [RelationshipDescription]
        let uniquenessConstraints: [[String]]
        let indexes: [IndexDescription]
        let versionHashModifier: String?
        let renamingIdentifier: String?
        let attributes: [AttributeDescription]
        let relationships: [RelationshipDescription]
        let subentityNames: [String]
        let ancestorNames: [String]
        let versionHash: String
        let attributeLayout: AttributeValues.Layout
        let transientAttributePositions: [Int]
        let attributeDefaults: AttributeValues
        let propertyNames: Set<String>
        let propertyIndex: [String: PropertyDescription]
        let relationshipPositions: [String: Int]
        let inversePositions: [Int?]
        let validatedAttributes: [ValidatedAttribute]

        init(
            name: String, parentName: String?, isAbstract: Bool, declaredAttributes: [AttributeDescription],
            declaredRelationships: [RelationshipDescription], uniquenessConstraints: [[String]], indexes: [IndexDescription],
            versionHashModifier: String?, renamingIdentifier: String?, attributes: [AttributeDescription],
            relationships: [RelationshipDescription], subentityNames: [String], ancestorNames: [String],
            versionHash: String, inversePositions: [Int?]? = nil
        ) {
            self.name = name
            self.parentName = parentName
            self.isAbstract = isAbstract
            self.declaredAttributes = declaredAttributes
            self.declaredRelationships = declaredRelationships
            self.uniquenessConstraints = uniquenessConstraints
            self.indexes = indexes
            self.versionHashModifier = versionHashModifier
            self.renamingIdentifier = renamingIdentifier
            self.attributes = attributes
            self.relationships = relationships
            self.subentityNames = subentityNames
            self.ancestorNames = ancestorNames
            self.versionHash = versionHash
            self.propertyIndex = Self.index(attributes, relationships)
            self.propertyNames = Set(propertyIndex.keys)
            (self.attributeLayout, self.transientAttributePositions, self.attributeDefaults) = Self.layout(attributes)
            var positions: [String: Int] = [:]
            for (position, relationship) in relationships.enumerated() where positions[relationship.name] == nil {
                positions[relationship.name] = position
            }
            self.relationshipPositions = positions
            self.inversePositions = inversePositions ?? Array(repeating: nil, count: relationships.count)
            var validated: [ValidatedAttribute] = []
            let layout = attributeLayout
            for (index, attribute) in attributes.enumerated() where !attribute.isTransient {
                guard let position = layout.position(of: attribute.name), !validated.contains(where: { $0.position == position }) else { continue }
                let hasRules = (attribute.type == .int16 || attribute.type == .int32) || attribute.minimum != nil || attribute.maximum != nil
                    || attribute.minLength != nil || attribute.maxLength != nil || attribute.regex != nil
                let otherRules = attribute.minimum != nil || attribute.maximum != nil || attribute.minLength != nil || attribute.maxLength != nil || attribute.regex != nil
                validated.append(ValidatedAttribute(
                    position: position, index: index, isOptional: attribute.isOptional, hasRules: hasRules,
                    integerRange: otherRules ? nil : attribute.type.integerRange))
            }
            self.validatedAttributes = validated
        }

        /// A copy with some parts replaced.
        func with(
            attributes: [AttributeDescription]? = nil, relationships: [RelationshipDescription]? = nil,
            subentityNames: [String]? = nil, ancestorNames: [String]? = nil, versionHash: String? = nil,
            inversePositions: [Int?]? = nil
        ) -> Storage {
            let relationships = relationships ?? self.relationships
            return Storage(
                name: name, parentName: parentName, isAbstract: isAbstract, declaredAttributes: declaredAttributes,
                declaredRelationships: declaredRelationships, uniquenessConstraints: uniquenessConstraints, indexes: indexes,
                versionHashModifier: versionHashModifier, renamingIdentifier: renamingIdentifier,
                attributes: attributes ?? self.attributes, relationships: relationships,
                subentityNames: subentityNames ?? self.subentityNames, ancestorNames: ancestorNames ?? self.ancestorNames,
                versionHash: versionHash ?? self.versionHash,
                inversePositions: inversePositions ?? (relationships.count == self.relationships.count ? self.inversePositions : nil))
        }

        private static func layout(
            _ attributes: [AttributeDescription]
        ) -> (AttributeValues.Layout, transient: [Int], defaults: AttributeValues) {
            var seen = Set<String>()
            // A model that declares a name twice is refused by validation; lay out the first.
            let laidOut = attributes.filter { seen.insert($0.name).inserted }
            let layout = AttributeValues.Layout(names: laidOut.map(\.name), types: laidOut.map(\.type))
            let transient = laidOut.indices.filter { laidOut[$0].isTransient }
            return (layout, transient, AttributeValues(layout: layout, values: laidOut.map(\.defaultValue)))
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

    private var storage: Storage

    public var name: String { storage.name }
    /// The name of the parent entity, if this is a subentity.
    public var parentName: String? { storage.parentName }
    /// An abstract entity has no instances of its own, only of its subentities.
    public var isAbstract: Bool { storage.isAbstract }
    /// The attributes declared by this entity itself.
    public var declaredAttributes: [AttributeDescription] { storage.declaredAttributes }
    /// The relationships declared by this entity itself.
    public var declaredRelationships: [RelationshipDescription] { storage.declaredRelationships }
    /// Each constraint lists attributes or to-one relationships whose values together are unique
    /// among the objects of this entity and its subentities.
    public var uniquenessConstraints: [[String]] { storage.uniquenessConstraints }
    public var indexes: [IndexDescription] { storage.indexes }
    /// Changes the version hash without changing anything else, to force a migration.
    public var versionHashModifier: String? { storage.versionHashModifier }
    /// The name this entity had in an earlier model version, for migrations.
    public var renamingIdentifier: String? { storage.renamingIdentifier }

    /// Every attribute, inherited ones first.
    public internal(set) var attributes: [AttributeDescription] {
        get { storage.attributes }
        set { storage = storage.with(attributes: newValue) }
    }
    /// Every relationship, inherited ones first.
    public internal(set) var relationships: [RelationshipDescription] {
        get { storage.relationships }
        set { storage = storage.with(relationships: newValue) }
    }
    /// The direct subentities, in model order.
    public internal(set) var subentityNames: [String] {
        get { storage.subentityNames }
        set { storage = storage.with(subentityNames: newValue) }
    }
    /// The ancestors from the parent up to the root of the hierarchy.
    public internal(set) var ancestorNames: [String] {
        get { storage.ancestorNames }
        set { storage = storage.with(ancestorNames: newValue) }
    }
    /// The stable hash of what in this entity affects how its objects are stored.
    public internal(set) var versionHash: String {
        get { storage.versionHash }
        set { storage = storage.with(versionHash: newValue) }
    }

    /// Every attribute's name at its position in ``AttributeValues``: objects and records of
    /// this entity share it.
    public var attributeLayout: AttributeValues.Layout { storage.attributeLayout }
    /// The positions of transient attributes in ``attributeLayout``.
    public var transientAttributePositions: [Int] { storage.transientAttributePositions }
    /// Each attribute's type, by position in ``attributeLayout``.
    public var attributeTypes: [AttributeType] { storage.attributeLayout.types ?? [] }
    /// The attributes' default values, laid out by ``attributeLayout``: what a new object starts with.
    public var attributeDefaults: AttributeValues { storage.attributeDefaults }

    /// The name of every attribute and relationship.
    public var propertyNames: Set<String> { storage.propertyNames }

    /// The position of a relationship in ``relationships``. Inherited relationships come first,
    /// so a relationship has the same position in the entity that declares it and in every
    /// subentity.
    package func relationshipPosition(of name: String) -> Int? { storage.relationshipPositions[name] }

    /// For the relationship at a position, the position of its inverse among the destination
    /// entity's relationships (the same in the destination's subentities); nil when it has none.
    /// Set when a ``Schema`` is built.
    package func inversePosition(ofRelationshipAt position: Int) -> Int? { storage.inversePositions[position] }

    /// A stored attribute as a save checks it: its position in ``attributeLayout``, and whether
    /// any rule beyond being present applies (a range, a length, a pattern).
    package struct ValidatedAttribute: Sendable {
        package let position: Int
        /// Its place in ``attributes`` (the description is read only when a rule applies).
        package let index: Int
        package let isOptional: Bool
        package let hasRules: Bool
        /// When the type's integer range is the only rule (an `int16` or `int32` without
        /// others): an integer within it passes without reading the description.
        package let integerRange: ClosedRange<Int64>?
    }

    /// Whether `other` is a copy of this entity (one comparison, without comparing contents).
    package func hasSameStorage(as other: EntityDescription) -> Bool { storage === other.storage }

    /// The stored attributes, each once, as a save validates them.
    package var validatedAttributes: [ValidatedAttribute] { storage.validatedAttributes }

    /// Resolves the inverse positions of every relationship against the model's entities.
    mutating func resolveInverses(_ entity: (String) -> EntityDescription?) {
        let positions = relationships.map { relationship in
            relationship.inverse.flatMap { entity(relationship.destination)?.relationshipPosition(of: $0) }
        }
        storage = storage.with(inversePositions: positions)
    }

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
        storage = Storage(
            name: name, parentName: parentName, isAbstract: isAbstract, declaredAttributes: attributes,
            declaredRelationships: relationships, uniquenessConstraints: uniquenessConstraints, indexes: indexes,
            versionHashModifier: versionHashModifier, renamingIdentifier: renamingIdentifier,
            attributes: attributes, relationships: relationships, subentityNames: [], ancestorNames: [], versionHash: "")
    }

    /// The name of the root of this entity's hierarchy (itself when it has no parent).
    public var rootName: String { ancestorNames.last ?? name }

    /// True when this entity is `entityName` or one of its descendants: an object of it can be
    /// a destination of a relationship to `entityName`.
    package func isKind(of entityName: String) -> Bool {
        name == entityName || ancestorNames.contains(entityName)
    }

    public func attribute(named name: String) -> AttributeDescription? {
        if case .attribute(let attribute) = storage.propertyIndex[name] { return attribute }
        return nil
    }

    public func relationship(named name: String) -> RelationshipDescription? {
        if case .relationship(let relationship) = storage.propertyIndex[name] { return relationship }
        return nil
    }

    /// An attribute or relationship of this entity, inherited ones included.
    public func property(named name: String) -> PropertyDescription? {
        storage.propertyIndex[name]
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
        storage = storage.with(
            attributes: inheritedAttributes + declaredAttributes,
            relationships: inheritedRelationships + declaredRelationships,
            subentityNames: subentities, ancestorNames: ancestors)
    }

    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool {
        if lhs.storage === rhs.storage { return true }
        return lhs.name == rhs.name && lhs.parentName == rhs.parentName && lhs.isAbstract == rhs.isAbstract
            && lhs.declaredAttributes == rhs.declaredAttributes && lhs.declaredRelationships == rhs.declaredRelationships
            && lhs.uniquenessConstraints == rhs.uniquenessConstraints && lhs.indexes == rhs.indexes
            && lhs.versionHashModifier == rhs.versionHashModifier && lhs.renamingIdentifier == rhs.renamingIdentifier
            && lhs.attributes == rhs.attributes && lhs.relationships == rhs.relationships
            && lhs.subentityNames == rhs.subentityNames && lhs.ancestorNames == rhs.ancestorNames
            && lhs.versionHash == rhs.versionHash
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(declaredAttributes)
        hasher.combine(declaredRelationships)
        hasher.combine(versionHash)
    }
}
