extension FetchPredicate {
    /// Whether the predicate holds for an object, as a fetch in its context would decide: with
    /// the object's unsaved values and relationships, by the rules every store shares (see
    /// ``PredicateFunction`` and the evaluator's nil rules in the guide).
    ///
    /// ```swift
    /// let cheap = try FetchPredicate(format: "price * quantity < 10")
    /// if try cheap.evaluate(with: order) { … }
    /// ```
    /// - Throws: `invalidPredicate` for a key the object's entity does not have (suggesting the
    ///   closest), a `$variable` without a value, or a predicate past the limits every store
    ///   shares; `objectNotFound` when the object is no longer in a context.
    public func evaluate(with object: ManagedObject) throws(StrataError) -> Bool {
        guard let context = object.managedObjectContext else {
            throw StrataError(.objectNotFound, "cannot evaluate a predicate on \(object): it is no longer in a context")
        }
        try PredicateValidator(schema: context.coordinator.schema).validate(self, for: object.entity)
        return try context.objectEvaluator().evaluate(self, on: object)
    }

    /// Whether the predicate holds for a dictionary of values: each key path reads the value
    /// under its first component (or under the whole dotted path, when that is a key) and
    /// follows the rest on it — collection operators on arrays; other keys of a value, keys the
    /// dictionary lacks, and `SELF`, are nil.
    ///
    /// ```swift
    /// let p = try FetchPredicate(format: "age >= 18 AND tags.@count > 0")
    /// try p.evaluate(with: ["age": 20, "tags": ["a"]])  // true
    /// ```
    /// - Throws: `invalidPredicate` for a `$variable` without a value or a predicate past the
    ///   limits every store shares.
    public func evaluate(with values: [String: any PredicateArgument]) throws(StrataError) -> Bool {
        let constants = values.mapValues(\.predicateValue)
        let resolved = rewritten { expression, _ in
            switch expression {
            case .keyPath(let path):
                if let whole = constants[path.joined(separator: ".")] { return .constant(whole) }
                guard let first = path.first, let value = constants[first] else { return .constant(.null) }
                return .constant(PredicateEvaluator<Never>.value(ofKeyPath: Array(path.dropFirst()), on: value))
            case .evaluatedObject:
                return .constant(.null)
            default:
                return nil
            }
        }
        // Every key path is a constant now: the evaluator never reaches an object.
        return try PredicateEvaluator<Void>.withoutObjects.evaluate(resolved, on: ())
    }
}
