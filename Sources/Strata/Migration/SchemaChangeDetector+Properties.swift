/// The changes of attributes and relationships, between two matched entities.
extension SchemaChangeDetector {
    /// Every property change of a pair of matched entities, inherited properties included:
    /// each destination property against its matched source property (added when there is
    /// none), then the source properties left unmatched (removed).
    func propertyChanges(_ old: EntityDescription, _ new: EntityDescription) -> [SchemaChange] {
        let matches = propertyMatches[new.name] ?? [:]
        var changes: [SchemaChange] = []
        let newProperties = new.attributes.map(PropertyDescription.attribute) + new.relationships.map(PropertyDescription.relationship)
        for property in newProperties {
            guard let oldProperty = matches[property.name].flatMap(old.property(named:)) else {
                changes.append(added(property, in: new))
                continue
            }
            var comparison = PropertyComparison(entity: new.name, property: property.name)
            switch (oldProperty, property) {
            case (.attribute(let from), .attribute(let to)):
                compare(from, to, &comparison)
            case (.relationship(let from), .relationship(let to)):
                compare(from, to, &comparison)
            case (.attribute, .relationship), (.relationship, .attribute):
                let (from, to) = property.isAttribute ? ("relationship", "attribute") : ("attribute", "relationship")
                let renamed = oldProperty.name == property.name ? "" : " (renamed from '\(oldProperty.name)')"
                comparison.add(
                    .propertyKindChanged, "\(from) → \(to)\(renamed)",
                    .notInferable("the values of \(from) '\(oldProperty.name)' cannot become those of \(to) '\(property.name)' automatically; carry them over in a custom stage"))
            }
            changes += comparison.changes
        }
        let matchedSources = Set(matches.values)
        let oldProperties = old.attributes.map(PropertyDescription.attribute) + old.relationships.map(PropertyDescription.relationship)
        for property in oldProperties where !matchedSources.contains(property.name) {
            changes.append(SchemaChange(
                kind: property.isAttribute ? .attributeRemoved : .relationshipRemoved, entity: new.name,
                property: property.name, detail: property.isAttribute ? "attribute removed" : "relationship removed"))
        }
        return changes
    }

    /// An added property: inferable, unless it needs a value that no object has yet (a
    /// required attribute without a default, a required to-one): then the entity must have no
    /// objects, as Core Data requires. A to-many's `minCount` is a validation rule, which a
    /// migration does not check (as for ``SchemaChange/Kind/validationChanged``).
    private func added(_ property: PropertyDescription, in entity: EntityDescription) -> SchemaChange {
        let noObjects = SchemaChange.Inferability.dependsOnData("no \(entity.name) objects exist")
        switch property {
        case .attribute(let attribute):
            let needsValue = !attribute.isOptional && attribute.defaultValue == nil && !attribute.isTransient
            var facts = [attribute.type.rawValue]
            if attribute.isOptional { facts.append("optional") }
            if needsValue { facts.append("required, no default") }
            if let value = attribute.defaultValue { facts.append("default \(Self.value(value))") }
            if attribute.isTransient { facts.append("transient") }
            return SchemaChange(
                kind: .attributeAdded, entity: entity.name, property: attribute.name,
                detail: "attribute added (\(facts.joined(separator: ", ")))", inferability: needsValue ? noObjects : .inferable)
        case .relationship(let relationship):
            var facts = [Self.cardinality(relationship) + " " + relationship.destination]
            if !relationship.isToMany { facts.append(relationship.isOptional ? "optional" : "required") }
            if relationship.minCount > 0 { facts.append("minCount \(relationship.minCount)") }
            let needsValue = !relationship.isToMany && !relationship.isOptional
            return SchemaChange(
                kind: .relationshipAdded, entity: entity.name, property: relationship.name,
                detail: "relationship added (\(facts.joined(separator: ", ")))", inferability: needsValue ? noObjects : .inferable)
        }
    }

    // MARK: - Attributes

    private func compare(_ old: AttributeDescription, _ new: AttributeDescription, _ changes: inout PropertyComparison) {
        let path = "\(changes.entity).\(new.name)"
        if old.name != new.name {
            changes.add(.attributeRenamed, "attribute renamed from '\(old.name)'")
        }
        if old.type != new.type {
            changes.add(
                .typeChanged, "type \(old.type.rawValue) → \(new.type.rawValue)",
                old.type.widens(to: new.type) ? .inferable : .notInferable(
                    "only int16 → int32 → int64 and float → double are inferred; convert \(old.type.rawValue) to \(new.type.rawValue) in a custom stage"))
        }
        if old.isOptional != new.isOptional {
            if new.isOptional {
                changes.add(.optionalityChanged, "required → optional")
            } else if let value = new.defaultValue {
                changes.add(.optionalityChanged, "optional → required (nil becomes the default \(Self.value(value)))")
            } else if old.isTransient || new.isTransient {
                // Not stored on one side: nothing to check (a stored attribute that was
                // transient starts empty, which the transient change says).
                changes.add(.optionalityChanged, "optional → required")
            } else {
                changes.add(.optionalityChanged, "optional → required", .dependsOnData("every \(path) has a value"))
            }
        }
        if old.defaultValue != new.defaultValue {
            changes.add(.defaultValueChanged, "default \(old.defaultValue.map(Self.value) ?? "none") → \(new.defaultValue.map(Self.value) ?? "none")")
        }
        if old.isTransient != new.isTransient {
            if new.isTransient {
                changes.add(.transientChanged, "became transient (the stored values are dropped)")
            } else if !new.isOptional && new.defaultValue == nil {
                changes.add(.transientChanged, "became stored (required, without a default)", .dependsOnData("no \(changes.entity) objects exist"))
            } else {
                changes.add(.transientChanged, "became stored (values start as \(new.defaultValue.map { "the default \(Self.value($0))" } ?? "nil"))")
            }
        }
        if old.allowsExternalStorage != new.allowsExternalStorage {
            changes.add(.externalStorageChanged, new.allowsExternalStorage ? "external storage allowed" : "external storage no longer allowed")
        }
        // Between two types, the type change says it (only `transformable` has a transformer).
        if old.type == new.type && old.transformerName != new.transformerName {
            changes.add(.transformerChanged, "transformer \(Self.quoted(old.transformerName)) → \(Self.quoted(new.transformerName)) (the stored data is kept as written)")
        }
        var rules: [String] = []
        func rule<Value: Equatable>(_ name: String, _ from: Value?, _ to: Value?, _ text: (Value) -> String) {
            if from != to { rules.append("\(name) \(from.map(text) ?? "none") → \(to.map(text) ?? "none")") }
        }
        rule("min", old.minimum, new.minimum, Self.value)
        rule("max", old.maximum, new.maximum, Self.value)
        rule("minLength", old.minLength, new.minLength, String.init)
        rule("maxLength", old.maxLength, new.maxLength, String.init)
        rule("regex", old.regex, new.regex, { Self.value(.string($0)) })
        if !rules.isEmpty {
            changes.add(.validationChanged, rules.joined(separator: ", "))
        }
        if old.versionHashModifier != new.versionHashModifier {
            changes.add(.versionHashModifierChanged, "versionHashModifier \(Self.quoted(old.versionHashModifier)) → \(Self.quoted(new.versionHashModifier))")
        }
        if old.isIndexed != new.isIndexed {
            changes.add(.indexesChanged, new.isIndexed ? "now indexed" : "no longer indexed")
        }
    }

    // MARK: - Relationships

    private func compare(_ old: RelationshipDescription, _ new: RelationshipDescription, _ changes: inout PropertyComparison) {
        let path = "\(changes.entity).\(new.name)"
        if old.name != new.name {
            changes.add(.relationshipRenamed, "relationship renamed from '\(old.name)'")
        }
        let oldDestination = destinationNames[old.destination]
        if oldDestination != new.destination {
            changes.add(.destinationChanged, "destination '\(old.destination)' → '\(new.destination)'", destinationInferability(from: oldDestination, to: new.destination, path: path, oldName: old.destination))
        }
        if old.isToMany != new.isToMany {
            if new.isToMany {
                changes.add(.cardinalityChanged, "to-one → \(Self.cardinality(new))")
            } else {
                changes.add(.cardinalityChanged, "\(Self.cardinality(old)) → to-one", .dependsOnData("every \(path) holds at most one object"))
            }
        } else if old.isToMany && old.isOrdered != new.isOrdered {
            changes.add(.orderedChanged, new.isOrdered ? "unordered → ordered" : "ordered → unordered")
        }
        if !new.isToMany && old.isOptional != new.isOptional {
            changes.add(
                .optionalityChanged, new.isOptional ? "required → optional" : "optional → required",
                new.isOptional ? .inferable : .dependsOnData("every \(path) has a value"))
        }
        let oldInverse = old.inverse.map { inverse in oldDestination.map { destinationName(ofProperty: inverse, in: $0) } ?? inverse }
        if oldInverse != new.inverse {
            changes.add(.inverseChanged, "inverse \(Self.quoted(old.inverse)) → \(Self.quoted(new.inverse))")
        }
        if old.deleteRule != new.deleteRule {
            changes.add(.deleteRuleChanged, "delete rule \(old.deleteRule.rawValue) → \(new.deleteRule.rawValue)")
        }
        var counts: [String] = []
        func count(_ name: String, _ from: Int, _ to: Int) {
            if from != to { counts.append("\(name) \(from == 0 ? "none" : String(from)) → \(to == 0 ? "none" : String(to))") }
        }
        count("minCount", old.minCount, new.minCount)
        count("maxCount", old.maxCount, new.maxCount)
        if !counts.isEmpty {
            changes.add(.validationChanged, counts.joined(separator: ", "))
        }
        if old.versionHashModifier != new.versionHashModifier {
            changes.add(.versionHashModifierChanged, "versionHashModifier \(Self.quoted(old.versionHashModifier)) → \(Self.quoted(new.versionHashModifier))")
        }
    }

    /// A relationship whose destination is another entity than the one the old destination
    /// became (a renamed destination is no change):
    /// - a superentity of it (in the destination model): inferable — every object it refers
    ///   to is one of the new destination's objects;
    /// - a subentity of it: depends on the data — every object it refers to must be of that
    ///   subentity (or one of its own subentities);
    /// - anything else, or an old destination that was removed: not inferable.
    private func destinationInferability(from oldDestination: String?, to newDestination: String, path: String, oldName: String) -> SchemaChange.Inferability {
        if let oldDestination, let oldEntity = destination.entity(named: oldDestination) {
            if oldEntity.ancestorNames.contains(newDestination) { return .inferable }
            if destination.entity(named: newDestination)?.ancestorNames.contains(oldDestination) == true {
                return .dependsOnData("every object in \(path) is a \(newDestination)")
            }
        }
        let was = oldDestination == nil ? "'\(oldName)' was removed" : "'\(oldName)' objects are not '\(newDestination)' objects"
        return .notInferable("\(was); set \(path) in a custom stage")
    }

    // MARK: - Text

    /// `to-one`, `to-many`, `ordered to-many`.
    static func cardinality(_ relationship: RelationshipDescription) -> String {
        relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
    }

    /// A value as the data format writes it: `0`, `"text"`, `true`.
    static func value(_ value: AttributeValue) -> String {
        JSONWriter(pretty: false).string(from: value.jsonValue)
    }
}

/// The changes of one property, collected as they are found.
private struct PropertyComparison {
    let entity: String
    let property: String
    private(set) var changes: [SchemaChange] = []

    init(entity: String, property: String) {
        self.entity = entity
        self.property = property
    }

    mutating func add(_ kind: SchemaChange.Kind, _ detail: String, _ inferability: SchemaChange.Inferability = .inferable) {
        changes.append(SchemaChange(kind: kind, entity: entity, property: property, detail: detail, inferability: inferability))
    }
}

extension PropertyDescription {
    fileprivate var isAttribute: Bool {
        if case .attribute = self { return true }
        return false
    }
}
