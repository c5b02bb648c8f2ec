/// The entities whose saves can change the results of a request: the request's entity (with
/// its subentities when it includes them), and the destinations of every relationship its
/// predicate, sort descriptors or section key path go through. A save that touches none of
/// them cannot change the results, and observers of the request ignore it.
///
/// Expressions whose key paths cannot be followed from the entity alone (`SUBQUERY`, variables,
/// `SELF`) count every entity reachable through relationships, to be safe.
struct RequestDependencies: Sendable, Hashable {
    let entityNames: Set<String>

    init(_ request: FetchRequest, sectionKeyPath: String? = nil, schema: Schema) {
        var walk = Walk(schema: schema)
        if request.includesSubentities {
            walk.names.formUnion(schema.entityAndDescendants(of: request.entityName).map(\.name))
        } else {
            walk.names.insert(request.entityName)
        }
        if let predicate = request.predicate { walk.visit(predicate, from: request.entityName) }
        for descriptor in request.sortDescriptors { walk.follow(descriptor.keyPathComponents, from: request.entityName) }
        if let sectionKeyPath { walk.follow(FetchSortDescriptor(sectionKeyPath).keyPathComponents, from: request.entityName) }
        entityNames = walk.names
    }

    /// Whether a change that names these objects can change the results.
    func isAffected(by ids: some Sequence<ObjectID>) -> Bool {
        ids.contains { entityNames.contains($0.entityName) }
    }

    /// Whether a save can change the results.
    func isAffected(by notification: SaveNotification) -> Bool {
        isAffected(by: notification.inserted) || isAffected(by: notification.updated) || isAffected(by: notification.deleted)
            || !notification.unlistedEntities.isDisjoint(with: entityNames)
    }

    private struct Walk {
        let schema: Schema
        var names: Set<String> = []

        init(schema: Schema) {
            self.schema = schema
        }

        mutating func visit(_ predicate: FetchPredicate, from entity: String) {
            switch predicate {
            case .constant: break
            case .comparison(let comparison):
                visit(comparison.left, from: entity)
                visit(comparison.right, from: entity)
            case .and(let parts), .or(let parts):
                for part in parts { visit(part, from: entity) }
            case .not(let inner):
                visit(inner, from: entity)
            }
        }

        mutating func visit(_ expression: FetchExpression, from entity: String) {
            switch expression {
            case .constant: break
            case .keyPath(let components): follow(components, from: entity)
            case .array(let items), .function(_, let items):
                for item in items { visit(item, from: entity) }
            case .evaluatedObject, .variable, .subquery, .index: reachable(from: entity)
            }
        }

        /// Adds the destination of each relationship along a key path.
        mutating func follow(_ components: [String], from start: String) {
            var entity = schema.entity(named: start)
            for component in components {
                guard let current = entity, let relationship = relationshipNamed(component, in: current) else { return }
                names.formUnion(schema.entityAndDescendants(of: relationship.destination).map(\.name))
                entity = schema.entity(named: relationship.destination)
            }
        }

        /// A relationship of an entity or of one of its subentities (a predicate may name
        /// either).
        private func relationshipNamed(_ name: String, in entity: EntityDescription) -> RelationshipDescription? {
            for candidate in schema.entityAndDescendants(of: entity.name) {
                if let relationship = candidate.relationship(named: name) { return relationship }
            }
            return nil
        }

        /// Adds every entity reachable through relationships from `start`.
        mutating func reachable(from start: String) {
            var queue = [start]
            var seen: Set<String> = [start]
            while let name = queue.popLast() {
                for entity in schema.entityAndDescendants(of: name) {
                    names.insert(entity.name)
                    for relationship in entity.relationships where seen.insert(relationship.destination).inserted {
                        queue.append(relationship.destination)
                    }
                }
            }
        }
    }
}
