/// The rules of a model that span entities: unique names, inheritance, relationship
/// destinations and inverses, uniqueness constraints, indexes and configurations.
struct SchemaValidator {
    private let draft: SchemaDraft
    private var collector: DiagnosticCollector
    /// Entity index by name, for entities whose name is valid and not a duplicate.
    private var entityIndex: [String: Int] = [:]
    /// Ancestors of each entity from its parent upwards; nil for an entity in a cycle or whose
    /// parent is missing.
    private var ancestors: [Int: [Int]] = [:]

    init(draft: SchemaDraft, collector: DiagnosticCollector) {
        self.draft = draft
        self.collector = collector
    }

    mutating func validate() -> DiagnosticCollector {
        indexEntities()
        checkInheritance()
        for index in draft.entities.indices {
            checkProperties(of: index)
            checkRelationships(of: index)
            checkConstraintsAndIndexes(of: index)
        }
        checkIndexNames()
        checkAbstractEntities()
        checkConfigurations()
        return collector
    }

    // MARK: - Entities and inheritance

    private mutating func indexEntities() {
        var byLowercasedName: [String: String] = [:]
        for (index, entity) in draft.entities.enumerated() {
            guard let name = entity.name else { continue }
            if let existing = byLowercasedName[name.lowercased()] {
                let first = entityIndex[existing].map { "entities[\($0)]" } ?? "an earlier entity"
                let message = existing == name
                    ? "duplicate entity name '\(name)' (first declared at \(first)); rename one of them"
                    : "entity name '\(name)' differs from '\(existing)' (\(first)) only in case, which file systems and SQL treat as the same name; rename one of them"
                collector.error("duplicateName", message, at: entity.path + ".name")
                continue
            }
            byLowercasedName[name.lowercased()] = name
            entityIndex[name] = index
        }
    }

    private mutating func checkInheritance() {
        var parentOf: [Int: Int] = [:]
        for (index, entity) in draft.entities.enumerated() {
            guard let parent = entity.parent else { continue }
            guard let parentIndex = entityIndex[parent] else {
                collector.error(
                    "unknownEntity",
                    "parent entity '\(parent)' does not exist\(Suggestion.didYouMean(parent, in: entityIndex.keys.sorted()))",
                    at: entity.path + ".parent")
                continue
            }
            parentOf[index] = parentIndex
        }
        // Each entity's place is found once, walking up only to the first entity already placed,
        // so a chain of n entities takes n steps, not n²/2 (or n³ with a search of the chain).
        var placement: [Int: Placement] = [:]
        for index in draft.entities.indices where placement[index] == nil {
            var path: [Int] = [index]
            var onPath: [Int: Int] = [index: 0]
            var outcome: Placement
            var current = index
            while true {
                guard let parent = parentOf[current] else {
                    // A parent that is named but missing leaves the chain incomplete.
                    outcome = draft.entities[current].parent != nil ? .broken : .placed(depth: 0)
                    break
                }
                if let known = placement[parent] {
                    outcome = known.child
                    break
                }
                if let start = onPath[parent] {
                    // `path[start...]` is a cycle; the entities before it lead into it.
                    let cycle = Array(path[start...])
                    for (offset, member) in cycle.enumerated() {
                        // Each member's message names at most a few of the others, so that a
                        // long cycle does not give messages of quadratic total length.
                        let shown = 5
                        var names = (cycle[offset...] + cycle[..<offset]).prefix(shown).map { draft.entities[$0].name ?? "?" }
                        if cycle.count > shown { names.append("… (\(cycle.count - shown) more)") }
                        names.append(draft.entities[member].name ?? "?")
                        collector.error(
                            "inheritanceCycle",
                            "inheritance cycle: \(names.joined(separator: " → ")); an entity cannot be its own ancestor",
                            at: draft.entities[member].path + ".parent")
                        placement[member] = .broken
                    }
                    path.removeSubrange(start...)
                    outcome = .broken
                    break
                }
                onPath[parent] = path.count
                path.append(parent)
                current = parent
            }
            // `outcome` is the placement of the last entity of `path`; its descendants on the
            // path follow it.
            for member in path.reversed() {
                placement[member] = outcome
                if case .placed(let depth) = outcome, depth == Schema.maximumInheritanceDepth + 1 {
                    collector.error(
                        "inheritanceTooDeep",
                        "entity '\(draft.entities[member].name ?? "?")' has more than \(Schema.maximumInheritanceDepth) ancestors; an inheritance chain may be at most \(Schema.maximumInheritanceDepth) levels deep below its root",
                        at: draft.entities[member].path + ".parent")
                }
                outcome = outcome.child
            }
        }
        // Ancestor lists, for entities placed within the depth limit: at most that many each.
        for index in draft.entities.indices {
            guard case .placed(let depth) = placement[index], depth <= Schema.maximumInheritanceDepth else { continue }
            var chain: [Int] = []
            chain.reserveCapacity(depth)
            var current = index
            while let parent = parentOf[current] {
                chain.append(parent)
                current = parent
            }
            ancestors[index] = chain
        }
    }

    /// Where an entity stands in its inheritance hierarchy.
    private enum Placement {
        /// Below a root, with `depth` ancestors.
        case placed(depth: Int)
        /// On or below a cycle, or below a missing parent.
        case broken

        /// The placement of a child of an entity placed so.
        var child: Placement {
            if case .placed(let depth) = self { return .placed(depth: depth + 1) }
            return .broken
        }
    }

    /// Every property visible in the entity: inherited ones (nearest ancestor last) and its own.
    private func allProperties(of index: Int) -> (attributes: [AttributeDraft], relationships: [RelationshipDraft]) {
        let chain = (ancestors[index] ?? []).reversed() + [index]
        var attributes: [AttributeDraft] = []
        var relationships: [RelationshipDraft] = []
        for member in chain {
            attributes += draft.entities[member].attributes
            relationships += draft.entities[member].relationships
        }
        return (attributes, relationships)
    }

    private mutating func checkProperties(of index: Int) {
        let entity = draft.entities[index]
        var inherited: [String: String] = [:] // lower-cased name → declaring ancestor
        for ancestor in ancestors[index] ?? [] {
            let owner = draft.entities[ancestor]
            for name in owner.attributes.compactMap(\.name) + owner.relationships.compactMap(\.name) {
                inherited[name.lowercased()] = inherited[name.lowercased()] ?? owner.name
            }
        }
        var seen: [String: String] = [:] // lower-cased → as declared
        let declared = entity.attributes.map { ($0.name, $0.path) } + entity.relationships.map { ($0.name, $0.path) }
        for (name, path) in declared {
            guard let name else { continue }
            if let owner = inherited[name.lowercased()] {
                collector.error(
                    "redeclaredProperty",
                    "'\(name)' is already declared by ancestor entity '\(owner)'; remove it here, a subentity inherits it",
                    at: path + ".name")
            } else if let existing = seen[name.lowercased()] {
                let message = existing == name
                    ? "duplicate property name '\(name)' in entity '\(entity.name ?? "?")'; rename one of them"
                    : "property name '\(name)' differs from '\(existing)' only in case, which SQL treats as the same column; rename one of them"
                collector.error("duplicateName", message, at: path + ".name")
            } else {
                seen[name.lowercased()] = name
            }
        }
    }

    // MARK: - Relationships

    private mutating func checkRelationships(of index: Int) {
        let entity = draft.entities[index]
        guard let entityName = entity.name else { return }
        for relationship in entity.relationships {
            guard let destination = relationship.destination else { continue }
            let label = "'\(entityName).\(relationship.name ?? "?")'"
            guard let destinationIndex = entityIndex[destination] else {
                collector.error(
                    "unknownEntity",
                    "destination entity '\(destination)' does not exist\(Suggestion.didYouMean(destination, in: entityIndex.keys.sorted()))",
                    at: relationship.path + ".destination")
                continue
            }
            guard let name = relationship.name else { continue }
            guard let inverseName = relationship.inverse else {
                collector.warning(
                    "missingInverse",
                    "relationship \(label) has no inverse; without one Strata cannot keep both sides consistent. Add a relationship on '\(destination)' that points back, and name it in 'inverse'",
                    at: relationship.path, location: collector.location(of: relationship.path))
                continue
            }
            let inversePath = relationship.path + ".inverse"
            let destinationProperties = allProperties(of: destinationIndex)
            guard let inverse = destinationProperties.relationships.last(where: { $0.name == inverseName }) else {
                if destinationProperties.attributes.contains(where: { $0.name == inverseName }) {
                    collector.error("invalidInverse", "inverse '\(inverseName)' of \(label) is an attribute of '\(destination)', not a relationship", at: inversePath)
                } else {
                    let candidates = destinationProperties.relationships.compactMap(\.name)
                    collector.error(
                        "unknownInverse",
                        "inverse '\(inverseName)' of \(label) is not a relationship of '\(destination)'\(Suggestion.didYouMean(inverseName, in: candidates))",
                        at: inversePath)
                }
                continue
            }
            let selfAndAncestors = [entityName] + (ancestors[index] ?? []).compactMap { draft.entities[$0].name }
            if let inverseDestination = inverse.destination, !selfAndAncestors.contains(inverseDestination) {
                collector.error(
                    "invalidInverse",
                    "inverse '\(destination).\(inverseName)' of \(label) points to '\(inverseDestination)', not back to '\(entityName)'; set its destination to '\(entityName)' or name another inverse",
                    at: inversePath)
                continue
            }
            if inverse.inverse != name {
                let found = inverse.inverse.map { "names '\($0)' as its inverse" } ?? "names no inverse"
                collector.error(
                    "invalidInverse",
                    "inverse '\(destination).\(inverseName)' of \(label) \(found); the two sides must name each other: add \"inverse\": \"\(name)\" to '\(destination).\(inverseName)'",
                    at: inversePath)
            }
        }
    }

    // MARK: - Uniqueness constraints and indexes

    private mutating func checkConstraintsAndIndexes(of index: Int) {
        let entity = draft.entities[index]
        guard let entityName = entity.name, !entity.uniquenessConstraints.isEmpty || !entity.indexes.isEmpty else { return }
        let properties = allProperties(of: index)
        func check(_ reference: NameReference, usage: String) {
            if let attribute = properties.attributes.last(where: { $0.name == reference.name }) {
                if attribute.isTransient {
                    collector.error("transientProperty", "\(usage) cannot use transient attribute '\(reference.name)': no store keeps it", at: reference.path)
                }
            } else if let relationship = properties.relationships.last(where: { $0.name == reference.name }) {
                if relationship.isToMany {
                    collector.error("toManyProperty", "\(usage) cannot use to-many relationship '\(reference.name)'; only attributes and to-one relationships", at: reference.path)
                }
            } else {
                let candidates = properties.attributes.compactMap(\.name) + properties.relationships.compactMap(\.name)
                collector.error(
                    "unknownProperty",
                    "\(usage) names '\(reference.name)', which is not a property of '\(entityName)'\(Suggestion.didYouMean(reference.name, in: candidates))",
                    at: reference.path)
            }
        }
        for constraint in entity.uniquenessConstraints {
            for reference in constraint { check(reference, usage: "a uniqueness constraint") }
        }
        for index in entity.indexes {
            for element in index.elements { check(element.property, usage: "index '\(index.name ?? "?")'") }
        }
    }

    /// Index names share one namespace in a SQL database, so they are unique in the model.
    private mutating func checkIndexNames() {
        var seen: [String: String] = [:]
        for entity in draft.entities {
            for index in entity.indexes {
                guard let name = index.name else { continue }
                if let first = seen[name.lowercased()] {
                    collector.error("duplicateName", "duplicate index name '\(name)' (first used by entity '\(first)'); index names are unique in a model", at: index.path + ".name")
                } else {
                    seen[name.lowercased()] = entity.name ?? "?"
                }
            }
        }
    }

    private mutating func checkAbstractEntities() {
        var hasConcreteDescendant = Set<Int>()
        for (index, entity) in draft.entities.enumerated() where !entity.isAbstract {
            hasConcreteDescendant.formUnion(ancestors[index] ?? [])
        }
        for (index, entity) in draft.entities.enumerated() where entity.isAbstract {
            if !hasConcreteDescendant.contains(index) {
                collector.warning(
                    "abstractWithoutSubentities",
                    "abstract entity '\(entity.name ?? "?")' has no concrete subentities, so it can never have objects; add one with \"parent\": \"\(entity.name ?? "?")\" or remove 'abstract'",
                    at: entity.path + ".abstract")
            }
        }
    }

    private mutating func checkConfigurations() {
        var seen: Set<String> = []
        for configuration in draft.configurations {
            if let name = configuration.name, !seen.insert(name).inserted {
                collector.error("duplicateName", "duplicate configuration name '\(name)'", at: configuration.path + ".name")
            }
            for reference in configuration.entities where entityIndex[reference.name] == nil {
                collector.error(
                    "unknownEntity",
                    "configuration '\(configuration.name ?? "?")' names entity '\(reference.name)', which does not exist\(Suggestion.didYouMean(reference.name, in: entityIndex.keys.sorted()))",
                    at: reference.path)
            }
        }
    }
}
