public import Foundation
public import Strata

/// A model inferred from a Core Data XML store alone, from the `type` attributes Core Data
/// writes on every element, for reading a store whose model is not at hand.
///
/// What the file tells, and so what is inferred:
/// - entities: one per `<object type>` and per relationship `destination`; their names take
///   their case from the keys of `NSStoreModelVersionHashes` in the metadata where one matches,
///   else stay as written (upper case);
/// - attributes, with their types, from `<attribute name type>` (`transformable` ones as
///   `binary`: the transformer is not in the file); every attribute is optional;
/// - relationships from `<relationship name type destination>`: to-one when `type` is `n/1`
///   (optional: Core Data writes `1/1` for optional to-ones too), else to-many with the minimum
///   and maximum counts `type` gives;
/// - subentities: an object referenced through a relationship whose destination is another
///   entity belongs to a subentity of it;
/// - inverses, matched by destination: a relationship's inverse is the one relationship of its
///   destination that points back, when that is unique both ways and the objects on both sides
///   agree.
///
/// What it cannot tell (``notes`` lists what applies): the model's case of property names
/// (Core Data writes them lower-cased), attributes no object has a value for (Core Data omits
/// nil values), defaults, validation rules, indexes, uniqueness constraints, abstract
/// entities, delete rules (nullify), ordered to-many relationships (read as unordered, so dumps
/// list members by key), transformers. Pass the real model (`--schema`) to read those right.
public struct CoreDataXMLSchemaInference: Sendable {
    /// The inferred model.
    public let schema: Schema
    /// What was inferred with a guess, and what could not be inferred, one sentence each.
    public let notes: [String]

    /// Infers a model from the Core Data XML store at `url`.
    /// - Throws: `corruptStore` when the file is not a readable Core Data XML store, or its
    ///   elements contradict each other (one attribute with two types, references that make no
    ///   hierarchy) so that no model fits; the message names the element and its line.
    public static func infer(fromStoreAt url: URL) throws(StrataError) -> CoreDataXMLSchemaInference {
        try infer(from: CoreDataXMLParser.read(path: url.path))
    }

    static func infer(from document: CoreDataXMLDocument) throws(StrataError) -> CoreDataXMLSchemaInference {
        var inference = Inference(document: document)
        return try inference.run()
    }
}

/// The work of one inference.
private struct Inference {
    typealias Document = CoreDataXMLDocument
    let document: Document
    var notes: [String] = []

    /// Entity names as the model will spell them, by folded name.
    var names: [String: String] = [:]
    /// Each entity's ancestors (folded names), nearest or not.
    var ancestors: [String: Set<String>] = [:]
    var parents: [String: String] = [:]

    struct Attribute {
        var name: String
        var type: AttributeType
        var position: Document.Position
    }

    struct Relationship {
        var name: String
        var destination: String
        var isToMany: Bool
        var minCount: Int
        var maxCount: Int
        var position: Document.Position
        var inverse: String?
    }

    /// What the objects of each entity hold (by folded entity name, then folded property name).
    var attributes: [String: [String: Attribute]] = [:]
    var relationships: [String: [String: Relationship]] = [:]

    init(document: Document) {
        self.document = document
    }

    mutating func run() throws(StrataError) -> CoreDataXMLSchemaInference {
        nameEntities()
        try inferHierarchy()
        try collectProperties()
        try declareOnce()
        matchInverses()
        notes.insert(contentsOf: [
            "attribute and relationship names are as the file writes them, which Core Data lower-cases; the model's own case cannot be recovered",
            "every attribute is optional and has no default, and an attribute that no object has a value for is missing (Core Data leaves nil values out)",
            "to-one relationships are optional and every delete rule is nullify; to-many relationships are unordered (the file does not say which are ordered), so their members are listed by key",
        ], at: 0)
        let schema: Schema
        do throws(SchemaError) {
            schema = try Schema(name: Self.modelName(forFile: document.path), entities: entityDescriptions())
        } catch {
            throw StrataError(
                .corruptStore,
                "no Strata model can be inferred from the file's elements; pass the store's model with --schema:\n\(error.description)",
                file: document.path)
        }
        return CoreDataXMLSchemaInference(schema: schema, notes: notes)
    }

    // MARK: - Entities and their hierarchy

    private mutating func nameEntities() {
        let known = Dictionary(document.info.entityNames.map { (Document.folded($0), $0) }, uniquingKeysWith: { first, _ in first })
        var recovered = false
        func add(_ written: String) {
            let key = Document.folded(written)
            guard names[key] == nil else { return }
            if let name = known[key] {
                names[key] = name
                recovered = recovered || name != written
            } else {
                names[key] = written
            }
        }
        for object in document.objects {
            add(object.type)
            for relationship in object.relationships { add(relationship.destination) }
        }
        if recovered {
            notes.append("entity names take their case from the keys of NSStoreModelVersionHashes in the store's metadata (the file writes them upper-cased)")
        }
    }

    /// Subentities, from references to objects of another entity than a relationship's
    /// destination: the destination is an ancestor of theirs.
    private mutating func inferHierarchy() throws(StrataError) {
        let index = try document.objectIndex()
        for object in document.objects {
            for relationship in object.relationships {
                let destination = Document.folded(relationship.destination)
                for reference in relationship.idrefs {
                    guard let target = index[reference] else {
                        throw document.error(
                            "<relationship name=\"\(relationship.name)\"> of \(document.describe(object)) refers to '\(reference)', but no object has that id",
                            at: relationship.position)
                    }
                    let entity = Document.folded(document.objects[target].type)
                    if entity != destination { ancestors[entity, default: []].insert(destination) }
                }
            }
        }
        // Ancestors of ancestors.
        var changed = true
        while changed {
            changed = false
            for (entity, known) in ancestors {
                var all = known
                for ancestor in known { all.formUnion(ancestors[ancestor] ?? []) }
                if all != known {
                    ancestors[entity] = all
                    changed = true
                }
            }
        }
        for (entity, known) in ancestors.sorted(by: { $0.key < $1.key }) {
            guard !known.contains(entity) else {
                throw document.error("the objects' references make \(names[entity]!) a subentity of itself (through \(known.sorted().compactMap { names[$0] }.joined(separator: ", "))); no model fits; pass the store's model with --schema")
            }
            let nearest = known.filter { candidate in known.subtracting([candidate]) == (ancestors[candidate] ?? []) }
            guard nearest.count == 1, let parent = nearest.first else {
                throw document.error(
                    "objects of \(names[entity]!) are referenced as \(known.sorted().compactMap { names[$0] }.joined(separator: " and as ")), which are not seen in one line of inheritance; the hierarchy cannot be inferred; pass the store's model with --schema")
            }
            parents[entity] = parent
            notes.append("\(names[entity]!) is taken for a subentity of \(names[parent]!): objects of \(names[entity]!) are members of relationships whose destination is \(names[parent]!)")
        }
    }

    /// Ancestors first.
    private var entitiesInOrder: [String] {
        names.keys.sorted { (ancestors[$0]?.count ?? 0, names[$0]!) < (ancestors[$1]?.count ?? 0, names[$1]!) }
    }

    // MARK: - Properties

    private mutating func collectProperties() throws(StrataError) {
        var transformable: Set<String> = []
        var widened: Set<String> = []
        for object in document.objects {
            let entity = Document.folded(object.type)
            for attribute in object.attributes {
                guard let written = Document.attributeType(attribute.type) else {
                    throw document.error(
                        "<attribute name=\"\(attribute.name)\"> of \(document.describe(object)) has type=\"\(attribute.type)\", which is not a Core Data attribute type (\(Document.typeNames))",
                        at: attribute.position)
                }
                let type: AttributeType = written == .transformable ? .binary : written
                if written == .transformable { transformable.insert("\(names[entity]!).\(attribute.name)") }
                let key = Document.folded(attribute.name)
                if relationships[entity]?[key] != nil { throw clash(attribute.name, entity, attribute.position) }
                guard let existing = attributes[entity]?[key] else {
                    attributes[entity, default: [:]][key] = Attribute(name: attribute.name, type: type, position: attribute.position)
                    continue
                }
                if existing.type == type { continue }
                guard existing.type.isInteger && type.isInteger else {
                    throw document.error(
                        "<attribute name=\"\(attribute.name)\"> of \(document.describe(object)) has type=\"\(attribute.type)\", but the attribute has type \(existing.type.rawValue) at line \(existing.position.line); one attribute cannot have two types",
                        at: attribute.position)
                }
                widened.insert("\(names[entity]!).\(attribute.name)")
                if type.widens(to: existing.type) { continue }
                attributes[entity]![key]!.type = type
            }
            for relationship in object.relationships {
                guard let counts = relationship.counts else {
                    throw document.error(
                        "<relationship name=\"\(relationship.name)\"> of \(document.describe(object)) has type=\"\(relationship.type)\"; Core Data writes a relationship's minimum and maximum count, like 1/1 (to-one) or 0/0 (to-many)",
                        at: relationship.position)
                }
                let key = Document.folded(relationship.name)
                if attributes[entity]?[key] != nil { throw clash(relationship.name, entity, relationship.position) }
                let inferred = Relationship(
                    name: relationship.name, destination: Document.folded(relationship.destination), isToMany: counts.max != 1,
                    minCount: counts.max != 1 ? counts.min : 0, maxCount: counts.max != 1 ? counts.max : 0,
                    position: relationship.position)
                guard let existing = relationships[entity]?[key] else {
                    relationships[entity, default: [:]][key] = inferred
                    continue
                }
                guard existing.destination == inferred.destination, existing.isToMany == inferred.isToMany,
                      existing.minCount == inferred.minCount, existing.maxCount == inferred.maxCount
                else {
                    throw document.error(
                        "<relationship name=\"\(relationship.name)\"> of \(document.describe(object)) has type=\"\(relationship.type)\" destination=\"\(relationship.destination)\", which differs from the same relationship at line \(existing.position.line)",
                        at: relationship.position)
                }
            }
        }
        if !transformable.isEmpty {
            notes.append("transformable attributes are read as binary (their value transformer is not in the file): \(transformable.sorted().joined(separator: ", "))")
        }
        if !widened.isEmpty {
            notes.append("integer attributes written with several widths take the widest: \(widened.sorted().joined(separator: ", "))")
        }
    }

    private func clash(_ name: String, _ entity: String, _ position: Document.Position) -> StrataError {
        document.error("'\(name)' of \(names[entity]!) is written both as an attribute and as a relationship", at: position)
    }

    /// Leaves each property on the highest entity whose objects show it: a subentity inherits
    /// what an ancestor declares.
    private mutating func declareOnce() throws(StrataError) {
        for entity in entitiesInOrder {
            for ancestor in ancestors[entity] ?? [] {
                for (key, attribute) in attributes[entity] ?? [:] {
                    guard let inherited = attributes[ancestor]?[key] else { continue }
                    guard inherited.type == attribute.type || (inherited.type.isInteger && attribute.type.isInteger) else {
                        throw document.error(
                            "attribute '\(attribute.name)' of \(names[entity]!) has type \(attribute.type.rawValue), but \(names[ancestor]!) (taken for its ancestor) has it with type \(inherited.type.rawValue)",
                            at: attribute.position)
                    }
                    if attribute.type.isInteger, inherited.type.widens(to: attribute.type) { attributes[ancestor]![key]!.type = attribute.type }
                    attributes[entity]![key] = nil
                }
                for (key, relationship) in relationships[entity] ?? [:] {
                    guard let inherited = relationships[ancestor]?[key] else { continue }
                    guard inherited.destination == relationship.destination, inherited.isToMany == relationship.isToMany else {
                        throw document.error(
                            "relationship '\(relationship.name)' of \(names[entity]!) differs from the one of \(names[ancestor]!), which is taken for its ancestor",
                            at: relationship.position)
                    }
                    relationships[entity]![key] = nil
                }
                for (key, relationship) in relationships[entity] ?? [:] where attributes[ancestor]?[key] != nil {
                    throw clash(relationship.name, entity, relationship.position)
                }
                for (key, attribute) in attributes[entity] ?? [:] where relationships[ancestor]?[key] != nil {
                    throw clash(attribute.name, entity, attribute.position)
                }
            }
        }
    }

    // MARK: - Inverses

    private mutating func matchInverses() {
        var unmatched: [String] = []
        var byOwner: [(owner: String, key: String)] = []
        for (owner, declared) in relationships { for key in declared.keys { byOwner.append((owner, key)) } }
        byOwner.sort { ($0.owner, $0.key) < ($1.owner, $1.key) }
        func candidates(_ owner: String, _ key: String) -> [String] {
            let destination = relationships[owner]![key]!.destination
            return (relationships[destination] ?? [:]).filter { candidate in
                candidate.value.destination == owner && !(destination == owner && candidate.key == key)
            }.map(\.key).sorted()
        }
        for (owner, key) in byOwner where relationships[owner]![key]!.inverse == nil {
            let relationship = relationships[owner]![key]!
            let label = "\(names[owner]!).\(relationship.name)"
            let found = candidates(owner, key)
            guard found.count == 1, let inverseKey = found.first else {
                unmatched.append(found.isEmpty
                    ? "\(label) (\(names[relationship.destination]!) has no relationship back to \(names[owner]!))"
                    : "\(label) (\(names[relationship.destination]!) has \(found.count) relationships back to \(names[owner]!))")
                continue
            }
            let destination = relationship.destination
            let inverse = relationships[destination]![inverseKey]!
            guard candidates(destination, inverseKey) == [key] else {
                unmatched.append("\(label) (\(names[destination]!).\(inverse.name) has several candidates)")
                continue
            }
            guard agree(owner, key, destination, inverseKey) else {
                unmatched.append("\(label) and \(names[destination]!).\(inverse.name) (they point to each other, but their objects disagree)")
                continue
            }
            relationships[owner]![key]!.inverse = inverse.name
            relationships[destination]![inverseKey]!.inverse = relationship.name
        }
        if !unmatched.isEmpty {
            notes.append("no inverse could be matched for \(unmatched.joined(separator: "; "))")
        }
    }

    /// Whether every object on one side lists the objects that list it on the other.
    private func agree(_ owner: String, _ key: String, _ destination: String, _ inverseKey: String) -> Bool {
        func links(_ entity: String, _ key: String) -> Set<[String]> {
            var links: Set<[String]> = []
            for object in document.objects {
                let type = Document.folded(object.type)
                guard type == entity || ancestors[type]?.contains(entity) == true else { continue }
                for relationship in object.relationships where Document.folded(relationship.name) == key {
                    for reference in relationship.idrefs { links.insert([object.id, reference]) }
                }
            }
            return links
        }
        return links(owner, key) == Set(links(destination, inverseKey).map { [$0[1], $0[0]] })
    }

    // MARK: - The model

    private func entityDescriptions() -> [EntityDescription] {
        names.keys.sorted { names[$0]! < names[$1]! }.map { key in
            EntityDescription(
                name: names[key]!,
                parentName: parents[key].map { names[$0]! },
                attributes: (attributes[key] ?? [:]).values.sorted { $0.name < $1.name }.map {
                    AttributeDescription(name: $0.name, type: $0.type, isOptional: true)
                },
                relationships: (relationships[key] ?? [:]).values.sorted { $0.name < $1.name }.map {
                    RelationshipDescription(
                        name: $0.name, destination: names[$0.destination]!, inverse: $0.inverse, isToMany: $0.isToMany,
                        isOptional: true, minCount: $0.minCount, maxCount: $0.maxCount)
                })
        }
    }

    /// The model's name: the file's name without its extension, made a valid model name
    /// (`Recipes.xml` → `Recipes`).
    static func modelName(forFile path: String) -> String {
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        var scalars = stem.unicodeScalars.map { scalar -> Character in
            (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_")) ? Character(scalar) : "_"
        }
        guard let first = scalars.first else { return "CoreDataStore" }
        if first.isLowercase { scalars[0] = Character(first.uppercased()) } else if !first.isUppercase { scalars.insert("M", at: 0) }
        return String(scalars)
    }
}
