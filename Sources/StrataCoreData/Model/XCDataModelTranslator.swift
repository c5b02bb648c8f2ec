internal import Foundation
internal import Strata

/// Turns the element tree of one Xcode model into the JSON of a Strata model file, then loads
/// that JSON as any model file is loaded, so that the result obeys exactly the rules of
/// hand-written models. Each diagnostic of that load is placed back on the XML element it came
/// from (file, line, column, element name).
struct XCDataModelTranslator {
    /// Where a part of the generated model came from.
    struct Place {
        var line: Int
        var column: Int
        /// How messages name the element: `attribute 'Car.color'`.
        var label: String
        /// The JSON path of the part in the generated (and canonical) model.
        var path: String
    }

    struct AttributeDraft {
        var name: String
        var members: [JSONMember]
        var place: Place
    }

    struct RelationshipDraft {
        var name: String
        var destination: String
        var inverse: String?
        /// Every member but `inverse`, which is settled once every relationship is known.
        var members: [JSONMember]
        var place: Place
    }

    struct IndexDraft {
        /// The `fetchIndex`'s own name; nil for compound indexes and indexed to-one relationships.
        var givenName: String?
        var elements: [(property: String, order: String)]
        var place: Place
    }

    struct EntityDraft {
        var name: String
        var parent: String?
        var isAbstract = false
        var renamingIdentifier: String?
        var versionHashModifier: String?
        var attributes: [AttributeDraft] = []
        var relationships: [RelationshipDraft] = []
        var uniquenessConstraints: [(names: [String], place: Place)] = []
        var indexes: [IndexDraft] = []
        var place: Place
    }

    let file: String?
    /// Problems found while translating, warnings and errors, in document order.
    var diagnostics: [Diagnostic] = []
    var entities: [EntityDraft] = []
    var configurations: [(name: String, entities: [String], place: Place)] = []
    /// Relationships left out (transient ones), as `Entity.name`: an inverse naming one is dropped.
    var droppedRelationships: Set<String> = []
    var modelPlace = Place(line: 1, column: 1, label: "the model", path: "")

    // MARK: - Importing

    static func importModel(_ data: Data, versionName: String, file: String?, modelName: String) throws(SchemaError) -> ImportedModel {
        let root: ModelXMLElement
        switch ModelXMLDocument.parse(data) {
        case .success(let element): root = element
        case .failure(let error):
            throw SchemaError(code: .invalidSchema, file: file, diagnostics: [Diagnostic(
                severity: .error, code: "notAModel",
                message: error.message.hasPrefix("malformed XML") ? "\(error.message); an Xcode model file is XML" : error.message,
                path: "", file: file, location: SourceLocation(line: error.line, column: error.column))])
        }
        guard root.name == "model" else {
            throw SchemaError(code: .invalidSchema, file: file, diagnostics: [Diagnostic(
                severity: .error, code: "notAModel",
                message: "the root element is <\(root.name)>, expected <model>: this is not an Xcode data model (the 'contents' file of a .xcdatamodel)",
                path: "", file: file, location: SourceLocation(line: root.line, column: root.column))])
        }
        var translator = XCDataModelTranslator(file: file)
        let json = translator.translate(root, modelName: root.nonEmpty("name") ?? modelName)
        if translator.diagnostics.hasErrors {
            throw SchemaError(code: .invalidSchema, file: file, diagnostics: translator.sorted(translator.diagnostics))
        }
        let result = Schema.load(data: Data(JSONWriter().string(from: json).utf8), file: nil)
        let loaded = result.diagnostics.map(translator.placed)
        let all = translator.sorted(translator.diagnostics + loaded)
        guard let schema = result.schema else {
            throw SchemaError(code: .invalidSchema, file: file, diagnostics: all)
        }
        return ImportedModel(versionName: versionName, file: file ?? versionName, schema: schema, warnings: all)
    }

    // MARK: - Diagnostics

    mutating func warn(_ code: String, _ message: String, at place: Place) {
        diagnostics.append(diagnostic(.warning, code, message, place))
    }

    mutating func error(_ code: String, _ message: String, at place: Place) {
        diagnostics.append(diagnostic(.error, code, message, place))
    }

    private func diagnostic(_ severity: Diagnostic.Severity, _ code: String, _ message: String, _ place: Place) -> Diagnostic {
        Diagnostic(
            severity: severity, code: code, message: message, path: place.path, file: file,
            location: SourceLocation(line: place.line, column: place.column))
    }

    /// A diagnostic of the generated JSON, placed on the XML element its path leads to.
    private func placed(_ diagnostic: Diagnostic) -> Diagnostic {
        let place = self.place(forPath: diagnostic.path)
        var result = diagnostic
        result.file = file
        result.line = place.line
        result.column = place.column
        // The label names the element unless the message does already.
        if !diagnostic.message.contains(place.label.drop { $0 != "'" }) {
            result.message = "\(place.label): \(diagnostic.message)"
        }
        return result
    }

    /// The place of the deepest part of the generated model that `path` names.
    private func place(forPath path: String) -> Place {
        let parts = Self.pathIndexes(path)
        guard let (first, firstIndex) = parts.first else { return modelPlace }
        if first == "configurations", configurations.indices.contains(firstIndex) { return configurations[firstIndex].place }
        guard first == "entities", entities.indices.contains(firstIndex) else { return modelPlace }
        let entity = entities[firstIndex]
        guard parts.count > 1 else { return entity.place }
        let (member, index) = parts[1]
        switch member {
        case "attributes" where entity.attributes.indices.contains(index): return entity.attributes[index].place
        case "relationships" where entity.relationships.indices.contains(index): return entity.relationships[index].place
        case "indexes" where entity.indexes.indices.contains(index): return entity.indexes[index].place
        case "uniquenessConstraints" where entity.uniquenessConstraints.indices.contains(index): return entity.uniquenessConstraints[index].place
        default: return entity.place
        }
    }

    /// `entities[2].attributes[0].default` → [("entities", 2), ("attributes", 0)].
    private static func pathIndexes(_ path: String) -> [(String, Int)] {
        var result: [(String, Int)] = []
        for component in path.split(separator: ".") {
            guard let open = component.firstIndex(of: "["), let close = component.firstIndex(of: "]"),
                  let index = Int(component[component.index(after: open)..<close])
            else { break }
            result.append((String(component[..<open]), index))
        }
        return result
    }

    /// Diagnostics by line and column (a stable sort: same place, original order).
    private func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let left = (a.element.line ?? 0, a.element.column ?? 0, a.offset)
            let right = (b.element.line ?? 0, b.element.column ?? 0, b.offset)
            return left < right
        }.map(\.element)
    }

    func place(of element: ModelXMLElement, _ label: String, path: String) -> Place {
        Place(line: element.line, column: element.column, label: label, path: path)
    }

    // MARK: - The model

    private mutating func translate(_ root: ModelXMLElement, modelName: String) -> JSONValue {
        modelPlace = place(of: root, "the model", path: "")
        let name = Self.strataModelName(modelName)
        if name != modelName {
            warn(
                "modelRenamed",
                "the model is named '\(name)' after '\(modelName)': Strata model names start with an upper-case letter and use only ASCII letters, digits and '_'",
                at: Place(line: root.line, column: root.column, label: "the model", path: "name"))
        }
        ignoreOrWarnAttributes(
            of: root, handled: ["name", "userDefinedModelVersionIdentifier"],
            silent: [
                "type", "documentVersion", "lastSavedToolsVersion", "systemVersion", "minimumToolsVersion", "sourceLanguage",
                "macOSVersion", "iOSVersion", "tvOSVersion", "watchOSVersion",
            ],
            at: modelPlace)
        for child in root.children {
            switch child.name {
            case "entity":
                translateEntity(child)
            case "configuration":
                translateConfiguration(child)
            case "fetchRequest":
                let entity = child.nonEmpty("entity").map { " of entity '\($0)'" } ?? ""
                let predicate = child.nonEmpty("predicateString").map { " where \($0)" } ?? ""
                warn(
                    "fetchRequestTemplate",
                    "fetch request template '\(child["name"] ?? "?")'\(entity)\(predicate) is not imported: Strata models hold no stored fetch requests; build the FetchRequest in code",
                    at: place(of: child, "the model", path: ""))
            case "elements":
                break // the diagram's layout
            case "composite", "compositeAttribute":
                warn(
                    "compositeAttribute",
                    "composite attribute type '\(child["name"] ?? "?")' is not imported: Strata has no composite attributes; model its fields as attributes of the entities that use it",
                    at: place(of: child, "the model", path: ""))
            default:
                warnUnknown(child, in: "<model>", at: modelPlace)
            }
        }
        finishRelationships()
        let indexNames = assignIndexNames()

        var members: [JSONMember] = []
        members.add("name", .string(name))
        members.add("version", root.nonEmpty("userDefinedModelVersionIdentifier").map(JSONValue.string))
        members.add("entities", .array(entities.enumerated().map { position, entity in
            encode(entity, indexNames: indexNames[position])
        }))
        if !configurations.isEmpty {
            members.add("configurations", .array(configurations.map { configuration in
                .object(["name": .string(configuration.name), "entities": .array(configuration.entities.map(JSONValue.string))])
            }))
        }
        return .object(members)
    }

    private func encode(_ entity: EntityDraft, indexNames: [String]) -> JSONValue {
        var members: [JSONMember] = []
        members.add("name", .string(entity.name))
        members.add("parent", entity.parent.map(JSONValue.string))
        if entity.isAbstract { members.add("abstract", .bool(true)) }
        if !entity.attributes.isEmpty {
            members.add("attributes", .array(entity.attributes.map { .object($0.members) }))
        }
        if !entity.relationships.isEmpty {
            members.add("relationships", .array(entity.relationships.map { relationship in
                var members = relationship.members
                if let inverse = relationship.inverse {
                    members.insert(JSONMember(key: "inverse", value: JSONNode(.string(inverse))), at: 2)
                }
                return .object(members)
            }))
        }
        if !entity.uniquenessConstraints.isEmpty {
            members.add("uniquenessConstraints", .array(entity.uniquenessConstraints.map { .array($0.names.map(JSONValue.string)) }))
        }
        if !entity.indexes.isEmpty {
            members.add("indexes", .array(zip(entity.indexes, indexNames).map { index, name in
                .object([
                    "name": .string(name),
                    "elements": .array(index.elements.map { element in
                        element.order == "descending"
                            ? .object(["property": .string(element.property), "order": .string("descending")])
                            : .object(["property": .string(element.property)])
                    }),
                ])
            }))
        }
        members.add("versionHashModifier", entity.versionHashModifier.map(JSONValue.string))
        members.add("renamingIdentifier", entity.renamingIdentifier.map(JSONValue.string))
        return .object(members)
    }

    /// A valid Strata model name made from a file name: `momcTests 2` → `MomcTests2`.
    static func strataModelName(_ raw: String) -> String {
        if ReservedNames.isValidEntityName(raw) { return raw }
        let words = raw.split { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) }
        var name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        name = String(name.drop { !($0.isASCII && $0.isLetter) })
        guard let first = name.first else { return "Model" }
        return first.uppercased() + name.dropFirst()
    }

    // MARK: - Entities

    private mutating func translateEntity(_ element: ModelXMLElement) {
        let entityPath = "entities[\(entities.count)]"
        guard let name = element.nonEmpty("name") else {
            return error("missingName", "an <entity> has no name", at: place(of: element, "an entity", path: entityPath))
        }
        let entityPlace = place(of: element, "entity '\(name)'", path: entityPath)
        var entity = EntityDraft(name: name, place: entityPlace)
        entity.parent = element.nonEmpty("parentEntity")
        entity.isAbstract = element.flag("isAbstract")
        entity.renamingIdentifier = element.nonEmpty("elementID") ?? element.nonEmpty("renamingIdentifier")
        entity.versionHashModifier = element.nonEmpty("versionHashModifier")
        ignoreOrWarnAttributes(
            of: element, handled: ["name", "parentEntity", "isAbstract", "elementID", "renamingIdentifier", "versionHashModifier"],
            silent: ["representedClassName", "codeGenerationType", "syncable"],
            at: entityPlace)
        entities.append(entity)
        let position = entities.count - 1
        for child in element.children {
            switch child.name {
            case "attribute":
                translateAttribute(child, entity: position)
            case "relationship":
                translateRelationship(child, entity: position)
            case "fetchedProperty":
                let request = child.children.first { $0.name == "fetchRequest" }
                let target = request?.nonEmpty("entity").map { " (a fetch of \($0)\(request?.nonEmpty("predicateString").map { " where \($0)" } ?? ""))" } ?? ""
                warn(
                    "fetchedProperty",
                    "fetched property '\(name).\(child["name"] ?? "?")'\(target) is not imported: Strata has no fetched properties; run the fetch in code",
                    at: place(of: child, entityPlace.label, path: entityPath))
            case "userInfo":
                warnUserInfo(child, of: entityPlace)
            case "compoundIndexes":
                for index in child.children {
                    guard index.name == "compoundIndex" else { warnUnknown(index, in: "<compoundIndexes>", at: entityPlace); continue }
                    for other in index.children where other.name != "index" { warnUnknown(other, in: "<compoundIndex>", at: entityPlace) }
                    let properties = index.children.filter { $0.name == "index" }.compactMap { $0.nonEmpty("value") }
                    addIndex(IndexDraft(
                        givenName: nil, elements: properties.map { ($0, "ascending") },
                        place: place(of: index, "compound index (\(properties.joined(separator: ", "))) of entity '\(name)'", path: entityPath)), to: position)
                }
            case "fetchIndex":
                translateFetchIndex(child, entity: position)
            case "uniquenessConstraints":
                for constraint in child.children {
                    guard constraint.name == "uniquenessConstraint" else { warnUnknown(constraint, in: "<uniquenessConstraints>", at: entityPlace); continue }
                    for other in constraint.children where other.name != "constraint" { warnUnknown(other, in: "<uniquenessConstraint>", at: entityPlace) }
                    let names = constraint.children.filter { $0.name == "constraint" }.compactMap { $0.nonEmpty("value") }
                    guard !names.isEmpty else { continue }
                    let path = "\(entityPath).uniquenessConstraints[\(entities[position].uniquenessConstraints.count)]"
                    entities[position].uniquenessConstraints.append((names, place(of: constraint, "uniqueness constraint (\(names.joined(separator: ", "))) of entity '\(name)'", path: path)))
                }
            default:
                warnUnknown(child, in: "entity '\(name)'", at: entityPlace)
            }
        }
    }

    private mutating func translateFetchIndex(_ element: ModelXMLElement, entity position: Int) {
        let entity = entities[position]
        let indexName = element["name"] ?? "?"
        let indexPlace = place(of: element, "fetch index '\(indexName)' of entity '\(entity.name)'", path: entity.place.path)
        var elements: [(String, String)] = []
        for child in element.children {
            guard child.name == "fetchIndexElement" else { warnUnknown(child, in: "fetch index '\(indexName)'", at: indexPlace); continue }
            guard let property = child.nonEmpty("property") else {
                let expression = child.nonEmpty("expression").map { " '\($0)'" } ?? ""
                warn("expressionIndex", "\(indexPlace.label): the element on expression\(expression) is not imported: Strata indexes hold properties only", at: indexPlace)
                continue
            }
            if let type = child.nonEmpty("type"), type != "Binary" {
                warn("indexType", "\(indexPlace.label): '\(property)' is imported into an ordinary index; Strata has no \(type) index", at: indexPlace)
            }
            elements.append((property, child["order"] == "descending" ? "descending" : "ascending"))
        }
        guard !elements.isEmpty else {
            return warn("emptyIndex", "\(indexPlace.label) is not imported: no element of it names a property", at: indexPlace)
        }
        addIndex(IndexDraft(givenName: element.nonEmpty("name"), elements: elements, place: indexPlace), to: position)
    }

    /// Adds an index unless the entity has one on the same elements already.
    mutating func addIndex(_ index: IndexDraft, to position: Int) {
        guard !index.elements.isEmpty else { return }
        let same = entities[position].indexes.contains { existing in
            existing.elements.map(\.property) == index.elements.map(\.property) && existing.elements.map(\.order) == index.elements.map(\.order)
        }
        guard !same else { return }
        var index = index
        index.place.path = "\(entities[position].place.path).indexes[\(entities[position].indexes.count)]"
        entities[position].indexes.append(index)
    }

    /// Index names, unique in the model as Strata requires: a fetch index keeps its own name
    /// when it can; the others are named after their entity and properties.
    private mutating func assignIndexNames() -> [[String]] {
        var used: Set<String> = []
        var names = entities.map { Array(repeating: "", count: $0.indexes.count) }
        func unique(_ base: String) -> String {
            var candidate = base
            var counter = 2
            while used.contains(candidate.lowercased()) {
                candidate = "\(base)_\(counter)"
                counter += 1
            }
            used.insert(candidate.lowercased())
            return candidate
        }
        // Given names first, so that a generated name never takes one.
        for (position, entity) in entities.enumerated() {
            for (slot, index) in entity.indexes.enumerated() {
                guard let given = index.givenName else { continue }
                if ReservedNames.isValidIdentifier(given), !used.contains(given.lowercased()) {
                    used.insert(given.lowercased())
                    names[position][slot] = given
                }
            }
        }
        for (position, entity) in entities.enumerated() {
            for (slot, index) in entity.indexes.enumerated() where names[position][slot].isEmpty {
                let name = unique(Self.identifier(([entity.name] + index.elements.map(\.property)).joined(separator: "_")))
                names[position][slot] = name
                if index.givenName != nil {
                    warn(
                        "indexRenamed",
                        "\(index.place.label) is named '\(name)': Strata index names are unique in a model and use only ASCII letters, digits and '_'",
                        at: index.place)
                }
            }
        }
        return names
    }

    /// `name` with every character an identifier cannot hold replaced by `_`.
    private static func identifier(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    // MARK: - Configurations

    private mutating func translateConfiguration(_ element: ModelXMLElement) {
        let path = "configurations[\(configurations.count)]"
        guard let name = element.nonEmpty("name") else {
            return error("missingName", "a <configuration> has no name", at: place(of: element, "a configuration", path: path))
        }
        let configurationPlace = place(of: element, "configuration '\(name)'", path: path)
        if element.flag("usedWithCloudKit") {
            warn("cloudKit", "configuration '\(name)' is used with CloudKit in Core Data; Strata does not sync with CloudKit", at: configurationPlace)
        }
        ignoreOrWarnAttributes(of: element, handled: ["name", "usedWithCloudKit"], silent: [], at: configurationPlace)
        var members: [String] = []
        for child in element.children {
            guard child.name == "memberEntity", let member = child.nonEmpty("name") else {
                warnUnknown(child, in: configurationPlace.label, at: configurationPlace)
                continue
            }
            members.append(member)
        }
        configurations.append((name, members, configurationPlace))
    }

    // MARK: - What has no place

    mutating func warnUserInfo(_ element: ModelXMLElement, of place: Place) {
        let keys = element.children.filter { $0.name == "entry" }.compactMap { $0["key"] }
        guard !keys.isEmpty else { return }
        warn(
            "userInfo",
            "the user info of \(place.label) (\(keys.map { String(reflecting: $0) }.joined(separator: ", "))) is not imported: Strata models hold no user info",
            at: Place(line: element.line, column: element.column, label: place.label, path: place.path))
    }

    mutating func warnUnknown(_ element: ModelXMLElement, in container: String, at place: Place) {
        warn(
            "unknownElement",
            "<\(element.name)> in \(container) is not imported: Strata does not know it",
            at: Place(line: element.line, column: element.column, label: place.label, path: place.path))
    }

    /// Warns about every attribute of `element` that is neither handled nor known to carry no
    /// model meaning (code generation, the diagram, sync services).
    mutating func ignoreOrWarnAttributes(of element: ModelXMLElement, handled: Set<String>, silent: Set<String>, at place: Place) {
        for (name, value) in element.attributes where !handled.contains(name) && !silent.contains(name) {
            warn("unknownSetting", "\(place.label): \(name)=\(String(reflecting: value)) is not imported: Strata has no such setting", at: place)
        }
    }
}

extension Array where Element == JSONMember {
    /// Appends `key: value` unless the value is nil.
    mutating func add(_ key: String, _ value: JSONValue?) {
        guard let value else { return }
        append(JSONMember(key: key, value: JSONNode(value)))
    }
}
