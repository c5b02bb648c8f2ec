/// Turning each source record into a destination record: its ID, attributes and relationships.
extension RecordMigration {
    /// How the records of one source entity become records of its destination entity.
    struct RecordPlan {
        let entity: EntityDescription
        /// The source entity's layout: records laid out by it are read by position.
        let sourceLayout: AttributeValues.Layout
        /// One per position of the destination entity's ``EntityDescription/attributeLayout``.
        let attributes: [AttributeSource]
        let relationships: [RelationshipSource]
    }

    /// Where a destination attribute's value comes from.
    enum AttributeSource {
        /// No stored source: the destination's default value (nil for a transient attribute).
        case initial(AttributeValue?)
        /// The source attribute `name` (at `position` of the source layout): converted from
        /// float to double when `widensFloat`, and `fill` when it has no value.
        case carried(name: String, position: Int?, widensFloat: Bool, fill: AttributeValue?)
    }

    /// A destination relationship and the source relationship its members come from (nil for
    /// one that starts empty).
    struct RelationshipSource {
        let relationship: RelationshipDescription
        let source: RelationshipDescription?
        /// The entities its members may have: its destination and the destination's subentities.
        let family: Set<String>
    }

    /// What a destination property gets from the source model.
    enum Carriage {
        /// The matched source property's values.
        case carried(PropertyDescription)
        /// Nothing: the property is new, or transient on one side.
        case added
        /// Nothing, although a source property was matched: the change cannot be carried
        /// (`detail` says which); a custom step does it as a removal and an addition.
        case replaced(detail: String)
    }

    /// What `property` of the destination entity `entity` gets from its matched source property.
    func carriage(of property: PropertyDescription, in entity: EntityDescription) -> Carriage {
        guard let matched = step.diff.sourceProperty(of: property.name, in: entity.name) else { return .added }
        // The diff names a property by the entity that declares it or by each that has it.
        for name in [entity.name] + entity.ancestorNames {
            if let change = uninferablePaths["\(name).\(property.name)"] { return .replaced(detail: change.detail) }
        }
        switch (matched, property) {
        case (.attribute(let from), .attribute(let to)):
            if from.isTransient || to.isTransient { return .added }
            // int16 → int32 → int64 are all `.integer`; float → double is converted. (binary ↔
            // transformable is not carried: plain bytes are not a transformer's data.)
            guard from.type.keepsValues(as: to.type) else {
                return .replaced(detail: "type \(from.type.rawValue) → \(to.type.rawValue)")
            }
            return .carried(matched)
        case (.relationship(let from), .relationship(let to)):
            // Members of the old destination (as matched) must all fit the new one: it is the
            // same entity or a superentity of it; or a subentity, when every member is one of
            // its objects (``transformRecords(_:)`` refuses the others, naming them).
            guard let mapped = entityMap[from.destination],
                  families[to.destination]?.contains(mapped) == true || families[mapped]?.contains(to.destination) == true else {
                return .replaced(detail: "destination \(from.destination) → \(to.destination)")
            }
            return .carried(matched)
        case (.attribute, .relationship):
            return .replaced(detail: "an attribute becomes a relationship")
        case (.relationship, .attribute):
            return .replaced(detail: "a relationship becomes an attribute")
        }
    }

    /// A plan per source entity that has records; in a step without a custom stage, refuses
    /// properties whose change cannot be carried (the plan refuses them first, from the diff;
    /// this keeps an inferred step from ever dropping values).
    func recordPlans() throws(StrataError) -> [String: RecordPlan] {
        if !step.isCustom {
            var problems: [String] = []
            for entity in destination.entities where step.diff.sourceEntity(of: entity.name) != nil {
                let properties = entity.attributes.map(PropertyDescription.attribute) + entity.relationships.map(PropertyDescription.relationship)
                for property in properties {
                    if case .replaced(let detail) = carriage(of: property, in: entity) {
                        problems.append("\(entity.name).\(property.name): \(detail) cannot be inferred; give the step a custom stage (MigrationStage.custom), or change the model")
                    }
                }
            }
            if !problems.isEmpty { throw Self.refusal(step, problems) }
        }
        var plans: [String: RecordPlan] = [:]
        for sourceName in contents.records.keys {
            guard let sourceEntity = source.entity(named: sourceName),
                  let entity = entityMap[sourceName].flatMap(destination.entity(named:)) else { continue }
            plans[sourceName] = plan(from: sourceEntity, to: entity)
        }
        return plans
    }

    private func plan(from sourceEntity: EntityDescription, to entity: EntityDescription) -> RecordPlan {
        var attributes: [AttributeSource] = []
        for name in entity.attributeLayout.names {
            let attribute = entity.attribute(named: name)!
            guard !attribute.isTransient else {
                attributes.append(.initial(nil))
                continue
            }
            if case .carried(let matched) = carriage(of: .attribute(attribute), in: entity), case .attribute(let from) = matched {
                attributes.append(.carried(
                    name: from.name, position: sourceEntity.attributeLayout.position(of: from.name),
                    widensFloat: from.type == .float && attribute.type == .double,
                    fill: attribute.isOptional ? nil : attribute.defaultValue))
            } else {
                attributes.append(.initial(attribute.defaultValue))
            }
        }
        let relationships = entity.relationships.map { relationship in
            var from: RelationshipDescription?
            if case .carried(let matched) = carriage(of: .relationship(relationship), in: entity), case .relationship(let source) = matched {
                from = source
            }
            return RelationshipSource(relationship: relationship, source: from, family: families[relationship.destination] ?? [])
        }
        return RecordPlan(entity: entity, sourceLayout: sourceEntity.attributeLayout, attributes: attributes, relationships: relationships)
    }

    /// Every record in its destination form, by destination entity.
    /// - Throws: `migrationRefused` naming the objects (by their source IDs) whose to-many
    ///   becomes a to-one while holding more than one member, or whose relationship's
    ///   destination became a subentity while they refer to other objects.
    func transformRecords(_ plans: [String: RecordPlan]) throws(StrataError) -> [String: [ObjectID: StoreRecord]] {
        var result: [String: [ObjectID: StoreRecord]] = [:]
        var crowded: [String: [ObjectID]] = [:]
        var misfits: [String: [ObjectID]] = [:]
        for (sourceName, records) in contents.records {
            guard let plan = plans[sourceName], !records.isEmpty else { continue }
            var transformed = result[plan.entity.name] ?? [:]
            transformed.reserveCapacity(transformed.count + records.count)
            for (id, record) in records {
                guard let newID = map(id) else { continue }
                var next = StoreRecord(objectID: newID, attributes: attributes(of: record, plan), version: record.version)
                for relationship in plan.relationships {
                    guard let from = relationship.source else { continue }
                    let stored = from.isToMany ? record.toMany[from.name] ?? [] : record.toOne[from.name].map { [$0] } ?? []
                    let mapped = stored.compactMap(map)
                    var members = mapped.filter { relationship.family.contains($0.entityName) }
                    let to = relationship.relationship
                    // Members left out because the destination became a subentity are refused;
                    // those of an entity that left the destination's hierarchy are dropped.
                    if members.count != mapped.count, entityMap[from.destination] != to.destination {
                        misfits["\(plan.entity.name).\(to.name) now refers to \(to.destination) objects only", default: []].append(id)
                        continue
                    }
                    if to.isToMany {
                        if to.isOrdered && !from.isOrdered { members.sort(by: Self.byKey) }
                        if !members.isEmpty { next.toMany[to.name] = members }
                    } else if members.count > 1 {
                        crowded["\(plan.entity.name).\(to.name)", default: []].append(id)
                    } else if let member = members.first {
                        next.toOne[to.name] = member
                    }
                }
                transformed[newID] = next
            }
            result[plan.entity.name] = transformed
        }
        if !crowded.isEmpty || !misfits.isEmpty {
            throw Self.refusal(step, crowded.keys.sorted().map { path in
                let ids = crowded[path]!.sorted()
                return "\(path) becomes to-one, but \(Self.count(ids.count, "object")) \(ids.count == 1 ? "has" : "have") more than one member: \(Self.list(ids, Self.name)) (keep at most one in a custom stage's willMigrate)"
            } + misfits.keys.sorted().map { change in
                let ids = misfits[change]!.sorted()
                return "\(change), but \(Self.count(ids.count, "object")) \(ids.count == 1 ? "refers" : "refer") to others: \(Self.list(ids, Self.name)) (change or clear them in a custom stage's willMigrate)"
            })
        }
        return result
    }

    private func attributes(of record: StoreRecord, _ plan: RecordPlan) -> AttributeValues {
        var values = AttributeValues(layout: plan.entity.attributeLayout)
        let isSourceLayout = record.attributes.layout === plan.sourceLayout
        for (position, source) in plan.attributes.enumerated() {
            switch source {
            case .initial(let value):
                values[position: position] = value
            case .carried(let name, let sourcePosition, let widensFloat, let fill):
                var value = isSourceLayout && sourcePosition != nil ? record.attributes[position: sourcePosition!] : record.attributes[name]
                if widensFloat, case .float(let number)? = value { value = .double(Double(number)) }
                values[position: position] = value ?? fill
            }
        }
        return values
    }

    /// Orders objects by primary key (then entity): the order of an ordered relationship's
    /// members that had none.
    static func byKey(_ lhs: ObjectID, _ rhs: ObjectID) -> Bool {
        (lhs.primaryKey ?? 0, lhs.entityName) < (rhs.primaryKey ?? 0, rhs.entityName)
    }
}
