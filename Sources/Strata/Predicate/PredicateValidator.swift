/// Checks a predicate or a sort key against the model before it runs, so that a misspelled key
/// path is an error that names it — not a fetch that silently matches nothing.
package struct PredicateValidator {
    let schema: Schema

    package init(schema: Schema) {
        self.schema = schema
    }

    /// Also refuses a predicate larger than the limits every store shares
    /// (``FetchPredicate/maximumDepth``, ``FetchPredicate/maximumKeyPathLength``).
    package func validate(_ predicate: FetchPredicate, for entity: EntityDescription) throws(StrataError) {
        try validate(predicate, entity, variables: [:], depth: 0)
    }

    /// A sort key: attributes, through to-one relationships only.
    package func validateSortKey(_ keyPath: String, for entity: EntityDescription) throws(StrataError) {
        var current = entity
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try PredicateLimit.check(components)
        for (index, key) in components.enumerated() {
            let isLast = index == components.count - 1
            if let relationship = current.relationship(named: key) {
                guard !relationship.isToMany else {
                    throw StrataError(.invalidPredicate, "cannot sort by '\(keyPath)': '\(key)' is a to-many relationship; sort keys go through to-one relationships only")
                }
                guard let destination = schema.entity(named: relationship.destination) else { return }
                if isLast { return }
                current = destination
            } else if current.attribute(named: key) != nil {
                guard isLast else {
                    throw StrataError(.invalidPredicate, "cannot sort by '\(keyPath)': '\(key)' is an attribute of \(current.name), not a relationship")
                }
            } else {
                throw unknownKey(key, in: current, path: keyPath)
            }
        }
    }

    /// What a variable stands for: an entity (a SUBQUERY member), or anything (a substitution).
    private enum Binding { case entity(EntityDescription), unknown }

    /// `depth`: the levels of nesting above `predicate`.
    private func validate(_ predicate: FetchPredicate, _ entity: EntityDescription, variables: [String: Binding], depth: Int) throws(StrataError) {
        switch predicate {
        case .constant:
            return
        case .and(let predicates), .or(let predicates):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            for predicate in predicates { try validate(predicate, entity, variables: variables, depth: depth + 1) }
        case .not(let inner):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            try validate(inner, entity, variables: variables, depth: depth + 1)
        case .comparison(let comparison):
            try validate(comparison.left, entity, variables: variables, depth: depth)
            try validate(comparison.right, entity, variables: variables, depth: depth)
            if comparison.op == .matches, case .constant(.string(let pattern)) = comparison.right,
               let problem = RegexRule.compileError(pattern) {
                throw StrataError(.invalidPredicate, "invalid MATCHES pattern: \(problem)")
            }
            if comparison.op == .between {
                switch comparison.right {
                case .array(let bounds) where bounds.count == 2: break
                case .constant(.array(let bounds)) where bounds.count == 2: break
                default:
                    throw StrataError(.invalidPredicate, "BETWEEN needs two bounds, like BETWEEN {1, 10}")
                }
            }
        }
    }

    private func validate(_ expression: FetchExpression, _ entity: EntityDescription, variables: [String: Binding], depth: Int) throws(StrataError) {
        switch expression {
        case .constant(let value):
            if depth + PredicateLimit.depth(of: value, limit: FetchPredicate.maximumDepth - depth) > FetchPredicate.maximumDepth {
                throw PredicateLimit.tooDeep
            }
        case .evaluatedObject:
            return
        case .keyPath(let path):
            try PredicateLimit.check(path)
            try validate(path, from: entity)
        case .variable(let name, let path):
            try PredicateLimit.check(path)
            switch variables[name] {
            case .entity(let bound)?:
                try validate(path, from: bound)
            case .unknown?:
                return
            case nil:
                throw StrataError(.invalidPredicate, "the predicate still has the variable $\(name); substitute a value for it before fetching")
            }
        case .array(let elements):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            for element in elements { try validate(element, entity, variables: variables, depth: depth + 1) }
        case .subquery(let collection, let variable, let predicate, let path):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            try PredicateLimit.check(path)
            try validate(collection, entity, variables: variables, depth: depth + 1)
            var scope = variables
            let member = destination(of: collection, entity, variables: variables)
            scope[variable] = member.map(Binding.entity) ?? .unknown
            try validate(predicate, member ?? entity, variables: scope, depth: depth + 1)
            if let first = path.first, !first.hasPrefix("@") {
                throw StrataError(.invalidPredicate, "a SUBQUERY is a collection; follow it with a collection operator such as @count, not '\(first)'")
            }
        }
    }

    /// The entity of the members of a collection expression, when it is a relationship path.
    private func destination(of expression: FetchExpression, _ entity: EntityDescription, variables: [String: Binding]) -> EntityDescription? {
        var current: EntityDescription
        let path: [String]
        switch expression {
        case .keyPath(let components):
            current = entity
            path = components
        case .variable(let name, let components):
            guard case .entity(let bound)? = variables[name] else { return nil }
            current = bound
            path = components
        default:
            return nil
        }
        for key in path {
            guard let relationship = current.relationship(named: key), let next = schema.entity(named: relationship.destination) else {
                return nil
            }
            current = next
        }
        return current
    }

    private func validate(_ path: [String], from entity: EntityDescription) throws(StrataError) {
        var current: EntityDescription? = entity
        let text = path.joined(separator: ".")
        var index = 0
        while index < path.count {
            let key = path[index]
            if key.hasPrefix("@") {
                guard ["@count", "@sum", "@avg", "@min", "@max"].contains(key) else {
                    throw StrataError(.invalidPredicate, "unknown collection operator '\(key)' in '\(text)'; use @count, @sum, @avg, @min or @max")
                }
                if key == "@count" {
                    guard index == path.count - 1 else {
                        throw StrataError(.invalidPredicate, "@count ends a key path; '\(text)' continues after it")
                    }
                    return
                }
                // @sum.key and friends: the rest is a key path on the members.
                index += 1
                continue
            }
            if key == "self" || key == "SELF" {
                index += 1
                continue
            }
            guard let owner = current else {
                throw StrataError(.invalidPredicate, "'\(text)' goes on after attribute '\(path[index - 1])', which has no keys")
            }
            if let relationship = owner.relationship(named: key) {
                current = schema.entity(named: relationship.destination)
            } else if owner.attribute(named: key) != nil {
                current = nil
            } else {
                throw unknownKey(key, in: owner, path: text)
            }
            index += 1
        }
    }

    private func unknownKey(_ key: String, in entity: EntityDescription, path: String) -> StrataError {
        let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
        return StrataError(
            .invalidPredicate,
            "entity '\(entity.name)' has no property '\(key)' (in key path '\(path)')\(Suggestion.didYouMean(key, in: names))")
    }
}
