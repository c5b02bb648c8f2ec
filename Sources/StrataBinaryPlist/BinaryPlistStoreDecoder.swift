internal import Foundation
internal import Strata

/// Reads a whole store from a checked ``BinaryPlistReader``, following the layout of
/// `Docs/BinaryPlistFormat.md` and the model stored in the file.
///
/// The decoder expects a fixed shape — top dictionary, metadata, `objects`, entity arrays,
/// record dictionaries, to-many arrays — so it never nests deeper than five containers; a
/// container found where a value belongs is a type error. On top of that it tracks the
/// containers it is inside (a container that contains itself, directly or indirectly, is
/// reported as cyclic) and spends a budget of object references as large as the file can hold,
/// so shared containers cannot make it decode more than the file's size allows.
struct BinaryPlistStoreDecoder {
    private typealias Layout = BinaryPlistLayout

    let reader: BinaryPlistReader
    /// Object references left to follow; see the type's description.
    private var budget: Int
    /// The containers being decoded, outermost first.
    private var path: [Int] = []
    private var generation = 0

    init(reader: BinaryPlistReader) {
        self.reader = reader
        budget = (reader.tableOffset - BinaryPlistReader.header.count) / reader.refSize + 16
    }

    private func corrupt(_ message: String, at offset: Int) -> StrataError {
        reader.corrupt(message, at: offset)
    }

    // MARK: - Containers and scalars

    private enum ContainerKind: String {
        case dictionary, array
    }

    /// Reads a container of the expected kind, refusing cycles and spending the budget. The
    /// caller appends `ref` to `path` while it decodes the contents.
    private mutating func container(_ ref: Int, _ kind: ContainerKind, _ what: @autoclosure () -> String) throws(StrataError) -> PlistContainer {
        let offset = try reader.offset(of: ref)
        if path.contains(ref) {
            throw corrupt("\(what()) is the container at byte offset \(offset), which contains it: the structure is cyclic", at: offset)
        }
        let object = try reader.object(ref, at: offset)
        let found: PlistContainer
        switch (kind, object) {
        case (.dictionary, .dictionary(let container)): found = container
        case (.array, .array(let container)): found = container
        default: throw corrupt("\(what()) should be \(kind == .array ? "an array" : "a dictionary") but is \(object.kindName)", at: offset)
        }
        let references = kind == .dictionary ? 2 * found.count : found.count
        budget -= references
        guard budget >= 0 else {
            throw corrupt("\(what()) makes the file refer to its objects more often than a file of \(reader.bytes.count) bytes can (containers are shared or nested in a loop)", at: offset)
        }
        return found
    }

    /// A string object, or a type error naming `what`.
    private func string(_ ref: Int, _ what: @autoclosure () -> String) throws(StrataError) -> String {
        let offset = try reader.offset(of: ref)
        let object = try reader.object(ref, at: offset)
        guard let string = try reader.string(object, at: offset) else {
            throw corrupt("\(what()) should be a string but is \(object.kindName)", at: offset)
        }
        return string
    }

    private func integer(_ ref: Int, _ what: @autoclosure () -> String) throws(StrataError) -> Int64 {
        let offset = try reader.offset(of: ref)
        let object = try reader.object(ref, at: offset)
        guard case .int(let value) = object else {
            throw corrupt("\(what()) should be an integer but is \(object.kindName)", at: offset)
        }
        return value
    }

    /// The entries of a dictionary whose keys are strings, in file order, with the offset of each
    /// key for error messages. Duplicate keys are refused.
    private func entries(of container: PlistContainer, _ what: String) throws(StrataError) -> [(key: String, value: Int)] {
        var result: [(key: String, value: Int)] = []
        result.reserveCapacity(container.count)
        var seen = Set<String>()
        for index in 0..<container.count {
            let keyRef = try reader.reference(index, in: container)
            let key = try string(keyRef, "a key of \(what)")
            guard seen.insert(key).inserted else {
                throw corrupt("\(what) has the key '\(key)' twice", at: container.offset)
            }
            result.append((key, try reader.reference(container.count + index, in: container)))
        }
        return result
    }

    // MARK: - Top level and metadata

    /// The object numbers of the metadata dictionary and the `objects` dictionary.
    private mutating func topLevel() throws(StrataError) -> (metadata: Int, objects: Int) {
        let top = try container(reader.topObject, .dictionary, "the top object")
        var metadata: Int?
        var objects: Int?
        for (key, value) in try entries(of: top, "the top dictionary") {
            switch key {
            case Layout.TopKey.metadata: metadata = value
            case Layout.TopKey.objects: objects = value
            default:
                throw corrupt("the top dictionary has an unknown key '\(key)'; a Strata binary store has only 'metadata' and 'objects'", at: top.offset)
            }
        }
        guard let metadata else {
            throw corrupt("the top dictionary has no 'metadata'; this is not a Strata binary store", at: top.offset)
        }
        guard let objects else {
            throw corrupt("the top dictionary has no 'objects'; this is not a Strata binary store", at: top.offset)
        }
        return (metadata, objects)
    }

    /// The store's metadata and key sequences.
    mutating func metadata() throws(StrataError) -> (StoreMetadata, keySequences: [String: Int64]) {
        let refs = try topLevel()
        path.append(reader.topObject)
        defer { path.removeLast() }
        return try metadata(refs.metadata)
    }

    private mutating func metadata(_ ref: Int) throws(StrataError) -> (StoreMetadata, keySequences: [String: Int64]) {
        typealias Key = Layout.MetadataKey
        let dictionary = try container(ref, .dictionary, "the metadata")
        path.append(ref)
        defer { path.removeLast() }
        var formatVersion: Int64?
        var strings: [String: String] = [:]
        var entityHashes: [String: String]?
        var custom: [String: String]?
        var keySequences: [String: Int64]?
        for (key, value) in try entries(of: dictionary, "the metadata") {
            switch key {
            case Key.formatVersion:
                formatVersion = try integer(value, "the metadata's 'formatVersion'")
            case Key.storeIdentifier, Key.storeType, Key.modelName, Key.modelVersionHash, Key.schema:
                strings[key] = try string(value, "the metadata's '\(key)'")
            case Key.entityVersionHashes:
                entityHashes = try stringDictionary(value, "the metadata's 'entityVersionHashes'")
            case Key.custom:
                custom = try stringDictionary(value, "the metadata's 'custom'")
            case Key.keySequences:
                let sequences = try container(value, .dictionary, "the metadata's 'keySequences'")
                var result: [String: Int64] = [:]
                for (root, key) in try entries(of: sequences, "the metadata's 'keySequences'") {
                    result[root] = try integer(key, "the key sequence of '\(root)'")
                }
                keySequences = result
            default:
                throw corrupt("the metadata has an unknown key '\(key)'\(Suggestion.didYouMean(key, in: Key.all))", at: dictionary.offset)
            }
        }
        guard let formatVersion else {
            throw corrupt("the metadata has no 'formatVersion'; this is not a Strata binary store", at: dictionary.offset)
        }
        guard formatVersion <= Layout.formatVersion else {
            throw corrupt("the store was written in layout version \(formatVersion) by a newer Strata; this one reads version \(Layout.formatVersion)", at: dictionary.offset)
        }
        guard formatVersion == Layout.formatVersion else {
            throw corrupt("the metadata gives the layout version \(formatVersion); the only version is \(Layout.formatVersion)", at: dictionary.offset)
        }
        func required<T>(_ value: T?, _ key: String) throws(StrataError) -> T {
            guard let value else { throw corrupt("the metadata has no '\(key)'", at: dictionary.offset) }
            return value
        }
        let metadata = StoreMetadata(
            storeIdentifier: try required(strings[Key.storeIdentifier], Key.storeIdentifier),
            storeType: StoreType(rawValue: try required(strings[Key.storeType], Key.storeType)),
            modelName: try required(strings[Key.modelName], Key.modelName),
            modelVersionHash: try required(strings[Key.modelVersionHash], Key.modelVersionHash),
            entityVersionHashes: try required(entityHashes, Key.entityVersionHashes),
            schemaJSON: try required(strings[Key.schema], Key.schema),
            custom: try required(custom, Key.custom))
        return (metadata, try required(keySequences, Key.keySequences))
    }

    private mutating func stringDictionary(_ ref: Int, _ what: String) throws(StrataError) -> [String: String] {
        let dictionary = try container(ref, .dictionary, what)
        var result: [String: String] = [:]
        for (key, value) in try entries(of: dictionary, what) {
            result[key] = try string(value, "the value of '\(key)' in \(what)")
        }
        return result
    }

    // MARK: - The whole store

    mutating func contents() throws(StrataError) -> AtomicStoreContents {
        let refs = try topLevel()
        path.append(reader.topObject)
        defer { path.removeLast() }
        let (metadata, keySequences) = try metadata(refs.metadata)
        let metadataOffset = try reader.offset(of: refs.metadata)
        let schema: Schema
        do {
            schema = try metadata.schema()
        } catch {
            throw corrupt("the model stored in the metadata does not load: \(error.message)", at: metadataOffset)
        }
        guard schema.versionHash == metadata.modelVersionHash, schema.entityVersionHashes == metadata.entityVersionHashes else {
            throw corrupt("the model stored in the metadata does not have the model and entity hashes the metadata gives; the file was altered", at: metadataOffset)
        }
        for root in keySequences.keys where schema.entity(named: root) == nil {
            throw corrupt("the metadata has a key sequence for '\(root)', an entity the stored model does not have", at: metadataOffset)
        }
        let records = try objects(refs.objects, schema: schema, storeIdentifier: metadata.storeIdentifier)
        try checkReferences(in: records, storeIdentifier: metadata.storeIdentifier)
        return AtomicStoreContents(metadata: metadata, records: records, keySequences: keySequences)
    }

    // MARK: - Records

    /// A key of a record, small enough to copy freely in the per-record loop.
    private struct Slot {
        enum Kind {
            case primaryKey
            case version
            /// The type, and the position in the entity's `AttributeValues.Layout`.
            case attribute(AttributeType, position: Int)
            /// An index into ``EntityPlan/relationships``.
            case toOne(Int)
            case toMany(Int)
        }

        /// An index into ``EntityPlan/names`` and ``EntityPlan/seen``.
        var index: Int
        var kind: Kind
    }

    /// What reading a reference needs to know about its relationship.
    private struct RelationshipInfo {
        var name: String
        var destination: String
        var destinationIsAbstract: Bool
        /// Where references by primary key through it are noted (see ``referencedKeys``).
        var keysSlot = 0
    }

    /// How to read one entity's records: its keys by name and, once seen, by the object number of
    /// the key string (files share key strings between records).
    private struct EntityPlan {
        var entity: EntityDescription
        var names: [String] = [Layout.RecordKey.primaryKey, Layout.RecordKey.version]
        var relationships: [RelationshipInfo] = []
        var slots: [String: Slot] = [:]
        /// Slots by the object number of their key string: in an array for the small numbers
        /// writers give key strings (written first), in a dictionary beyond.
        var slotsBySmallRef: [Slot?] = []
        var slotsByRef: [Int: Slot] = [:]

        func slot(forKeyRef ref: Int) -> Slot? {
            ref < slotsBySmallRef.count ? slotsBySmallRef[ref] : slotsByRef[ref]
        }

        mutating func remember(_ slot: Slot, forKeyRef ref: Int) {
            guard ref < 4096 else {
                slotsByRef[ref] = slot
                return
            }
            if ref >= slotsBySmallRef.count { slotsBySmallRef += Array(repeating: nil, count: ref + 1 - slotsBySmallRef.count) }
            slotsBySmallRef[ref] = slot
        }
        /// The generation of the record that last set each slot, to refuse repeated keys.
        var seen: [Int]
        var transient: Set<String>

        init(_ entity: EntityDescription, schema: Schema) {
            self.entity = entity
            var slots: [String: Slot] = [:]
            slots[Layout.RecordKey.primaryKey] = Slot(index: 0, kind: .primaryKey)
            slots[Layout.RecordKey.version] = Slot(index: 1, kind: .version)
            for attribute in entity.attributes where !attribute.isTransient {
                let position = entity.attributeLayout.position(of: attribute.name)!
                slots[attribute.name] = Slot(index: names.count, kind: .attribute(attribute.type, position: position))
                names.append(attribute.name)
            }
            for relationship in entity.relationships {
                let position = relationships.count
                relationships.append(RelationshipInfo(
                    name: relationship.name, destination: relationship.destination,
                    destinationIsAbstract: schema.entity(named: relationship.destination)?.isAbstract ?? false))
                slots[relationship.name] = Slot(index: names.count, kind: relationship.isToMany ? .toMany(position) : .toOne(position))
                names.append(relationship.name)
            }
            self.slots = slots
            seen = Array(repeating: 0, count: names.count)
            transient = Set(entity.attributes.filter(\.isTransient).map(\.name))
        }
    }

    /// Where a record is, for error messages.
    private struct Place {
        var entity: String
        var index: Int
        var offset: Int

        var description: String { "record \(index) of '\(entity)' (the dictionary at byte offset \(offset))" }
    }

    private mutating func objects(_ ref: Int, schema: Schema, storeIdentifier: String) throws(StrataError) -> [String: [ObjectID: StoreRecord]] {
        let dictionary = try container(ref, .dictionary, "the 'objects' dictionary")
        path.append(ref)
        defer { path.removeLast() }
        var result: [String: [ObjectID: StoreRecord]] = [:]
        /// Per root with more than one concrete entity in the file: keys already used.
        var keysByRoot: [String: [Int64: String]] = [:]
        for (entityName, arrayRef) in try entries(of: dictionary, "the 'objects' dictionary") {
            guard let entity = schema.entity(named: entityName) else {
                throw corrupt("the 'objects' dictionary has records of '\(entityName)', an entity the stored model does not have\(Suggestion.didYouMean(entityName, in: schema.entities.map(\.name)))", at: dictionary.offset)
            }
            guard !entity.isAbstract else {
                throw corrupt("the 'objects' dictionary has records of '\(entityName)', which is abstract and has no instances of its own", at: dictionary.offset)
            }
            let records = try records(arrayRef, of: entity, storeIdentifier: storeIdentifier, schema: schema)
            if schema.entityAndDescendants(of: entity.rootName).filter({ !$0.isAbstract }).count > 1 {
                var used = keysByRoot[entity.rootName, default: [:]]
                for id in records.keys {
                    let key = id.primaryKey!
                    if let other = used.updateValue(entityName, forKey: key) {
                        throw corrupt("primary key \(key) is used by a '\(other)' and a '\(entityName)' record; keys are unique within the '\(entity.rootName)' hierarchy", at: dictionary.offset)
                    }
                }
                keysByRoot[entity.rootName] = used
            }
            result[entityName] = records
        }
        return result
    }

    private mutating func records(_ ref: Int, of entity: EntityDescription, storeIdentifier: String, schema: Schema) throws(StrataError) -> [ObjectID: StoreRecord] {
        let array = try container(ref, .array, "the records of '\(entity.name)'")
        path.append(ref)
        defer { path.removeLast() }
        var plan = EntityPlan(entity, schema: schema)
        for index in plan.relationships.indices {
            plan.relationships[index].keysSlot = keysSlot(of: plan.relationships[index].destination)
        }
        var result: [ObjectID: StoreRecord] = [:]
        result.reserveCapacity(array.count)
        for index in 0..<array.count {
            let recordRef = try reader.reference(index, in: array)
            let record = try self.record(recordRef, index: index, plan: &plan, storeIdentifier: storeIdentifier, schema: schema)
            if result.updateValue(record.record, forKey: record.record.objectID) != nil {
                throw corrupt("'\(entity.name)' has two records with primary key \(record.record.objectID.primaryKey!)", at: record.offset)
            }
        }
        return result
    }

    private mutating func record(
        _ ref: Int, index: Int, plan: inout EntityPlan, storeIdentifier: String, schema: Schema
    ) throws(StrataError) -> (record: StoreRecord, offset: Int) {
        let entityName = plan.entity.name
        let dictionary = try container(ref, .dictionary, "record \(index) of '\(entityName)'")
        let place = Place(entity: entityName, index: index, offset: dictionary.offset)
        path.append(ref)
        defer { path.removeLast() }
        generation += 1
        var primaryKey: Int64?
        var version: Int64?
        var attributes = AttributeValues(layout: plan.entity.attributeLayout)
        var toOne: [String: ObjectID] = [:]
        var toMany: [String: [ObjectID]] = [:]
        for entry in 0..<dictionary.count {
            let keyRef = try reader.reference(entry, in: dictionary)
            let valueRef = try reader.reference(dictionary.count + entry, in: dictionary)
            let slot: Slot
            if let known = plan.slot(forKeyRef: keyRef) {
                slot = known
            } else {
                let key = try string(keyRef, "a key of \(place.description)")
                guard let found = plan.slots[key] else {
                    if plan.transient.contains(key) {
                        throw corrupt("\(place.description) has a value for '\(key)', a transient attribute, which no store keeps", at: dictionary.offset)
                    }
                    throw corrupt("\(place.description) has the key '\(key)', which '\(entityName)' does not have\(Suggestion.didYouMean(key, in: plan.slots.keys))", at: dictionary.offset)
                }
                plan.remember(found, forKeyRef: keyRef)
                slot = found
            }
            guard plan.seen[slot.index] != generation else {
                throw corrupt("\(place.description) has the key '\(plan.names[slot.index])' twice", at: dictionary.offset)
            }
            plan.seen[slot.index] = generation
            switch slot.kind {
            case .primaryKey:
                primaryKey = try integer(valueRef, "the '@id' of \(place.description)")
            case .version:
                version = try integer(valueRef, "the '@version' of \(place.description)")
            case .attribute(let type, let position):
                attributes[position: position] = try value(valueRef, type: type, name: plan.names[slot.index], place)
            case .toOne(let position):
                let relationship = plan.relationships[position]
                toOne[relationship.name] = try objectID(valueRef, through: relationship, place, storeIdentifier: storeIdentifier, schema: schema)
            case .toMany(let position):
                let relationship = plan.relationships[position]
                let members = try container(valueRef, .array, "'\(relationship.name)' of \(place.description)")
                var ids: [ObjectID] = []
                ids.reserveCapacity(members.count)
                for member in 0..<members.count {
                    let memberRef = try reader.reference(member, in: members)
                    ids.append(try objectID(memberRef, through: relationship, place, storeIdentifier: storeIdentifier, schema: schema))
                }
                toMany[relationship.name] = ids
            }
        }
        guard let primaryKey else {
            throw corrupt("\(place.description) has no '@id' (its primary key)", at: dictionary.offset)
        }
        guard let version else {
            throw corrupt("\(place.description) has no '@version'", at: dictionary.offset)
        }
        let id = ObjectID(entityName: entityName, storeIdentifier: storeIdentifier, primaryKey: primaryKey)
        return (StoreRecord(objectID: id, attributes: attributes, toOne: toOne, toMany: toMany, version: version), dictionary.offset)
    }

    // MARK: - Values

    private func value(_ ref: Int, type: AttributeType, name: String, _ place: Place) throws(StrataError) -> AttributeValue {
        let offset = try reader.offset(of: ref)
        let object = try reader.object(ref, at: offset)
        func mismatch(_ expected: String) -> StrataError {
            corrupt("'\(name)' of \(place.description) should be \(expected) (the model says \(type.rawValue)) but is \(object.kindName)", at: offset)
        }
        switch type {
        case .string:
            guard let string = try reader.string(object, at: offset) else { throw mismatch("a string") }
            return .string(string)
        case .int16, .int32, .int64:
            guard case .int(let integer) = object else { throw mismatch("an integer") }
            let range = type.integerRange!
            guard range.contains(integer) else {
                throw corrupt("'\(name)' of \(place.description) is \(integer), outside the \(type.rawValue) range \(range.lowerBound)...\(range.upperBound)", at: offset)
            }
            return .integer(integer)
        case .decimal:
            if case .int(let integer) = object { return .decimal(Decimal(integer)) }
            guard let text = try reader.string(object, at: offset) else { throw mismatch("a decimal written as a string") }
            guard let decimal = Layout.decimal(from: text) else {
                throw corrupt("'\(name)' of \(place.description) is \(String(reflecting: text)), not a decimal number like \"12.50\" with at most 38 significant digits", at: offset)
            }
            return .decimal(decimal)
        case .double:
            switch object {
            case .real(let double, _): return .double(double)
            case .int(let integer): return .double(Double(integer))
            default: throw mismatch("a real")
            }
        case .float:
            switch object {
            case .real(let double, _): return .float(Float(double))
            case .int(let integer): return .float(Float(integer))
            default: throw mismatch("a real")
            }
        case .bool:
            guard case .bool(let bool) = object else { throw mismatch("a boolean") }
            return .bool(bool)
        case .date:
            guard case .date(let seconds) = object else { throw mismatch("a date") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .binary, .transformable:
            guard case .data(let range) = object else { throw mismatch("data") }
            return .binary(reader.data(range))
        case .uuid:
            if case .data(let range) = object, range.count == 16 {
                var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: UnsafeRawBufferPointer(rebasing: reader.bytes[range])) }
                return .uuid(UUID(uuid: bytes))
            }
            if case .asciiString(let range) = object,
               let uuid = Layout.uuid(fromASCII: UnsafeRawBufferPointer(rebasing: reader.bytes[range])) {
                return .uuid(uuid)
            }
            guard let text = try reader.string(object, at: offset) else { throw mismatch("a UUID string") }
            guard let uuid = UUID(uuidString: text) else {
                throw corrupt("'\(name)' of \(place.description) is \(String(reflecting: text)), not a UUID like \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"", at: offset)
            }
            return .uuid(uuid)
        case .uri:
            guard let text = try reader.string(object, at: offset) else { throw mismatch("a URI string") }
            guard !text.isEmpty, let url = URL(string: text) else {
                throw corrupt("'\(name)' of \(place.description) is \(String(reflecting: text)), not a URI", at: offset)
            }
            return .uri(url)
        }
    }

    // MARK: - References

    /// A reference in one of the layout's three forms: a primary key of the destination entity,
    /// `Entity/p12`, or an object URI (`strata://<store>/Entity/p12`).
    private mutating func objectID(
        _ ref: Int, through relationship: RelationshipInfo, _ place: Place, storeIdentifier: String, schema: Schema
    ) throws(StrataError) -> ObjectID {
        let offset = try reader.offset(of: ref)
        let object = try reader.object(ref, at: offset)
        // Built only for an error: this runs for every reference of the file.
        var what: String { "'\(relationship.name)' of \(place.description)" }
        if case .int(let primaryKey) = object {
            if relationship.destinationIsAbstract {
                throw corrupt("\(what) refers to '\(relationship.destination)' \(primaryKey), but '\(relationship.destination)' is abstract: a reference to one of its subentities names it ('Entity/p\(primaryKey)')", at: offset)
            }
            referencedKeys[relationship.keysSlot].append(primaryKey)
            return ObjectID(entityName: relationship.destination, storeIdentifier: storeIdentifier, primaryKey: primaryKey)
        }
        guard let text = try reader.string(object, at: offset) else {
            throw corrupt("\(what) should be a reference (a primary key, 'Entity/p12' or an object URI) but is \(object.kindName)", at: offset)
        }
        var store = storeIdentifier
        var rest = Substring(text)
        let scheme = "strata://"
        if text.hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
            guard let slash = rest.firstIndex(of: "/"), slash > rest.startIndex else {
                throw corrupt("\(what) is \(String(reflecting: text)), not an object URI like 'strata://<store UUID>/Entity/p12'", at: offset)
            }
            store = String(rest[..<slash])
            rest = rest[rest.index(after: slash)...]
        }
        guard let (entityName, primaryKey) = Layout.parseReference(rest) else {
            throw corrupt("\(what) is \(String(reflecting: text)), not a reference like 'Entity/p12'", at: offset)
        }
        guard let entity = schema.entity(named: String(entityName)) else {
            throw corrupt("\(what) refers to \(String(reflecting: text)), but the model has no entity '\(entityName)'", at: offset)
        }
        guard entity.name == relationship.destination || entity.ancestorNames.contains(relationship.destination) else {
            throw corrupt("\(what) refers to \(String(reflecting: text)), which is not a '\(relationship.destination)'", at: offset)
        }
        guard !entity.isAbstract else {
            throw corrupt("\(what) refers to \(String(reflecting: text)), but '\(entity.name)' is abstract and has no instances", at: offset)
        }
        let id = ObjectID(entityName: entity.name, storeIdentifier: store, primaryKey: primaryKey)
        if store == storeIdentifier { explicitReferences.insert(id) }
        return id
    }

    /// Same-store references written with their entity named: the only ones that may name an
    /// object the file does not hold (see ``checkReferences(in:storeIdentifier:)``).
    private var explicitReferences: Set<ObjectID> = []

    /// The destinations of references by primary key, and the keys referred to in each (an
    /// index into both is a relationship's ``RelationshipInfo/keysSlot``): checked once every
    /// record is read, without walking the records again.
    private var referencedEntities: [String] = []
    private var referencedKeys: [[Int64]] = []

    private mutating func keysSlot(of destination: String) -> Int {
        if let slot = referencedEntities.firstIndex(of: destination) { return slot }
        referencedEntities.append(destination)
        referencedKeys.append([])
        return referencedEntities.count - 1
    }

    /// Every reference by primary key must name a record in the file; a dangling one means the
    /// file was damaged (the writer names the entity of references it knows to dangle).
    private func checkReferences(in records: [String: [ObjectID: StoreRecord]], storeIdentifier: String) throws(StrataError) {
        for (slot, destination) in referencedEntities.enumerated() {
            let keys = RecordKeySet(records[destination], storeIdentifier: storeIdentifier)
            for key in referencedKeys[slot] where !keys.contains(key) {
                let target = ObjectID(entityName: destination, storeIdentifier: storeIdentifier, primaryKey: key)
                if !explicitReferences.contains(target) { try throwDanglingReference(in: records) }
            }
        }
    }

    /// Finds a dangling reference by walking every record, and throws naming where it is.
    private func throwDanglingReference(in records: [String: [ObjectID: StoreRecord]]) throws(StrataError) {
        func check(_ target: ObjectID, _ source: ObjectID, _ key: String) throws(StrataError) {
            guard target.storeIdentifier == source.storeIdentifier,
                  records[target.entityName]?.index(forKey: target) == nil,
                  !explicitReferences.contains(target)
            else { return }
            throw StrataError(
                .corruptStore,
                "\(source).\(key) refers to '\(target.entityName)' \(target.primaryKey ?? 0), which is not in the file: a dangling reference",
                file: reader.file)
        }
        for entityRecords in records.values {
            for record in entityRecords.values {
                for (key, target) in record.toOne { try check(target, record.objectID, key) }
                for (key, targets) in record.toMany {
                    for target in targets { try check(target, record.objectID, key) }
                }
            }
        }
        throw StrataError(.corruptStore, "a reference names an object that is not in the file: a dangling reference", file: reader.file)
    }
}
