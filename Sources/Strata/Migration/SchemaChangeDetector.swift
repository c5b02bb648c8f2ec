/// Finds the ``SchemaChange``s between two matched models (``SchemaDiff`` does the matching).
///
/// Order: entity by entity in the destination model's order, removed entities after them, and
/// a change of the model's own `versionHashModifier` last. Within an entity: the entity's own
/// changes (renamed, parent, abstract, modifier), its properties' changes in the order of its
/// properties (attributes, then relationships, inherited ones first), its removed properties,
/// then its indexes and uniqueness constraints. Only arrays are iterated, so the order is the
/// same every run.
///
/// **Inherited properties.** A property declared by `GeographicRegion` and inherited by
/// `Country` and `Continent` is compared for each of the three entities (each pair of matched
/// entities has its own property matches), but a change is reported on an entity only when its
/// parent does not report the same change of the same property: normally once, on the entity
/// that declares the property — where the model file has it, and where a reader would fix it.
/// Reporting it for every subentity too would repeat one edit of the model file once per entity
/// of the hierarchy and bury the changes that are different. Nothing is lost: a change is still
/// reported on a subentity whenever it differs there (the property moved down from a removed
/// parent; a new parent declares an attribute that the entity had already, with another type),
/// and a data condition on the declaring entity (`every GeographicRegion.code has a value`)
/// covers the objects of its subentities, which a fetch of that entity includes.
struct SchemaChangeDetector {
    let source: Schema
    let destination: Schema
    let entityMatches: [String: String]
    let propertyMatches: [String: [String: String]]
    /// Source entity name → destination entity name.
    let destinationNames: [String: String]

    init(source: Schema, destination: Schema, entityMatches: [String: String], propertyMatches: [String: [String: String]]) {
        self.source = source
        self.destination = destination
        self.entityMatches = entityMatches
        self.propertyMatches = propertyMatches
        destinationNames = Dictionary(entityMatches.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    func changes() -> [SchemaChange] {
        var result: [SchemaChange] = []
        var propertyChangesByEntity: [String: [SchemaChange]] = [:]
        func cachedPropertyChanges(of entity: EntityDescription) -> [SchemaChange] {
            if let known = propertyChangesByEntity[entity.name] { return known }
            let changes = entityMatches[entity.name].flatMap(source.entity(named:)).map { propertyChanges($0, entity) } ?? []
            propertyChangesByEntity[entity.name] = changes
            return changes
        }
        for entity in destination.entities {
            guard let old = entityMatches[entity.name].flatMap(source.entity(named:)) else {
                result.append(SchemaChange(kind: .entityAdded, entity: entity.name, detail: "entity added"))
                continue
            }
            result += entityChanges(old, entity)
            // Not again when the parent reports the same change of the same property.
            let parentChanges = Set((entity.parentName.flatMap(destination.entity(named:)).map(cachedPropertyChanges(of:)) ?? []).map(InheritedChange.init))
            result += cachedPropertyChanges(of: entity).filter { !parentChanges.contains(InheritedChange($0)) }
            result += indexChanges(old, entity)
            result += uniquenessChanges(old, entity)
        }
        for entity in source.entities where destinationNames[entity.name] == nil {
            result.append(SchemaChange(kind: .entityRemoved, entity: entity.name, detail: "entity removed"))
        }
        if source.versionHashModifier != destination.versionHashModifier {
            result.append(SchemaChange(
                kind: .versionHashModifierChanged, entity: "",
                detail: "versionHashModifier \(Self.quoted(source.versionHashModifier)) → \(Self.quoted(destination.versionHashModifier))"))
        }
        return result
    }

    /// What makes a property's change on an entity the same as on its parent: all but the
    /// entity, and the text of the condition or reason (which names the entity).
    private struct InheritedChange: Hashable {
        var kind: SchemaChange.Kind
        var property: String?
        var detail: String
        var inferability: String

        init(_ change: SchemaChange) {
            kind = change.kind
            property = change.property
            detail = change.detail
            inferability = change.inferability.name
        }
    }

    // MARK: - The entity itself

    private func entityChanges(_ old: EntityDescription, _ new: EntityDescription) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        func add(_ kind: SchemaChange.Kind, _ detail: String, _ inferability: SchemaChange.Inferability = .inferable) {
            changes.append(SchemaChange(kind: kind, entity: new.name, detail: detail, inferability: inferability))
        }
        if old.name != new.name {
            add(.entityRenamed, "entity renamed from '\(old.name)'")
        }
        if let parentChange = parentChange(old, new) {
            add(.parentChanged, parentChange.detail, parentChange.inferability)
        }
        if old.isAbstract != new.isAbstract {
            if new.isAbstract {
                add(.abstractChanged, "became abstract", .dependsOnData("every \(new.name) object is an object of a subentity"))
            } else {
                add(.abstractChanged, "no longer abstract")
            }
        }
        if old.versionHashModifier != new.versionHashModifier {
            add(.versionHashModifierChanged, "versionHashModifier \(Self.quoted(old.versionHashModifier)) → \(Self.quoted(new.versionHashModifier))")
        }
        return changes
    }

    /// A parent added, removed or replaced (a parent that was only renamed is the same parent).
    ///
    /// Inferable: objects keep their entity and the values of the properties they keep; the
    /// properties that come or go with the parent are reported as added or removed. When the
    /// entity joins a hierarchy whose entities have uniqueness constraints, its objects must not
    /// break them.
    private func parentChange(_ old: EntityDescription, _ new: EntityDescription) -> (detail: String, inferability: SchemaChange.Inferability)? {
        let detail: String
        switch (old.parentName, new.parentName) {
        case (nil, nil):
            return nil
        case (let from?, let to?) where destinationNames[from] == to:
            return nil
        case (nil, let added?):
            detail = "parent '\(added)' added"
        case (let removed?, nil):
            detail = "parent '\(removed)' removed"
        case (let from?, let to?):
            detail = "parent '\(from)' → '\(to)'"
        }
        // The new ancestors' constraints now cover this entity's objects.
        let oldAncestors = Set(old.ancestorNames)
        var conditions: [String] = []
        for ancestorName in new.ancestorNames {
            if let matched = entityMatches[ancestorName], oldAncestors.contains(matched) { continue }
            guard let ancestor = destination.entity(named: ancestorName) else { continue }
            for constraint in ancestor.uniquenessConstraints {
                conditions.append("no two \(ancestorName) objects share \(Self.tuple(constraint))")
            }
        }
        return (detail, conditions.isEmpty ? .inferable : .dependsOnData(conditions.joined(separator: "; ")))
    }

    // MARK: - Indexes and uniqueness constraints

    /// Index changes, comparing indexes by their elements through property renames: an index
    /// with the same elements under another name is renamed; one with the same name and other
    /// elements changed. All inferable (an index holds no data of its own).
    private func indexChanges(_ old: EntityDescription, _ new: EntityDescription) -> [SchemaChange] {
        let oldIndexes = old.indexes.map { index in
            IndexDescription(name: index.name, elements: index.elements.map {
                IndexDescription.Element(property: destinationName(ofProperty: $0.property, in: new.name), order: $0.order)
            })
        }
        var unpaired = Array(oldIndexes.indices)
        var pairs: [Int?] = []
        for index in new.indexes {
            let position = unpaired.firstIndex { oldIndexes[$0].elements == index.elements }
            pairs.append(position.map { unpaired.remove(at: $0) })
        }
        for (position, index) in new.indexes.enumerated() where pairs[position] == nil {
            if let byName = unpaired.firstIndex(where: { oldIndexes[$0].name == index.name }) {
                pairs[position] = unpaired.remove(at: byName)
            }
        }
        var changes: [SchemaChange] = []
        func add(_ detail: String) {
            changes.append(SchemaChange(kind: .indexesChanged, entity: new.name, detail: detail))
        }
        for (position, index) in new.indexes.enumerated() {
            guard let pair = pairs[position] else {
                add("index '\(index.name)' \(Self.elements(index)) added")
                continue
            }
            let oldIndex = oldIndexes[pair]
            if oldIndex.elements != index.elements {
                add("index '\(index.name)' \(Self.elements(oldIndex)) → \(Self.elements(index))")
            } else if oldIndex.name != index.name {
                add("index '\(index.name)' renamed from '\(oldIndex.name)'")
            }
        }
        for position in unpaired {
            add("index '\(oldIndexes[position].name)' removed")
        }
        return changes
    }

    /// Uniqueness constraints added or removed, compared as sets of properties through property
    /// renames. A new constraint depends on the data: no two objects may share its values.
    private func uniquenessChanges(_ old: EntityDescription, _ new: EntityDescription) -> [SchemaChange] {
        let oldConstraints = old.uniquenessConstraints.map { $0.map { destinationName(ofProperty: $0, in: new.name) } }
        let oldSets = oldConstraints.map(Set.init)
        let newSets = new.uniquenessConstraints.map(Set.init)
        var changes: [SchemaChange] = []
        for constraint in new.uniquenessConstraints where !oldSets.contains(Set(constraint)) {
            changes.append(SchemaChange(
                kind: .uniquenessChanged, entity: new.name, detail: "uniqueness constraint \(Self.tuple(constraint)) added",
                inferability: .dependsOnData("no two \(new.name) objects share \(Self.tuple(constraint))")))
        }
        for constraint in oldConstraints where !newSets.contains(Set(constraint)) {
            changes.append(SchemaChange(kind: .uniquenessChanged, entity: new.name, detail: "uniqueness constraint \(Self.tuple(constraint)) removed"))
        }
        return changes
    }

    // MARK: - Names across the two models

    /// The destination name of a source entity's property: the destination property it was
    /// matched with, else its own name.
    func destinationName(ofProperty property: String, in destinationEntity: String) -> String {
        propertyMatches[destinationEntity]?.first { $0.value == property }?.key ?? property
    }

    // MARK: - Text

    /// `'name'`, or `none`.
    static func quoted(_ name: String?) -> String {
        name.map { "'\($0)'" } ?? "none"
    }

    /// `(code)`, `(name, code)`.
    static func tuple(_ names: [String]) -> String {
        "(" + names.joined(separator: ", ") + ")"
    }

    /// `(createdAt descending, title)`.
    static func elements(_ index: IndexDescription) -> String {
        tuple(index.elements.map { $0.order == .ascending ? $0.property : "\($0.property) \($0.order.rawValue)" })
    }
}
