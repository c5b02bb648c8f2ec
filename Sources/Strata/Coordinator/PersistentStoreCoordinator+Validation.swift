extension PersistentStoreCoordinator {
    /// A rule for one property of one entity's objects: throw to refuse the value. It gets the
    /// value (as the object's subscript returns it) and the object, and runs in the saving
    /// context's domain.
    public typealias ValidationRule = @Sendable (_ value: Any?, _ object: ManagedObject) throws -> Void

    /// Adds a rule for the property `key` of objects of `entityName` and its subentities, which
    /// every save of every context of this coordinator checks for the objects it inserts or
    /// updates, with the model's own rules. What the rules throw is collected with every other
    /// failure into one `validationFailed` error: a ``StrataError``'s failures as they are, any
    /// other error as a `custom` ``ValidationFailure`` naming the object and `key` with the
    /// error's description. Rules of an entity run in the order they were added.
    ///
    /// ```swift
    /// try coordinator.addValidationRule(forEntity: "Person", key: "email") { value, _ in
    ///     guard let email = value as? String, email.contains("@") else {
    ///         throw StrataError(.validationFailed, "an email address needs an @")
    ///     }
    /// }
    /// ```
    /// - Throws: `unknownEntity` or `unknownProperty` (with the closest name) when the model
    ///   has no such entity or property.
    public func addValidationRule(forEntity entityName: String, key: String, _ rule: @escaping ValidationRule) throws(StrataError) {
        let entity = try entity(named: entityName)
        guard entity.propertyNames.contains(key) else {
            throw StrataError(
                .unknownProperty,
                "entity '\(entityName)' has no property '\(Echo.value(key))'\(Suggestion.didYouMean(key, in: entity.propertyNames))")
        }
        validationRules.withLock { $0[entityName, default: []].append((key, rule)) }
    }

    /// The rules that apply to objects of `entity`: its ancestors' first, then its own.
    func validationRules(for entity: EntityDescription) -> [(key: String, rule: ValidationRule)] {
        validationRules.withLock { rules in
            guard !rules.isEmpty else { return [] }
            return (entity.ancestorNames.reversed() + [entity.name]).flatMap { rules[$0] ?? [] }
        }
    }

    /// Whether any rule was added: a save without rules skips looking them up per entity.
    var hasValidationRules: Bool { validationRules.withLock { !$0.isEmpty } }
}

extension ManagedObjectContext {
    /// The app's checks of the objects a save writes, after the model's rules: the
    /// coordinator's validation rules for each property they cover, then the object's own
    /// `validateForInsert`, `validateForUpdate` or `validateForDelete`. Every failure is added
    /// to `failures`.
    struct AppValidation {
        private let coordinator: PersistentStoreCoordinator
        private let hasRules: Bool
        private var rulesByEntity: [String: [(key: String, rule: PersistentStoreCoordinator.ValidationRule)]] = [:]

        init(_ coordinator: PersistentStoreCoordinator) {
            self.coordinator = coordinator
            hasRules = coordinator.hasValidationRules
        }

        enum Kind { case insert, update, delete }

        mutating func check(_ object: ManagedObject, _ kind: Kind, into failures: inout [ValidationFailure]) {
            if hasRules && kind != .delete {
                let name = object.entity.name
                let rules: [(key: String, rule: PersistentStoreCoordinator.ValidationRule)]
                if let known = rulesByEntity[name] {
                    rules = known
                } else {
                    rules = coordinator.validationRules(for: object.entity)
                    rulesByEntity[name] = rules
                }
                for (key, rule) in rules {
                    do {
                        try rule(object.value(forKey: key), object)
                    } catch {
                        Self.collect(error, of: object, key: key, into: &failures)
                    }
                }
            }
            do {
                switch kind {
                case .insert: try object.validateForInsert()
                case .update: try object.validateForUpdate()
                case .delete: try object.validateForDelete()
                }
            } catch {
                Self.collect(error, of: object, key: nil, into: &failures)
            }
        }

        private static func collect(_ error: any Error, of object: ManagedObject, key: String?, into failures: inout [ValidationFailure]) {
            if let error = error as? StrataError, !error.failures.isEmpty {
                failures += error.failures
                return
            }
            let message = (error as? StrataError)?.message ?? String(describing: error)
            failures.append(ValidationFailure(code: .custom, objectID: object.objectID, key: key, message: message))
        }
    }
}
