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
                throw PredicateLimit.unboundVariable(name)
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
        case .function(let function, let arguments):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            guard arguments.count == function.arity else { throw PredicateLimit.wrongArity(function, arguments.count) }
            for argument in arguments { try validate(argument, entity, variables: variables, depth: depth + 1) }
        case .index(let collection, let index, let path):
            guard depth < FetchPredicate.maximumDepth else { throw PredicateLimit.tooDeep }
            try PredicateLimit.check(path)
            try validate(collection, entity, variables: variables, depth: depth + 1)
            if case .position(let position) = index { try validate(position, entity, variables: variables, depth: depth + 1) }
            if index != .size, let unordered = unorderedRelationship(in: collection, entity, variables: variables) {
                throw StrataError(
                    .invalidPredicate,
                    "cannot take [\(PredicatePrinter.index(index))] of '\(collection)': the to-many relationship '\(unordered)' is unordered, so its members have no first or last; use [SIZE], or make the relationship ordered")
            }
            if let member = memberEntity(of: collection, entity, variables: variables) {
                try validate(path, from: member)
            } else if let first = path.first, !first.hasPrefix("@") {
                try validateScalarTail(path, of: collection)
            }
        }
    }

    /// `[FIRST].name` of values that are not objects: nothing to follow.
    private func validateScalarTail(_ path: [String], of collection: FetchExpression) throws(StrataError) {
        // Arrays, functions and attribute paths give values, whose keys are all nil; say so
        // rather than fetch nothing.
        throw StrataError(.invalidPredicate, "'\(collection)' holds values, not objects; '\(path.joined(separator: "."))' cannot follow its subscript")
    }

    /// The first unordered to-many relationship a collection expression goes through, when it is
    /// a key path (SUBQUERYs through their collection).
    private func unorderedRelationship(in expression: FetchExpression, _ entity: EntityDescription, variables: [String: Binding]) -> String? {
        guard let (start, path) = keyPath(of: expression, entity, variables: variables) else { return nil }
        var current = start
        for key in path {
            guard let relationship = current.relationship(named: key) else { return nil }
            if relationship.isToMany && !relationship.isOrdered { return "\(current.name).\(key)" }
            guard let next = schema.entity(named: relationship.destination) else { return nil }
            current = next
        }
        return nil
    }

    /// Where a key path expression starts and its components; SUBQUERYs stand for their
    /// collection, whose order they keep.
    private func keyPath(of expression: FetchExpression, _ entity: EntityDescription, variables: [String: Binding]) -> (EntityDescription, [String])? {
        switch expression {
        case .keyPath(let path): return (entity, path)
        case .variable(let name, let path):
            guard case .entity(let bound)? = variables[name] else { return nil }
            return (bound, path)
        case .subquery(let collection, _, _, let path) where path.isEmpty:
            return keyPath(of: collection, entity, variables: variables)
        default: return nil
        }
    }

    /// The entity of the members of a subscripted collection, when its members are objects.
    private func memberEntity(of expression: FetchExpression, _ entity: EntityDescription, variables: [String: Binding]) -> EntityDescription? {
        guard let (start, path) = keyPath(of: expression, entity, variables: variables) else { return nil }
        var current = start
        for key in path {
            guard let relationship = current.relationship(named: key), let next = schema.entity(named: relationship.destination) else { return nil }
            current = next
        }
        return current
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
        var numericOperator: String?
        let text = path.joined(separator: ".")
        var index = 0
        while index < path.count {
            let key = path[index]
            if key == "@distinctUnionOfObjects" {
                // The distinct values of the rest of the path, which is a plain key path: count
                // or aggregate them with a function, `count:(books.@distinctUnionOfObjects.genre)`.
                if let inner = path[(index + 1)...].first(where: { $0.hasPrefix("@") }) {
                    throw StrataError(.invalidPredicate, "'\(inner)' cannot follow @distinctUnionOfObjects in '\(text)'; write \(inner == "@count" ? "count" : "sum"):(…) around the key path instead")
                }
                index += 1
                continue
            }
            if key.hasPrefix("@") {
                guard ["@count", "@sum", "@avg", "@min", "@max"].contains(key) else {
                    throw StrataError(.invalidPredicate, "unknown collection operator '\(key)' in '\(text)'; use @count, @sum, @avg, @min, @max or @distinctUnionOfObjects")
                }
                if key == "@count" {
                    guard index == path.count - 1 else {
                        throw StrataError(.invalidPredicate, "@count ends a key path; '\(text)' continues after it")
                    }
                    return
                }
                // @sum.key and friends: the rest is a key path on the members.
                if key == "@sum" || key == "@avg" { numericOperator = key }
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
            } else if let attribute = owner.attribute(named: key) {
                // @sum and @avg add numbers: of any other attribute they are an error, as in
                // Core Data (not a total of nothing).
                if let numericOperator, !attribute.type.isNumeric {
                    throw StrataError(.invalidPredicate, "\(numericOperator) adds numbers, but '\(key)' in '\(text)' is a \(attribute.type.rawValue) attribute; use @count, @min or @max")
                }
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
