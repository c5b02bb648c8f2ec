public import Foundation

/// Checks a store file: its format's own integrity and Strata's invariants — every reference
/// leads to an existing object of the right entity, relationships and inverses agree, values
/// have their attribute's type, required values are present, uniqueness constraints hold under
/// Strata's rules, and every primary key is at most its hierarchy's key counter.
///
/// ```swift
/// let report = try StoreChecker.check(storeAt: URL(fileURLWithPath: "todo.sqlite"), storeTypes: types)
/// for problem in report.problems { print(problem) }
/// ```
///
/// The check reads; it does not repair.
public enum StoreChecker {
    /// What a check found.
    public struct Report: Sendable {
        public var type: StoreType
        /// The objects read.
        public var objectCount: Int
        /// Every problem, ordered by entity, primary key and property.
        public var problems: [StoreProblem]

        public var isSound: Bool { problems.isEmpty }
    }

    /// Checks the existing store at `url` with the model stored in it.
    /// - Parameter url: the store file.
    /// - Parameter storeTypes: the store types the file may be of.
    /// - Parameter type: the store's type; found from the file when nil.
    /// - Throws: `storeIO`, `noStore` or `corruptStore` when the file cannot be checked at all:
    ///   it is missing or not a regular file, its type is unknown, or its metadata (and so its
    ///   model) cannot be read. Everything found after that is a problem in the report.
    public static func check(storeAt url: URL, type: StoreType? = nil, storeTypes: StoreTypeRegistry) throws(StrataError) -> Report {
        guard !url.isFileURL || FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(.storeIO, "no store at '\(url.relativePath)'")
        }
        try FileIdentity.requireRegularFile(url)
        let storeType: StoreType
        if let type { storeType = type } else { storeType = try storeTypes.type(of: url) }
        let factory = try storeTypes.factory(for: storeType)
        let schema = try factory.metadata(at: url).schema()
        let input: StoreCheckInput
        if let checking = factory as? any StoreIntegrityChecking {
            input = try checking.checkInput(at: url, schema: schema)
        } else {
            let store = try factory.open(url: url, schema: schema, configurationName: nil, options: [:])
            input = StoreCheckInput.reading(store, schema: schema)
        }
        let problems = (input.problems + Self.problems(in: input, schema: schema)).sorted(by: StoreProblem.reportOrder)
        return Report(type: storeType, objectCount: input.records.values.reduce(0) { $0 + $1.count }, problems: problems)
    }

    /// The invariants `input` breaks, for a store written with `schema`.
    public static func problems(in input: StoreCheckInput, schema: Schema) -> [StoreProblem] {
        var problems: [StoreProblem] = []
        // References are looked up by entity and key, so that a store identifier never decides.
        var keys: [String: Set<Int64>] = [:]
        for id in input.unreadableObjects {
            if let key = id.primaryKey { keys[id.entityName, default: []].insert(key) }
        }
        // Sides whose members are unknown (the object or the relationship could not be read).
        var unknown = Set(input.unreadableObjects.map { Side(entity: $0.entityName, key: $0.primaryKey ?? 0, relationship: nil) })
        // Every link, so that an inverse is checked with one lookup however many members
        // the other side has.
        var links = Set<Link>()
        for (entityName, records) in input.records {
            keys[entityName, default: []].formUnion(records.keys.compactMap(\.primaryKey))
            for record in records.values {
                guard let key = record.objectID.primaryKey else { continue }
                for name in record.lazyToMany { unknown.insert(Side(entity: entityName, key: key, relationship: name)) }
                for (name, member) in record.toOne {
                    links.insert(Link(entity: entityName, key: key, relationship: name, member: member))
                }
                for (name, members) in record.toMany {
                    for member in members { links.insert(Link(entity: entityName, key: key, relationship: name, member: member)) }
                }
            }
        }
        var families: [String: Set<String>] = [:]
        for entity in schema.entities {
            families[entity.name] = Set(schema.entityAndDescendants(of: entity.name).filter { !$0.isAbstract }.map(\.name))
        }
        let graph = Graph(keys: keys, links: links, unknown: unknown, families: families)

        for entityName in input.records.keys.sorted() {
            guard let entity = schema.entity(named: entityName), !entity.isAbstract else {
                problems.append(StoreProblem(
                    .unknownEntity, entity: entityName,
                    message: schema.entity(named: entityName) == nil
                        ? "the store holds objects of '\(entityName)', which the model does not have"
                        : "the store holds objects of '\(entityName)', which is abstract"))
                continue
            }
            for record in input.records[entityName]!.values {
                let key = record.objectID.primaryKey
                func problem(_ code: StoreProblem.Code, _ property: String?, _ message: String) {
                    problems.append(StoreProblem(code, entity: entityName, primaryKey: key, property: property, message: message))
                }
                // A hierarchy without a counter is the format's problem, reported by its reader.
                if let key, let counter = input.keyCounters?[entity.rootName], key > counter {
                    problem(.keyAboveCounter, nil, "primary key \(key) is above the key counter of the '\(entity.rootName)' hierarchy (\(counter)): a new object could be given the same key")
                }
                checkAttributes(of: record, entity, problem)
                for relationship in entity.relationships where !record.lazyToMany.contains(relationship.name) {
                    let members = relationship.isToMany ? (record.toMany[relationship.name] ?? []) : (record.toOne[relationship.name].map { [$0] } ?? [])
                    checkRelationship(relationship, of: record, members: members, schema: schema, graph: graph, problem)
                }
                let known = Set(entity.relationships.map(\.name))
                for name in Set(record.toOne.keys).union(record.toMany.keys).subtracting(known).sorted() {
                    problem(.unknownEntity, name, "the object has a relationship '\(name)' that entity '\(entityName)' does not have")
                }
            }
        }

        let contents = AtomicStoreContents(
            metadata: StoreMetadata(newStoreOf: .inMemory, schema: schema, identifier: ""), records: input.records)
        let ids = input.records.values.flatMap(\.keys).sorted()
        for failure in UniquenessChecker.violations(in: contents, schema: schema, checking: ids) {
            problems.append(StoreProblem(
                .notUnique, entity: failure.objectID.entityName, primaryKey: failure.objectID.primaryKey,
                property: failure.key, message: failure.message))
        }
        return problems
    }

    private static func checkAttributes(of record: StoreRecord, _ entity: EntityDescription, _ problem: (StoreProblem.Code, String?, String) -> Void) {
        let stored = entity.attributes.filter { !$0.isTransient }
        for attribute in stored {
            guard let value = record.attributes[attribute.name] else {
                if !attribute.isOptional {
                    problem(.missingValue, attribute.name, "the attribute is required but has no value")
                }
                continue
            }
            if !ManagedObject.fits(value, attribute.type) {
                problem(.wrongType, attribute.name, "holds \(kind(of: value)) \(Echo.value(value.description)), but the model says \(attribute.type.rawValue)")
            } else if case .integer(let number) = value, let range = attribute.type.integerRange, !range.contains(number) {
                problem(.wrongType, attribute.name, "holds \(number), which is out of the range of \(attribute.type.rawValue) (\(range.lowerBound)…\(range.upperBound))")
            }
        }
        let names = Set(entity.attributes.map(\.name))
        for (name, _) in record.attributes where !names.contains(name) {
            problem(.wrongType, name, "the object has an attribute '\(name)' that entity '\(entity.name)' does not have")
        }
    }

    private static func checkRelationship(
        _ relationship: RelationshipDescription, of record: StoreRecord, members: [ObjectID], schema: Schema,
        graph: Graph, _ problem: (StoreProblem.Code, String?, String) -> Void
    ) {
        let name = relationship.name
        if relationship.isToMany {
            if relationship.minCount > 0 && members.count < relationship.minCount {
                problem(.tooFewObjects, name, "has \(members.count) object\(members.count == 1 ? "" : "s"); the model requires at least \(relationship.minCount)")
            }
            if relationship.maxCount > 0 && members.count > relationship.maxCount {
                problem(.tooManyObjects, name, "has \(members.count) objects; the model allows at most \(relationship.maxCount)")
            }
        } else if members.isEmpty && !relationship.isOptional {
            problem(.missingValue, name, "the relationship is required but has no object")
        }
        let family = graph.families[relationship.destination] ?? []
        var seen = Set<String>()
        for member in members {
            let text = "\(member.entityName)/p\(member.primaryKey.map(String.init) ?? "?")"
            guard seen.insert(text).inserted else {
                problem(.duplicateMember, name, "lists \(text) more than once")
                continue
            }
            guard family.contains(member.entityName) else {
                problem(.wrongEntity, name, "refers to \(text), which is not a \(relationship.destination)")
                continue
            }
            guard let key = member.primaryKey, graph.keys[member.entityName]?.contains(key) == true else {
                problem(.danglingReference, name, "refers to \(text), which does not exist")
                continue
            }
            guard let inverseName = relationship.inverse,
                  schema.entity(named: member.entityName)?.relationship(named: inverseName) != nil else { continue }
            let own = record.objectID
            if graph.unknown.contains(Side(entity: member.entityName, key: key, relationship: nil))
                || graph.unknown.contains(Side(entity: member.entityName, key: key, relationship: inverseName)) {
                continue
            }
            if !graph.links.contains(Link(entity: member.entityName, key: key, relationship: inverseName, member: own)) {
                let ownText = "\(own.entityName)/p\(own.primaryKey.map(String.init) ?? "?")"
                problem(.inverseMismatch, name, "lists \(text), but \(text).\(inverseName) does not lead back to \(ownText)")
            }
        }
    }

    private static func kind(of value: AttributeValue) -> String {
        switch value {
        case .string: "the string"
        case .integer: "the integer"
        case .decimal: "the decimal"
        case .double: "the double"
        case .float: "the float"
        case .bool: "the boolean"
        case .date: "the date"
        case .binary: "the data"
        case .uuid: "the UUID"
        case .uri: "the URI"
        }
    }

    /// One member of one relationship of one object, compared by entity and key.
    struct Link: Hashable {
        var entity: String
        var key: Int64
        var relationship: String
        var memberEntity: String
        var memberKey: Int64?

        init(entity: String, key: Int64, relationship: String, member: ObjectID) {
            self.entity = entity
            self.key = key
            self.relationship = relationship
            memberEntity = member.entityName
            memberKey = member.primaryKey
        }
    }

    /// The keys of every object, by concrete entity, every link between objects, and the
    /// concrete entities each entity's relationships may lead to (itself and its subentities).
    struct Graph {
        var keys: [String: Set<Int64>]
        var links: Set<Link>
        /// Objects (relationship nil) and relationships whose members could not be read.
        var unknown: Set<Side>
        var families: [String: Set<String>]
    }

    struct Side: Hashable {
        var entity: String
        var key: Int64
        var relationship: String?
    }
}
