public import Foundation

/// Loads objects in Strata's JSON data format into a context:
/// ```json
/// { "objects": { "Tag": [ { "@id": 1, "name": "home", "todos": [1] } ],
///                "Todo": [ { "@id": 1, "title": "Buy milk", "tags": [1] } ] } }
/// ```
/// Objects keep their `@id` as primary key; missing attributes take their defaults; a
/// relationship may be given from either side (the inverse follows) or both (they must agree);
/// every reference names an object of the input or one already stored. Add every file, then
/// ``finish()``, then save the context: the whole load is one save.
///
/// ```swift
/// let importer = DataImporter(context: context)
/// try importer.add(Data(contentsOf: url), file: url.path)
/// try importer.finish()
/// try context.save()
/// ```
public final class DataImporter {
    public let context: ManagedObjectContext
    private var schema: Schema { context.coordinator.schema }

    private struct Key: Hashable {
        var root: String
        var id: Int64
    }

    private struct Imported {
        var object: ManagedObject
        var id: Int64
        var file: String?
        var location: SourceLocation?
        /// Where its `@id` value is.
        var idLocation: SourceLocation?
        var path: String
    }

    private struct GivenRelationship {
        var source: Key
        var relationship: RelationshipDescription
        var node: JSONNode
        var file: String?
        var path: String
    }

    private var imported: [Key: Imported] = [:]
    private var order: [Key] = []
    private var relationships: [GivenRelationship] = []
    private var diagnostics: [Diagnostic] = []
    private var byObjectID: [ObjectIdentifier: Key] = [:]

    public init(context: ManagedObjectContext) {
        self.context = context
    }

    /// Reads one file of the data format: creates its objects and sets their attributes.
    /// Problems are collected and reported together by ``finish()``.
    public func add(_ data: Data, file: String? = nil) {
        let root: JSONNode
        do {
            root = try JSONParser.parse(Array(data))
        } catch {
            report("malformed JSON: \(error.message)", file: file, path: "", location: error.location)
            return
        }
        guard let members = root.value.objectMembers else {
            report("expected an object like {\"objects\": {\"Entity\": [...]}}, found \(root.value.kindName)", file: file, path: "", location: root.location)
            return
        }
        var objectsNode: JSONNode?
        for member in members {
            if member.key == "objects" {
                objectsNode = member.value
            } else {
                report("unknown key '\(Echo.value(member.key))'; the data format has only 'objects'\(Suggestion.didYouMean(member.key, in: ["objects"]))", file: file, path: member.key, location: member.keyLocation)
            }
        }
        guard let objectsNode else {
            report("missing 'objects': the data format is {\"objects\": {\"Entity\": [...]}}", file: file, path: "", location: root.location)
            return
        }
        guard let entities = objectsNode.value.objectMembers else {
            report("'objects' must map entity names to arrays of objects, found \(objectsNode.value.kindName)", file: file, path: "objects", location: objectsNode.location)
            return
        }
        for member in entities {
            let path = "objects.\(member.key)"
            guard let entity = schema.entity(named: member.key) else {
                report("the model has no entity '\(Echo.value(member.key))'\(Suggestion.didYouMean(member.key, in: schema.entities.map(\.name)))", file: file, path: path, location: member.keyLocation)
                continue
            }
            guard !entity.isAbstract else {
                report("entity '\(entity.name)' is abstract and has no objects of its own; list them under its subentities (\(entity.subentityNames.joined(separator: ", ")))", file: file, path: path, location: member.keyLocation)
                continue
            }
            guard let elements = member.value.value.arrayElements else {
                report("'\(member.key)' must be an array of objects, found \(member.value.value.kindName)", file: file, path: path, location: member.value.location)
                continue
            }
            for (index, element) in elements.enumerated() {
                addObject(element, entity: entity, file: file, path: "\(path)[\(index)]")
            }
        }
    }

    private func addObject(_ node: JSONNode, entity: EntityDescription, file: String?, path: String) {
        guard let members = node.value.objectMembers else {
            report("expected an object, found \(node.value.kindName)", file: file, path: path, location: node.location)
            return
        }
        guard let idMember = members.first(where: { $0.key == "@id" }) else {
            report("a \(entity.name) object needs '@id', its primary key", file: file, path: path, location: node.location)
            return
        }
        guard let lexeme = idMember.value.value.numberLexeme, let id = Int64(lexeme), id >= 1 else {
            report("'@id' must be a whole number of 1 or more", file: file, path: path + ".@id", location: idMember.value.location)
            return
        }
        let key = Key(root: entity.rootName, id: id)
        if let first = imported[key] {
            let place = first.location.map { " at \(first.file.map { "\($0):" } ?? "")\($0)" } ?? ""
            report("duplicate @id \(id) in the '\(entity.rootName)' hierarchy (first used\(place)); every object of a hierarchy needs its own @id", file: file, path: path + ".@id", location: idMember.value.location)
            return
        }
        let object: ManagedObject
        do {
            object = try context.insertObject(entityName: entity.name, primaryKey: id)
        } catch {
            report(error.message, file: file, path: path, location: node.location)
            return
        }
        imported[key] = Imported(object: object, id: id, file: file, location: node.location, idLocation: idMember.value.location, path: path)
        byObjectID[ObjectIdentifier(object)] = key
        order.append(key)

        for member in members where member.key != "@id" {
            let memberPath = path + "." + member.key
            if let attribute = entity.attribute(named: member.key) {
                guard !attribute.isTransient else {
                    report("'\(member.key)' is a transient attribute: it is never stored, so it cannot be loaded", file: file, path: memberPath, location: member.keyLocation)
                    continue
                }
                if member.value.value == .null {
                    context.setAttribute(object, attribute.name, nil)
                    continue
                }
                do {
                    let value = try AttributeValue(json: member.value.value, as: attribute.type)
                    context.setAttribute(object, attribute.name, value)
                } catch {
                    report("invalid \(attribute.type.rawValue) for '\(attribute.name)': \(error.message)", file: file, path: memberPath, location: member.value.location)
                }
            } else if let relationship = entity.relationship(named: member.key) {
                relationships.append(GivenRelationship(source: key, relationship: relationship, node: member.value, file: file, path: memberPath))
            } else {
                let names = entity.attributes.filter { !$0.isTransient }.map(\.name) + entity.relationships.map(\.name)
                report("entity '\(entity.name)' has no property '\(Echo.value(member.key))'\(Suggestion.didYouMean(member.key, in: names))", file: file, path: memberPath, location: member.keyLocation)
            }
        }
    }

    /// Resolves every relationship, checks that both sides agree and that no @id is taken in
    /// the store already.
    /// - Returns: how many objects of each entity were loaded.
    /// - Throws: `invalidData` listing every problem, each with its file, line and column.
    @discardableResult
    public func finish() throws(StrataError) -> [String: Int] {
        let stored = try existingKeys(imported.keys.map { $0 } + referencedKeys())
        for key in order where stored[key] != nil {
            let item = imported[key]!
            report("\(item.object.entity.name) @id \(key.id) already exists in the store", file: item.file, path: item.path + ".@id", location: item.idLocation)
        }
        var expectations: [(GivenRelationship, [ObjectID])] = []
        for given in relationships {
            guard let source = imported[given.source]?.object else { continue }
            let relationship = given.relationship
            if relationship.isToMany {
                guard let elements = given.node.value.arrayElements else {
                    if given.node.value != .null {
                        report("to-many '\(relationship.name)' must be an array of @id numbers of \(relationship.destination) objects", given)
                    }
                    continue
                }
                var members: [ManagedObject] = []
                var seen: Set<Int64> = []
                for (index, element) in elements.enumerated() {
                    guard let destination = resolve(element, relationship, given, stored: stored, path: given.path + "[\(index)]") else { continue }
                    guard seen.insert(element.value.numberLexeme.flatMap { Int64($0) } ?? 0).inserted else {
                        report("@id \(element.value.numberLexeme ?? "") appears twice in '\(relationship.name)'", file: given.file, path: given.path + "[\(index)]", location: element.location)
                        continue
                    }
                    members.append(destination)
                }
                for destination in members { context.addToMany(source, relationship, destination) }
                expectations.append((given, members.map(\.objectID)))
            } else {
                if given.node.value == .null {
                    expectations.append((given, []))
                    continue
                }
                guard let destination = resolve(given.node, relationship, given, stored: stored, path: given.path) else { continue }
                context.setToOne(source, relationship, destination)
                expectations.append((given, [destination.objectID]))
            }
        }
        // A relationship given from both sides must agree.
        for (given, expected) in expectations {
            guard let source = imported[given.source]?.object else { continue }
            let relationship = given.relationship
            let actual: [ObjectID] = relationship.isToMany
                ? source.memberIDs(relationship.name)
                : source.toOneID(relationship.name).map { [$0] } ?? []
            let agrees = relationship.isOrdered ? actual == expected : Set(actual) == Set(expected)
            if !agrees {
                report("'\(relationship.name)' of \(source.entity.name) @id \(given.source.id) is \(describe(expected)) here, but the other side of the relationship makes it \(describe(actual)); give it from one side only, or make both sides agree", given)
            }
        }
        if !diagnostics.isEmpty {
            let sorted = diagnostics.enumerated().sorted { lhs, rhs in
                (lhs.element.file ?? "", lhs.element.line ?? 0, lhs.element.column ?? 0, lhs.offset)
                    < (rhs.element.file ?? "", rhs.element.line ?? 0, rhs.element.column ?? 0, rhs.offset)
            }.map(\.element)
            throw StrataError(.invalidData, "the data has \(sorted.count) error\(sorted.count == 1 ? "" : "s"); nothing was loaded", diagnostics: sorted)
        }
        var counts: [String: Int] = [:]
        for item in imported.values { counts[item.object.entity.name, default: 0] += 1 }
        return counts
    }

    /// Where an object came from, for messages about a failed save: `Todo @id 3 (data.json:12:5)`.
    public func describe(_ objectID: ObjectID) -> String? {
        guard let object = context.registeredObject(for: objectID), let key = byObjectID[ObjectIdentifier(object)],
              let item = imported[key] else { return nil }
        var text = "\(object.entity.name) @id \(item.id)"
        if let location = item.location { text += " (\(item.file.map { "\($0):" } ?? "")\(location))" }
        return text
    }

    /// `failures` in the order of the input — by file, line and column, as ``finish()`` orders
    /// its diagnostics — then those of objects that were already stored, by object ID. A save
    /// lists the failures of new objects in no stable order (their IDs are still temporary);
    /// this gives a report that reads top to bottom and is the same on every run.
    public func sortedByInput(_ failures: [ValidationFailure]) -> [ValidationFailure] {
        func position(_ failure: ValidationFailure) -> (file: String, line: Int, column: Int)? {
            guard let object = context.registeredObject(for: failure.objectID), let key = byObjectID[ObjectIdentifier(object)],
                  let item = imported[key] else { return nil }
            return (item.file ?? "", item.location?.line ?? 0, item.location?.column ?? 0)
        }
        return failures.map { ($0, position($0)) }.sorted { lhs, rhs in
            switch (lhs.1, rhs.1) {
            case let (a?, b?) where a != b:
                return a < b
            case (.some, nil):
                return true
            case (nil, .some):
                return false
            case (nil, nil) where lhs.0.objectID != rhs.0.objectID:
                return lhs.0.objectID < rhs.0.objectID
            default:
                return (lhs.0.key ?? "", lhs.0.message) < (rhs.0.key ?? "", rhs.0.message)
            }
        }.map(\.0)
    }

    // MARK: - References

    private func referencedKeys() -> [Key] {
        var keys: [Key] = []
        for given in relationships {
            guard let root = schema.entity(named: given.relationship.destination)?.rootName else { continue }
            let nodes = given.node.value.arrayElements ?? [given.node]
            for node in nodes {
                if let lexeme = node.value.numberLexeme, let id = Int64(lexeme) {
                    let key = Key(root: root, id: id)
                    if imported[key] == nil { keys.append(key) }
                }
            }
        }
        return keys
    }

    /// The stored objects among `keys`, found with one lookup per store.
    private func existingKeys(_ keys: [Key]) throws(StrataError) -> [Key: ObjectID] {
        var candidates: [ObjectID: Key] = [:]
        for key in Set(keys) {
            for entity in schema.entityAndDescendants(of: key.root) where !entity.isAbstract {
                guard let id = try? context.coordinator.objectID(entityName: entity.name, primaryKey: key.id) else { continue }
                candidates[id] = key
            }
        }
        var byStore: [String: [ObjectID]] = [:]
        for id in candidates.keys { byStore[id.storeIdentifier ?? "", default: []].append(id) }
        var found: [Key: ObjectID] = [:]
        for (storeIdentifier, ids) in byStore {
            guard let store = context.coordinator.store(withIdentifier: storeIdentifier) else { continue }
            for id in try store.records(for: ids).keys { found[candidates[id]!] = id }
        }
        return found
    }

    private func resolve(_ node: JSONNode, _ relationship: RelationshipDescription, _ given: GivenRelationship, stored: [Key: ObjectID], path: String) -> ManagedObject? {
        guard let lexeme = node.value.numberLexeme, let id = Int64(lexeme) else {
            report("expected the @id (a whole number) of a \(relationship.destination) object, found \(node.value.kindName)", file: given.file, path: path, location: node.location)
            return nil
        }
        guard let destinationEntity = schema.entity(named: relationship.destination) else { return nil }
        let key = Key(root: destinationEntity.rootName, id: id)
        let object: ManagedObject
        if let item = imported[key] {
            object = item.object
        } else if let storedID = stored[key] {
            object = context.object(with: storedID)
        } else {
            report("'\(relationship.name)' refers to \(relationship.destination) @id \(id), which is neither in the data nor in the store", file: given.file, path: path, location: node.location)
            return nil
        }
        guard object.entity.name == destinationEntity.name || object.entity.ancestorNames.contains(destinationEntity.name) else {
            report("'\(relationship.name)' needs a \(destinationEntity.name), but @id \(id) is a \(object.entity.name)", file: given.file, path: path, location: node.location)
            return nil
        }
        return object
    }

    private func describe(_ ids: [ObjectID]) -> String {
        let keys = ids.map { id -> String in
            if let object = context.registeredObject(for: id), let key = byObjectID[ObjectIdentifier(object)] { return String(key.id) }
            return id.primaryKey.map(String.init) ?? "?"
        }
        return "[" + keys.joined(separator: ", ") + "]"
    }

    private func report(_ message: String, _ given: GivenRelationship) {
        report(message, file: given.file, path: given.path, location: given.node.location)
    }

    private func report(_ message: String, file: String?, path: String, location: SourceLocation?) {
        diagnostics.append(Diagnostic(severity: .error, code: "invalidData", message: message, path: path, file: file, location: location))
    }
}
