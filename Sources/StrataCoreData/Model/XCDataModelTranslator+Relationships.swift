internal import Strata

extension XCDataModelTranslator {
    /// Xcode's `deletionRule` names.
    static let deleteRules: [String: DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]

    static let handledRelationshipSettings: Set<String> = [
        "name", "destinationEntity", "inverseName", "inverseEntity", "toMany", "ordered", "optional", "minCount",
        "maxCount", "deletionRule", "elementID", "renamingIdentifier", "versionHashModifier", "transient", "indexed",
    ]

    mutating func translateRelationship(_ element: ModelXMLElement, entity position: Int) {
        let entity = entities[position]
        guard let name = element.nonEmpty("name") else {
            return error("missingName", "a <relationship> of entity '\(entity.name)' has no name", at: place(of: element, entity.place.label, path: entity.place.path))
        }
        let label = "relationship '\(entity.name).\(name)'"
        let relationshipPlace = place(of: element, label, path: "\(entity.place.path).relationships[\(entity.relationships.count)]")
        guard let destination = element.nonEmpty("destinationEntity") else {
            return error("missingDestination", "\(label) has no destination entity", at: relationshipPlace)
        }
        if element.flag("transient") {
            droppedRelationships.insert("\(entity.name).\(name)")
            return warn(
                "transientRelationship",
                "transient \(label) is not imported: Strata relationships are always stored (an inverse naming it is dropped too)",
                at: place(of: element, label, path: entity.place.path))
        }
        let isToMany = element.flag("toMany")
        let isOptional = element.flag("optional")
        let minCount = count(element, "minCount", label: label, at: relationshipPlace)
        let maxCount = count(element, "maxCount", label: label, at: relationshipPlace)

        var members: [JSONMember] = []
        members.add("name", .string(name))
        members.add("destination", .string(destination))
        if isToMany {
            members.add("toMany", .bool(true))
            if element.flag("ordered") { members.add("ordered", .bool(true)) }
            // Core Data checks the counts of an optional relationship only when it is not empty,
            // and requires a non-optional to-many to hold at least one object. Strata's minCount
            // holds always, so a required to-many gets at least 1 and an optional one none.
            var lowerBound = minCount
            if isOptional {
                if minCount > 1 {
                    warn(
                        "minCountDropped",
                        "\(label) is optional with a minimum count of \(minCount): Core Data allows it to be empty or to hold at least \(minCount), which a Strata model cannot say; imported without a minimum",
                        at: relationshipPlace)
                }
                lowerBound = 0
            } else {
                lowerBound = max(minCount, 1)
            }
            if lowerBound > 0 { members.add("minCount", .number(String(lowerBound))) }
            if maxCount > 0 { members.add("maxCount", .number(String(maxCount))) }
        } else {
            if isOptional { members.add("optional", .bool(true)) }
            if element.flag("ordered") {
                warn("ignoredSetting", "\(label): 'ordered' has no meaning for a to-one relationship and is not imported", at: relationshipPlace)
            }
        }
        let ruleName = element.nonEmpty("deletionRule") ?? "Nullify"
        guard let rule = Self.deleteRules[ruleName] else {
            return error(
                "invalidValue",
                "\(label) has deletionRule \(String(reflecting: ruleName)), which Strata cannot represent; use Nullify, Cascade, Deny or No Action",
                at: relationshipPlace)
        }
        if rule != .nullify { members.add("deleteRule", .string(rule.rawValue)) }
        members.add("renamingIdentifier", (element.nonEmpty("elementID") ?? element.nonEmpty("renamingIdentifier")).map(JSONValue.string))
        members.add("versionHashModifier", element.nonEmpty("versionHashModifier").map(JSONValue.string))

        if element.flag("indexed") {
            if isToMany {
                warn("ignoredSetting", "\(label): 'indexed' has no meaning for a to-many relationship and is not imported", at: relationshipPlace)
            } else {
                addIndex(IndexDraft(givenName: nil, elements: [(name, "ascending")], place: relationshipPlace), to: position)
            }
        }
        for (setting, meaning) in Self.platformFlags where element.flag(setting) {
            warn("unsupportedSetting", "\(label): \(meaning) (\(setting)=\"YES\") is not imported: Strata has no such setting", at: relationshipPlace)
        }
        ignoreOrWarnAttributes(
            of: element, handled: Self.handledRelationshipSettings.union(Self.platformFlags.map(\.setting)),
            silent: Self.codeGenerationSettings, at: relationshipPlace)
        for child in element.children {
            if child.name == "userInfo" { warnUserInfo(child, of: relationshipPlace) } else { warnUnknown(child, in: label, at: relationshipPlace) }
        }
        entities[position].relationships.append(RelationshipDraft(
            name: name, destination: destination, inverse: element.nonEmpty("inverseName"), members: members, place: relationshipPlace))
    }

    private mutating func count(_ element: ModelXMLElement, _ key: String, label: String, at place: Place) -> Int {
        guard let text = element.nonEmpty(key) else { return 0 }
        guard let value = Int(text), value >= 0 else {
            error("invalidValue", "\(label): \(key)=\(String(reflecting: text)) is not a count (a whole number of at least 0)", at: place)
            return 0
        }
        return value
    }

    /// Drops each inverse that names a relationship left out of the model (a transient one,
    /// declared by the destination or one of its ancestors).
    mutating func finishRelationships() {
        guard !droppedRelationships.isEmpty else { return }
        var parents: [String: String] = [:]
        for entity in entities { parents[entity.name] = entity.parent }
        for position in entities.indices {
            for slot in entities[position].relationships.indices {
                let relationship = entities[position].relationships[slot]
                guard let inverse = relationship.inverse else { continue }
                var owner: String? = relationship.destination
                var steps = 0
                while let current = owner, steps <= entities.count {
                    if droppedRelationships.contains("\(current).\(inverse)") {
                        entities[position].relationships[slot].inverse = nil
                        break
                    }
                    owner = parents[current]
                    steps += 1
                }
            }
        }
    }
}
