internal import Foundation
internal import Strata
internal import StrataXML

extension CoreDataXMLDocument {
    /// The file's objects as records of `schema`, and metadata that names `schema` (the file
    /// holds Core Data's hashes, not Strata's; those go into the custom metadata).
    ///
    /// Names are matched as Core Data writes them: an `<object type>` is the entity's name
    /// upper-cased, an `<attribute name>` or `<relationship name>` the property's name
    /// lower-cased; any case matches (Strata's model rules forbid names that differ only in
    /// case). Every value is checked against the type the model gives its attribute, every
    /// reference against the relationship's destination.
    /// - Throws: `corruptStore` naming the object, the element and its line when the file does
    ///   not fit the model or a value is malformed.
    func contents(with schema: Schema, storeType: StoreType) throws(StrataError) -> AtomicStoreContents {
        let entitiesByName = Dictionary(schema.entities.map { (Self.folded($0.name), $0) }, uniquingKeysWith: { first, _ in first })
        var entities: [EntityDescription] = []
        entities.reserveCapacity(objects.count)
        for object in objects {
            guard let entity = entitiesByName[Self.folded(object.type)] else {
                throw error(
                    "\(describe(object)): model '\(schema.name)' has no entity '\(object.type)'\(Suggestion.didYouMean(object.type, in: schema.entities.map(\.name))); open the store with the model it was written with",
                    at: object.position)
            }
            guard !entity.isAbstract else {
                throw error("\(describe(object)): entity '\(entity.name)' is abstract in model '\(schema.name)', so no object can be one", at: object.position)
            }
            entities.append(entity)
        }
        let index = try objectIndex()
        let keys = Self.primaryKeys(ids: objects.map(\.id), roots: entities.map(\.rootName))
        let storeIdentifier = self.storeIdentifier
        // By entity, then by the name as written (most files write each name one way).
        var properties: [String: [String: PropertyDescription]] = [:]
        var lookups: [String: [String: PropertyDescription]] = [:]
        var families: [String: Set<String>] = [:]
        var records: [String: [ObjectID: StoreRecord]] = [:]
        var keySequences: [String: Int64] = [:]
        for (position, object) in objects.enumerated() {
            let entity = entities[position]
            if lookups[entity.name] == nil { lookups[entity.name] = Self.propertyLookup(entity) }
            func property(_ written: String) -> PropertyDescription? {
                if let known = properties[entity.name]?[written] { return known }
                let found = lookups[entity.name]![Self.folded(written)]
                properties[entity.name, default: [:]][written] = found
                return found
            }
            let id = ObjectID(entityName: entity.name, storeIdentifier: storeIdentifier, primaryKey: keys[position])
            var record = StoreRecord(objectID: id, attributes: AttributeValues(layout: entity.attributeLayout))
            var seen: Set<String> = []
            for attribute in object.attributes {
                let element = "<attribute name=\"\(attribute.name)\"> of \(describe(object))"
                guard case .attribute(let description)? = property(attribute.name) else {
                    throw error("\(element): entity '\(entity.name)' has no attribute '\(attribute.name)'\(Suggestion.didYouMean(attribute.name, in: entity.attributes.map(\.name)))", at: attribute.position)
                }
                guard !description.isTransient else {
                    throw error("\(element): attribute '\(description.name)' is transient in the model, and transient values are never stored", at: attribute.position)
                }
                guard seen.insert(description.name).inserted else {
                    throw error("\(describe(object)) has attribute '\(attribute.name)' twice", at: attribute.position)
                }
                guard let fileType = Self.attributeType(attribute.type) else {
                    throw error("\(element) has type=\"\(attribute.type)\", which is not a Core Data attribute type (\(Self.typeNames))", at: attribute.position)
                }
                guard Self.fits(fileType, description.type) else {
                    throw error("\(element) has type=\"\(attribute.type)\", but the model gives '\(entity.name).\(description.name)' the type \(description.type.rawValue)", at: attribute.position)
                }
                do throws(XMLValueError) {
                    record.attributes[description.name] = try Self.value(of: attribute.text, as: description.type)
                } catch {
                    throw self.error("\(element) (\(description.type.rawValue)): \(error.message)", at: attribute.position)
                }
            }
            for relationship in object.relationships {
                let element = "<relationship name=\"\(relationship.name)\"> of \(describe(object))"
                guard case .relationship(let description)? = property(relationship.name) else {
                    throw error("\(element): entity '\(entity.name)' has no relationship '\(relationship.name)'\(Suggestion.didYouMean(relationship.name, in: entity.relationships.map(\.name)))", at: relationship.position)
                }
                guard seen.insert(description.name).inserted else {
                    throw error("\(describe(object)) has relationship '\(relationship.name)' twice", at: relationship.position)
                }
                if let toOne = relationship.isToOne, toOne == description.isToMany {
                    throw error("\(element) has type=\"\(relationship.type)\" (\(toOne ? "to-one" : "to-many")), but '\(entity.name).\(description.name)' is \(description.isToMany ? "to-many" : "to-one") in the model", at: relationship.position)
                }
                guard Self.folded(relationship.destination) == Self.folded(description.destination) else {
                    throw error("\(element) has destination=\"\(relationship.destination)\", but the model's destination of '\(entity.name).\(description.name)' is \(description.destination)", at: relationship.position)
                }
                if !description.isToMany && relationship.idrefs.count > 1 {
                    throw error("\(element) is to-one but names \(relationship.idrefs.count) objects", at: relationship.position)
                }
                let family = families[description.destination] ?? Set(schema.entityAndDescendants(of: description.destination).map(\.name))
                families[description.destination] = family
                var members: [ObjectID] = []
                var memberKeys: Set<Int64> = []
                for reference in relationship.idrefs {
                    guard let target = index[reference] else {
                        throw error("\(element) refers to '\(reference)', but no object has that id", at: relationship.position)
                    }
                    let targetEntity = entities[target]
                    guard family.contains(targetEntity.name) else {
                        throw error("\(element) refers to '\(reference)', which is a \(targetEntity.name), not a \(description.destination)", at: relationship.position)
                    }
                    guard memberKeys.insert(keys[target]).inserted else {
                        throw error("\(element) names '\(reference)' twice", at: relationship.position)
                    }
                    members.append(ObjectID(entityName: targetEntity.name, storeIdentifier: storeIdentifier, primaryKey: keys[target]))
                }
                if description.isToMany {
                    if !members.isEmpty { record.toMany[description.name] = members }
                } else if let member = members.first {
                    record.toOne[description.name] = member
                }
            }
            records[entity.name, default: [:]][id] = record
            keySequences[entity.rootName] = max(keySequences[entity.rootName] ?? 0, keys[position])
        }
        return AtomicStoreContents(metadata: metadata(with: schema, storeType: storeType), records: records, keySequences: keySequences)
    }

    /// The metadata of the store read with `schema`: its UUID, `schema`'s name and hashes, and
    /// Core Data's metadata as custom keys.
    func metadata(with schema: Schema, storeType: StoreType) -> StoreMetadata {
        StoreMetadata(
            storeIdentifier: storeIdentifier, storeType: storeType, modelName: schema.name,
            modelVersionHash: schema.versionHash, entityVersionHashes: schema.entityVersionHashes,
            schemaJSON: schema.jsonString, custom: info.customMetadata)
    }

    // MARK: - Object IDs

    /// The position of each object by its `id`.
    /// - Throws: `corruptStore` when two objects share an id.
    func objectIndex() throws(StrataError) -> [String: Int] {
        var index: [String: Int] = [:]
        index.reserveCapacity(objects.count)
        for (position, object) in objects.enumerated() {
            if let first = index.updateValue(position, forKey: object.id) {
                throw error("\(describe(object)): the id '\(object.id)' is taken by the object at line \(objects[first].position.line) already", at: object.position)
            }
        }
        return index
    }

    /// The primary key of each object: the number its id ends with (`z102` → 102, as Core
    /// Data numbers its objects), when that gives every object of its inheritance hierarchy
    /// (`roots`, one per object) its own key of at least 1. Otherwise — ids that do not end in
    /// digits, or two that end in the same number — the objects of that hierarchy are numbered
    /// 1, 2, 3… in the order of the file.
    static func primaryKeys(ids: [String], roots: [String]) -> [Int64] {
        var keys = ids.map(trailingNumber)
        var members: [String: [Int]] = [:]
        for (position, root) in roots.enumerated() { members[root, default: []].append(position) }
        for positions in members.values {
            var taken: Set<Int64> = []
            var numbered = true
            for position in positions {
                guard let key = keys[position], taken.insert(key).inserted else {
                    numbered = false
                    break
                }
            }
            if !numbered {
                for (offset, position) in positions.enumerated() { keys[position] = Int64(offset + 1) }
            }
        }
        return keys.map { $0! }
    }

    /// The number an id ends with, when it is at least 1 and at most 18 digits long.
    private static func trailingNumber(_ id: String) -> Int64? {
        let digits = id.utf8.reversed().prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        let number = digits.reversed().reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        return number >= 1 ? number : nil
    }

    /// The store's UUID from `<databaseInfo>`; for a file without one, a UUID made from a hash
    /// of its objects' types and ids, so that every read of the file gives the same.
    var storeIdentifier: String {
        if let uuid = info.storeUUID, !uuid.isEmpty { return uuid }
        var hash = SHA256()
        for object in objects {
            hash.update(object.type)
            hash.update([0])
            hash.update(object.id)
            hash.update([0])
        }
        var bytes = Array(hash.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
    }

    // MARK: - Names and values

    /// A name as compared with the file's: upper-cased (ASCII only, as model names are).
    static func folded(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") ? $0 - 32 : $0 }, as: UTF8.self)
    }

    /// Every attribute and relationship of `entity` (inherited ones included) by folded name.
    private static func propertyLookup(_ entity: EntityDescription) -> [String: PropertyDescription] {
        var lookup: [String: PropertyDescription] = [:]
        for attribute in entity.attributes { lookup[folded(attribute.name)] = .attribute(attribute) }
        for relationship in entity.relationships { lookup[folded(relationship.name)] = .relationship(relationship) }
        return lookup
    }

    /// The type a `type="…"` names: Core Data's names are Strata's (`int16`, `string`, `bool`,
    /// `date`, `binary`, `transformable`, …).
    static func attributeType(_ name: String) -> AttributeType? {
        AttributeType(rawValue: name)
    }

    static let typeNames = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")

    /// Whether a value written as `written` reads as an attribute of type `modelled`: the same
    /// type, any integer width (the value is checked against the modelled range), or binary for
    /// transformable and the other way round (both are the stored data).
    private static func fits(_ written: AttributeType, _ modelled: AttributeType) -> Bool {
        written == modelled || (written.isInteger && modelled.isInteger)
            || ([.binary, .transformable] as Set<AttributeType>).isSuperset(of: [written, modelled])
    }

    /// A value from an `<attribute>`'s text, as Core Data writes it: booleans `1` or `0`, dates
    /// in seconds since 2001-01-01 (`336046917.00164198875427246094`), binary and transformable
    /// data in base64 with line breaks, numbers in decimal notation; strings as they are.
    static func value(of text: [UInt8], as type: AttributeType) throws(XMLValueError) -> AttributeValue {
        if type == .string { return .string(String(decoding: text, as: UTF8.self)) }
        let trimmed = Array(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        let string = String(decoding: trimmed, as: UTF8.self)
        switch type {
        case .bool:
            switch string {
            case "1", "YES", "true": return .bool(true)
            case "0", "NO", "false": return .bool(false)
            default: throw XMLValueError(message: "expected 1 or 0, found \(String(reflecting: string))")
            }
        case .date:
            if let seconds = trimmed.withUnsafeBufferPointer({ XMLValueCoding.parseDouble($0) }) {
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            }
        case .double, .float:
            switch string.lowercased() {
            case "inf", "+inf", "infinity": return type == .double ? .double(.infinity) : .float(.infinity)
            case "-inf", "-infinity": return type == .double ? .double(-.infinity) : .float(-.infinity)
            case "nan": return type == .double ? .double(.nan) : .float(.nan)
            default: break
            }
        default:
            break
        }
        return try trimmed.withUnsafeBufferPointer { (bytes) throws(XMLValueError) in
            try XMLValueCoding.value(from: bytes, type: type, base64: false)
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
