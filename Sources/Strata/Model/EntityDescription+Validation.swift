extension EntityDescription {
    /// Appends the rules of this entity's stored attributes that `values` break — a required
    /// value missing, a range, a length, a pattern — as a save reports them for `objectID`.
    package func attributeFailures(of values: AttributeValues, objectID: ObjectID, into failures: inout [ValidationFailure]) {
        // Most objects pass: the loop only reads values.
        let plan = validatedAttributes
        for step in plan.indices {
            let position = plan[step].position
            if plan[step].hasRules {
                guard let value = values[position: position] else {
                    if !plan[step].isOptional { failures.append(Self.missingValue(objectID, attributes[plan[step].index].name)) }
                    continue
                }
                if let range = plan[step].integerRange, case .integer(let integer) = value, range.contains(integer) { continue }
                let attribute = attributes[plan[step].index]
                if let violation = AttributeRules.violation(of: value, for: attribute) {
                    failures.append(ValidationFailure(code: violation.code, objectID: objectID, key: attribute.name, message: violation.message))
                }
            } else if !plan[step].isOptional, values.isNil(at: position) {
                failures.append(Self.missingValue(objectID, attributes[plan[step].index].name))
            }
        }
    }

    private static func missingValue(_ objectID: ObjectID, _ key: String) -> ValidationFailure {
        ValidationFailure(code: .missingValue, objectID: objectID, key: key, message: "a value is required (the attribute is not optional)")
    }

    /// The failure of a to-many relationship whose member count is out of its bounds, if it is.
    package static func countFailure(of relationship: RelationshipDescription, count: Int, objectID: @autoclosure () -> ObjectID) -> ValidationFailure? {
        if relationship.minCount > 0, count < relationship.minCount {
            return ValidationFailure(code: .tooFewObjects, objectID: objectID(), key: relationship.name,
                                     message: "has \(count) object\(count == 1 ? "" : "s"), fewer than the minimum \(relationship.minCount)")
        }
        if relationship.maxCount > 0, count > relationship.maxCount {
            return ValidationFailure(code: .tooManyObjects, objectID: objectID(), key: relationship.name,
                                     message: "has \(count) objects, more than the maximum \(relationship.maxCount)")
        }
        return nil
    }

    /// The failure of a required to-one relationship left empty.
    package static func missingDestination(of relationship: RelationshipDescription, objectID: ObjectID) -> ValidationFailure {
        ValidationFailure(code: .missingValue, objectID: objectID, key: relationship.name,
                          message: "a \(relationship.destination) is required (the relationship is not optional)")
    }
}
