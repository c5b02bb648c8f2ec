internal import Foundation
internal import Strata

/// What ``XMLStoreReader`` needs of one entity of the stored model: its attributes as the file
/// names them, where each goes in the entity's `AttributeValues.Layout`, and its relationships.
///
/// The attribute table the reader consults for every `<attribute>` element is plain memory
/// (``slots``), read without reference counting; the class owns it.
final class XMLReaderEntity {
    /// One stored attribute, in model order: files list them in that order, so the reader
    /// tries the slot after the last one first and compares bytes, not hashes.
    struct Slot {
        /// The name's UTF-8, in memory the entity owns.
        var name: UnsafeBufferPointer<UInt8>
        var type: AttributeType
        var typeName: StaticString
        /// The attribute's position in ``XMLReaderEntity/layout``.
        var position: Int
    }

    struct Relationship {
        var name: String
        var isToMany: Bool
        /// `min/max` as the file's `type` gives it.
        var type: String
        var destination: String
        var destinationIndex: Int
    }

    let description: EntityDescription
    let index: Int
    let rootIndex: Int
    let nameBytes: [UInt8]
    let slots: UnsafeMutableBufferPointer<Slot>
    /// The layout records of the entity share.
    let layout: AttributeValues.Layout
    let attributeNames: [String]
    let attributeIndex: [String: Int]
    let relationships: [Relationship]
    let relationshipIndex: [String: Int]
    /// Indices of this entity and every entity below it (``XMLReaderEntity/entities(of:)``).
    private(set) var family: Set<Int> = []

    private init(_ entity: EntityDescription, index: Int, indices: [String: Int]) {
        description = entity
        self.index = index
        rootIndex = indices[entity.rootName]!
        nameBytes = Array(entity.name.utf8)
        let stored = entity.attributes.filter { !$0.isTransient }
        attributeNames = stored.map(\.name)
        attributeIndex = Dictionary(uniqueKeysWithValues: attributeNames.enumerated().map { ($1, $0) })
        layout = entity.attributeLayout
        slots = .allocate(capacity: stored.count)
        for (slot, attribute) in stored.enumerated() {
            let bytes = Array(attribute.name.utf8)
            let name = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            _ = name.initialize(from: bytes)
            slots.baseAddress!.advanced(by: slot).initialize(to: Slot(
                name: UnsafeBufferPointer(rebasing: name[..<bytes.count]), type: attribute.type, typeName: attribute.type.name,
                position: layout.position(of: attribute.name)!))
        }
        relationships = entity.relationships.map { relationship in
            Relationship(
                name: relationship.name, isToMany: relationship.isToMany,
                type: relationship.isToMany
                    ? "\(relationship.minCount)/\(relationship.maxCount)"
                    : (relationship.isOptional ? "0/1" : "1/1"),
                destination: relationship.destination,
                destinationIndex: indices[relationship.destination]!)
        }
        relationshipIndex = Dictionary(uniqueKeysWithValues: entity.relationships.enumerated().map { ($1.name, $0) })
    }

    deinit {
        for slot in slots { UnsafeMutableRawPointer(mutating: slot.name.baseAddress!).deallocate() }
        slots.deallocate()
    }

    /// The entities of `schema`, in its order.
    static func entities(of schema: Schema) -> [XMLReaderEntity] {
        let indices = Dictionary(uniqueKeysWithValues: schema.entities.enumerated().map { ($1.name, $0) })
        let entities = schema.entities.enumerated().map { XMLReaderEntity($1, index: $0, indices: indices) }
        for entity in entities {
            // Every entity belongs to its own family and to each ancestor's.
            entity.family.insert(entity.index)
            for ancestor in entity.description.ancestorNames { entities[indices[ancestor]!].family.insert(entity.index) }
        }
        return entities
    }

    var name: String { description.name }

    /// The slot of the attribute named `name` in `slots` (an entity's): the one at `next` or
    /// after it when the bytes match, files listing attributes in model order; nil otherwise.
    @inline(__always)
    static func slot(named name: UnsafeBufferPointer<UInt8>, in slots: UnsafeBufferPointer<Slot>, from next: Int) -> Int? {
        var index = next
        while index < slots.count {
            let candidate = slots[index].name
            if candidate.count == name.count && XMLValueCoding.bytesEqual(candidate.baseAddress!, name.baseAddress!, count: name.count) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The slot of the attribute named `name`, wherever it is.
    func slot(named name: UnsafeBufferPointer<UInt8>) -> Int? {
        attributeIndex[String(decoding: name, as: UTF8.self)]
    }
}

/// A set of slots (of attributes or relationships) with no allocation for the first 64.
struct XMLSlotSet {
    private var first: UInt64 = 0
    private var rest: [UInt64] = []

    mutating func removeAll() {
        first = 0
        if !rest.isEmpty { rest.removeAll(keepingCapacity: true) }
    }

    /// Adds `slot`; false when it is in the set already.
    @inline(__always)
    mutating func insert(_ slot: Int) -> Bool {
        let bit: UInt64 = 1 << UInt64(slot % 64)
        if slot < 64 {
            guard first & bit == 0 else { return false }
            first |= bit
            return true
        }
        let word = slot / 64 - 1
        while rest.count <= word { rest.append(0) }
        guard rest[word] & bit == 0 else { return false }
        rest[word] |= bit
        return true
    }
}
