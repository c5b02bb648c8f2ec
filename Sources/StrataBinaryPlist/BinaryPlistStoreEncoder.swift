internal import Foundation
internal import Strata

/// Writes a whole store in the layout of `Docs/BinaryPlistFormat.md` through a
/// ``BinaryPlistWriter``: the metadata dictionary first, then each entity's records (in primary
/// key order, entities by name), then the `objects` dictionary and the top dictionary.
///
/// Values are checked against the model as they are written, so a file this writes is a file
/// the reader accepts: a value of the wrong kind, a key the model does not have or a temporary
/// object ID is an error here rather than a store that no longer opens.
struct BinaryPlistStoreEncoder {
    private typealias Layout = BinaryPlistLayout

    private let writer: BinaryPlistWriter
    private let contents: AtomicStoreContents
    private let schema: Schema
    /// Strings written once and shared: keys, entity names.
    private var names: [String: Int] = [:]
    private var keys: [Int] = []
    private var values: [Int] = []
    private var members: [Int] = []
    private var recordKeys: [String: RecordKeySet] = [:]

    init(writer: BinaryPlistWriter, contents: AtomicStoreContents) throws(StrataError) {
        self.writer = writer
        self.contents = contents
        self.schema = try contents.metadata.schema()
    }

    /// Writes the store; returns the bytes when the writer writes into memory.
    @discardableResult
    mutating func encode() throws(StrataError) -> [UInt8] {
        writer.begin(maximumObjectCount: objectBound())
        let metadata = encodeMetadata()
        var entityKeys: [Int] = []
        var entityArrays: [Int] = []
        for entityName in contents.records.keys.sorted() {
            guard let records = contents.records[entityName], !records.isEmpty else { continue }
            guard let entity = schema.entity(named: entityName) else {
                throw StrataError(.invalidData, "cannot write \(records.count) '\(entityName)' records: the model '\(schema.name)' has no such entity")
            }
            guard !entity.isAbstract else {
                throw StrataError(.invalidData, "cannot write \(records.count) '\(entityName)' records: the entity is abstract")
            }
            let array = try encode(records, of: entity)
            entityKeys.append(name(entityName))
            entityArrays.append(array)
            if writer.hasFailed { break }
        }
        let objects = writer.dictionary(keys: entityKeys, values: entityArrays)
        let top = writer.dictionary(
            keys: [name(Layout.TopKey.metadata), name(Layout.TopKey.objects)], values: [metadata, objects])
        return try writer.finish(topObject: top)
    }

    /// An upper bound of the objects ``encode()`` writes, which sets the reference size.
    private func objectBound() -> Int {
        var bound = 64 + Layout.MetadataKey.all.count
        let metadata = contents.metadata
        bound += 2 * (metadata.custom.count + metadata.entityVersionHashes.count + contents.keySequences.count)
        bound += 2 * contents.records.count
        for entity in schema.entities { bound += entity.attributes.count + entity.relationships.count + 1 }
        for records in contents.records.values {
            bound += 1
            for record in records.values {
                bound += 3 + record.attributes.count + record.toOne.count
                for members in record.toMany.values { bound += 1 + members.count }
            }
        }
        return bound
    }

    /// The keys of an entity's records, made once per entity.
    private mutating func keys(of entityName: String) -> RecordKeySet {
        if let keys = recordKeys[entityName] { return keys }
        let keys = RecordKeySet(contents.records[entityName], storeIdentifier: contents.metadata.storeIdentifier)
        recordKeys[entityName] = keys
        return keys
    }

    private mutating func name(_ string: String) -> Int {
        if let ref = names[string] { return ref }
        let ref = writer.string(string)
        names[string] = ref
        return ref
    }

    // MARK: - Metadata

    private mutating func encodeMetadata() -> Int {
        let metadata = contents.metadata
        typealias Key = Layout.MetadataKey
        var keys: [Int] = []
        var values: [Int] = []
        func add(_ key: String, _ value: Int) {
            keys.append(name(key))
            values.append(value)
        }
        add(Key.formatVersion, writer.integer(Layout.formatVersion))
        add(Key.storeIdentifier, writer.string(metadata.storeIdentifier))
        add(Key.storeType, writer.string(metadata.storeType.rawValue))
        add(Key.modelName, writer.string(metadata.modelName))
        add(Key.modelVersionHash, writer.string(metadata.modelVersionHash))
        add(Key.entityVersionHashes, stringDictionary(metadata.entityVersionHashes, sharedKeys: true))
        add(Key.schema, writer.string(metadata.schemaJSON))
        add(Key.custom, stringDictionary(metadata.custom, sharedKeys: false))
        var sequenceKeys: [Int] = []
        var sequenceValues: [Int] = []
        for (root, key) in contents.keySequences.sorted(by: { $0.key < $1.key }) {
            sequenceKeys.append(name(root))
            sequenceValues.append(writer.integer(key))
        }
        add(Key.keySequences, writer.dictionary(keys: sequenceKeys, values: sequenceValues))
        return writer.dictionary(keys: keys, values: values)
    }

    /// A dictionary of strings, keys sorted; entity names are shared with the rest of the file.
    private mutating func stringDictionary(_ dictionary: [String: String], sharedKeys: Bool) -> Int {
        var keys: [Int] = []
        var values: [Int] = []
        for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
            keys.append(sharedKeys ? name(key) : writer.string(key))
            values.append(writer.string(value))
        }
        return writer.dictionary(keys: keys, values: values)
    }

    // MARK: - Records

    /// What is needed to write one entity's records: its stored properties in model order, each
    /// with its shared key string (names and types only, cheap to copy in the per-record loop).
    private struct EntityPlan {
        struct Attribute {
            var name: String
            var type: AttributeType
            var key: Int
        }

        struct Relationship {
            var name: String
            var destination: String
            var key: Int
            /// The keys of the destination's records in this file.
            var destinationKeys: RecordKeySet
        }

        var attributes: [Attribute] = []
        var toOne: [Relationship] = []
        var toMany: [Relationship] = []
        var primaryKey = 0
        var version = 0
    }

    private mutating func encode(_ records: [ObjectID: StoreRecord], of entity: EntityDescription) throws(StrataError) -> Int {
        var plan = EntityPlan()
        plan.primaryKey = name(Layout.RecordKey.primaryKey)
        plan.version = name(Layout.RecordKey.version)
        for attribute in entity.attributes where !attribute.isTransient {
            plan.attributes.append(EntityPlan.Attribute(name: attribute.name, type: attribute.type, key: name(attribute.name)))
        }
        for relationship in entity.relationships {
            let planned = EntityPlan.Relationship(
                name: relationship.name, destination: relationship.destination, key: name(relationship.name),
                destinationKeys: keys(of: relationship.destination))
            if relationship.isToMany { plan.toMany.append(planned) } else { plan.toOne.append(planned) }
        }
        let order = try AtomicStoreContents.keyOrder(records) {
            StrataError(.invalidData, "cannot write \($0): a store keeps only objects with permanent IDs")
        }
        var refs: [Int] = []
        refs.reserveCapacity(order.count)
        for (key, index) in order {
            refs.append(try encode(records.values[index], primaryKey: key, plan))
        }
        return writer.array(refs)
    }

    private mutating func encode(_ record: StoreRecord, primaryKey: Int64, _ plan: EntityPlan) throws(StrataError) -> Int {
        keys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        keys.append(plan.primaryKey)
        values.append(writer.integer(primaryKey))
        keys.append(plan.version)
        values.append(writer.integer(record.version))
        var found = 0
        for attribute in plan.attributes {
            guard let value = record.attributes[attribute.name] else { continue }
            found += 1
            values.append(try encode(value, name: attribute.name, type: attribute.type, in: record))
            keys.append(attribute.key)
        }
        if found != record.attributes.count {
            throw unknownKey(in: record, keys: Set(record.attributes.keys), known: plan.attributes.map(\.name), kind: "stored attribute")
        }
        found = 0
        for relationship in plan.toOne {
            guard let target = record.toOne[relationship.name] else { continue }
            found += 1
            values.append(try reference(to: target, through: relationship, from: record))
            keys.append(relationship.key)
        }
        if found != record.toOne.count {
            throw unknownKey(in: record, keys: Set(record.toOne.keys), known: plan.toOne.map(\.name), kind: "to-one relationship")
        }
        found = 0
        for relationship in plan.toMany {
            guard let targets = record.toMany[relationship.name] else { continue }
            found += 1
            members.removeAll(keepingCapacity: true)
            for target in targets {
                members.append(try reference(to: target, through: relationship, from: record))
            }
            values.append(writer.array(members))
            keys.append(relationship.key)
        }
        if found != record.toMany.count {
            throw unknownKey(in: record, keys: Set(record.toMany.keys), known: plan.toMany.map(\.name), kind: "to-many relationship")
        }
        return writer.dictionary(keys: keys, values: values)
    }

    private func unknownKey(in record: StoreRecord, keys: Set<String>, known: [String], kind: String) -> StrataError {
        let unknown = keys.subtracting(known).sorted()
        return StrataError(.invalidData, "cannot write \(record.objectID): '\(record.objectID.entityName)' has no \(kind) \(unknown.map { "'\($0)'" }.joined(separator: ", "))")
    }

    private func encode(_ value: AttributeValue, name: String, type: AttributeType, in record: StoreRecord) throws(StrataError) -> Int {
        switch (type, value) {
        case (.string, .string(let string)):
            return writer.string(string)
        case (.int16, .integer(let integer)), (.int32, .integer(let integer)), (.int64, .integer(let integer)):
            guard type.integerRange!.contains(integer) else {
                throw StrataError(.invalidData, "cannot write \(record.objectID).\(name): \(integer) is outside the \(type.rawValue) range")
            }
            return writer.integer(integer)
        case (.decimal, .decimal(let decimal)):
            guard let text = Layout.text(of: decimal) else {
                throw StrataError(.invalidData, "cannot write \(record.objectID).\(name): the decimal \(decimal) has no exact text form")
            }
            return writer.string(text)
        case (.double, .double(let double)):
            return writer.real(double)
        case (.float, .float(let float)):
            return writer.real(float)
        case (.bool, .bool(let bool)):
            return writer.bool(bool)
        case (.date, .date(let date)):
            return writer.date(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case (.binary, .binary(let data)), (.transformable, .binary(let data)):
            return writer.data(data)
        case (.uuid, .uuid(let uuid)):
            return writer.string(Layout.text(of: uuid))
        case (.uri, .uri(let url)):
            return writer.string(url.absoluteString)
        default:
            throw StrataError(.invalidData, "cannot write \(record.objectID).\(name): the model says \(type.rawValue), but the value is \(value) (\(Self.kind(of: value)))")
        }
    }

    private static func kind(of value: AttributeValue) -> String {
        switch value {
        case .string: "a string"
        case .integer: "an integer"
        case .decimal: "a decimal"
        case .double: "a double"
        case .float: "a float"
        case .bool: "a bool"
        case .date: "a date"
        case .binary: "binary data"
        case .uuid: "a UUID"
        case .uri: "a URI"
        }
    }

    /// A reference as the layout writes it: the destination's primary key when the object is of
    /// the relationship's destination entity and in this file; `Entity/p12` for an object of a
    /// subentity or one this store no longer holds (left by the `noAction` delete rule or a
    /// relationship without inverse); the URI for an object of another store.
    private func reference(to target: ObjectID, through relationship: EntityPlan.Relationship, from record: StoreRecord) throws(StrataError) -> Int {
        guard let primaryKey = target.primaryKey else {
            throw StrataError(.invalidData, "cannot write \(record.objectID).\(relationship.name): it refers to \(target), which has a temporary ID")
        }
        guard target.storeIdentifier == contents.metadata.storeIdentifier else {
            return writer.string(target.uriRepresentation.absoluteString)
        }
        if target.entityName == relationship.destination, relationship.destinationKeys.contains(primaryKey) {
            return writer.integer(primaryKey)
        }
        guard let entity = schema.entity(named: target.entityName),
              entity.name == relationship.destination || entity.ancestorNames.contains(relationship.destination)
        else {
            throw StrataError(.invalidData, "cannot write \(record.objectID).\(relationship.name): it refers to \(target), which is not a '\(relationship.destination)'")
        }
        return writer.string(Layout.referenceText(target, primaryKey: primaryKey))
    }
}
