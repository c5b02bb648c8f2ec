public import Foundation

/// Writes stored objects in Strata's JSON data format, canonically: concrete entities by name,
/// objects by `@id`, keys sorted, every stored attribute and relationship present (null, or []
/// for an empty to-many), to-many members ascending unless ordered. Two stores hold the same
/// graph exactly when their dumps are byte-identical.
public enum DataExporter {
    /// The canonical dump of every concrete entity, or of `entityNames` (with their subentities).
    /// - Throws: `unknownEntity`, or a store's error.
    public static func dump(_ coordinator: PersistentStoreCoordinator, entityNames: [String]? = nil) throws(StrataError) -> String {
        var bytes: [UInt8] = []
        try dump(coordinator, entityNames: entityNames) { (chunk: Data) throws(StrataError) in bytes.append(contentsOf: chunk) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// How far a dump has come: `completed` of the `total` objects of `entityName`.
    public struct Progress: Sendable, Hashable {
        public var entityName: String
        public var completed: Int
        public var total: Int
    }

    /// Writes the canonical dump of every concrete entity, or of `entityNames` (with their
    /// subentities), to `output` in chunks as it goes: entity by entity, the records read a
    /// batch at a time, so that neither every record nor the whole text is ever in memory.
    /// The bytes are those of ``dump(_:entityNames:)``.
    /// - Parameters:
    ///   - progress: called every few hundred objects, for a progress display.
    ///   - coordinator: the coordinator whose stores are dumped.
    ///   - entityNames: the entities to dump (with their subentities); every concrete entity when nil.
    ///   - output: takes each chunk of the text, in order; an error it throws ends the dump.
    /// - Throws: `unknownEntity`, a store's error, or `output`'s.
    public static func dump(
        _ coordinator: PersistentStoreCoordinator, entityNames: [String]? = nil,
        progress: ((Progress) -> Void)? = nil, to output: (Data) throws(StrataError) -> Void
    ) throws(StrataError) {
        let schema = coordinator.schema
        var selected: [EntityDescription]
        if let entityNames {
            selected = []
            for name in entityNames {
                selected += try schema.entityAndDescendants(of: coordinator.entity(named: name).name)
            }
        } else {
            selected = schema.entities
        }
        var seen: Set<String> = []
        selected = selected.filter { !$0.isAbstract && seen.insert($0.name).inserted }
        // In the order of JSONWriter's sorted keys: by Unicode scalars.
        selected.sort { $0.name.unicodeScalars.lexicographicallyPrecedes($1.name.unicodeScalars) }

        try withoutActuallyEscaping(output) { (output) throws(StrataError) in
            var writer = JSONOutput(sink: output)
            try write(selected.map(\.name), into: &writer) { (name, writer) throws(StrataError) in
                try writeObjects(of: schema.entity(named: name)!, coordinator, into: &writer, progress: progress)
            }
            try writer.flush()
        }
    }

    /// `{"objects": {...}}` with a member for each of `names`, in this order, whose value `body`
    /// writes.
    private static func write(
        _ names: [String], into writer: inout JSONOutput, _ body: (String, inout JSONOutput) throws(StrataError) -> Void
    ) throws(StrataError) {
        writer.append("{")
        writer.newline(indent: 1)
        writer.append("\"objects\": ")
        if names.isEmpty {
            writer.append("{}")
        } else {
            writer.append("{")
            for (index, name) in names.enumerated() {
                if index > 0 { writer.append(",") }
                writer.newline(indent: 2)
                writer.append(string: name)
                writer.append(": ")
                try body(name, &writer)
            }
            writer.newline(indent: 1)
            writer.append("}")
        }
        writer.newline(indent: 0)
        writer.append("}\n")
    }

    /// An entity's array of objects, written an element at a time.
    private struct ObjectArray {
        private var count = 0

        /// Starts the next element (opening the array before the first).
        mutating func element(_ writer: inout JSONOutput) {
            writer.append(count == 0 ? "[" : ",")
            writer.newline(indent: 3)
            count += 1
        }

        func close(_ writer: inout JSONOutput) {
            guard count > 0 else {
                writer.append("[]")
                return
            }
            writer.newline(indent: 2)
            writer.append("]")
        }
    }

    /// How many records a dump reads at a time.
    static let batchSize = 1000

    /// The array of an entity's objects, by `@id`, their records read a batch at a time.
    private static func writeObjects(
        of entity: EntityDescription, _ coordinator: PersistentStoreCoordinator, into writer: inout JSONOutput,
        progress: ((Progress) -> Void)?
    ) throws(StrataError) {
        let store = try coordinator.store(forEntity: entity.name)
        let ids = try store.fetchObjectIDs(StoreFetchRequest(entityNames: [entity.name]))
            .sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        let members = Member.sorted(entity)
        var array = ObjectArray()
        var written = 0
        for start in stride(from: 0, to: ids.count, by: batchSize) {
            let batch = Array(ids[start..<min(start + batchSize, ids.count)])
            let records = try store.records(for: batch)
            for id in batch {
                // One deleted by another process since the IDs were read is left out.
                guard let record = records[id] else { continue }
                array.element(&writer)
                try writeObject(record, members, coordinator, into: &writer)
                written += 1
                try writer.flushIfFull()
            }
            progress?(Progress(entityName: entity.name, completed: written, total: ids.count))
        }
        array.close(&writer)
    }

    /// A key of an entity's objects in a dump.
    private enum Member {
        case id
        case attribute(AttributeDescription)
        case relationship(RelationshipDescription)

        var name: String {
            switch self {
            case .id: "@id"
            case .attribute(let attribute): attribute.name
            case .relationship(let relationship): relationship.name
            }
        }

        /// `@id`, the stored attributes and the relationships, in the order of sorted keys.
        static func sorted(_ entity: EntityDescription) -> [Member] {
            let members = [Member.id] + entity.attributes.filter { !$0.isTransient }.map(Member.attribute) + entity.relationships.map(Member.relationship)
            return members.sorted { $0.name.unicodeScalars.lexicographicallyPrecedes($1.name.unicodeScalars) }
        }
    }

    private static func writeObject(_ record: StoreRecord, _ members: [Member], _ coordinator: PersistentStoreCoordinator, into writer: inout JSONOutput) throws(StrataError) {
        writer.append("{")
        for (index, member) in members.enumerated() {
            if index > 0 { writer.append(",") }
            writer.newline(indent: 4)
            writer.append(string: member.name)
            writer.append(": ")
            switch member {
            case .id:
                writer.append(record.objectID.primaryKey ?? 0)
            case .attribute(let attribute):
                switch record.attributes[attribute.name] {
                case nil: writer.append("null")
                case .string(let string)?: writer.append(string: string)
                case .integer(let integer)?: writer.append(integer)
                case let value?: writer.append(scalar: value.jsonValue)
                }
            case .relationship(let relationship):
                guard relationship.isToMany else {
                    if let id = record.toOne[relationship.name] { writer.append(id.primaryKey ?? 0) } else { writer.append("null") }
                    continue
                }
                var ids = record.lazyToMany.contains(relationship.name)
                    ? try coordinator.relatedObjectIDs(of: record.objectID, relationship: relationship.name)
                    : record.toMany[relationship.name] ?? []
                if !relationship.isOrdered { ids.sort { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) } }
                guard !ids.isEmpty else {
                    writer.append("[]")
                    continue
                }
                writer.append("[")
                for (position, id) in ids.enumerated() {
                    if position > 0 { writer.append(",") }
                    writer.newline(indent: 5)
                    writer.append(id.primaryKey ?? 0)
                }
                writer.newline(indent: 4)
                writer.append("]")
            }
        }
        writer.newline(indent: 3)
        writer.append("}")
    }

    /// The given objects in the data format, grouped by entity, each group in the given order
    /// (what `strata query --format json` prints; `strata load` reads it back).
    public static func dump(_ coordinator: PersistentStoreCoordinator, objectIDs: [ObjectID]) throws(StrataError) -> String {
        var groups: [String: [StoreRecord]] = [:]
        for id in objectIDs {
            guard let record = try coordinator.record(for: id), coordinator.schema.entity(named: id.entityName) != nil else { continue }
            groups[id.entityName, default: []].append(record)
        }
        var bytes: [UInt8] = []
        var writer = JSONOutput { (chunk: Data) throws(StrataError) in bytes.append(contentsOf: chunk) }
        try write(groups.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }, into: &writer) { (name, writer) throws(StrataError) in
            let members = Member.sorted(coordinator.schema.entity(named: name)!)
            var array = ObjectArray()
            for record in groups[name]! {
                array.element(&writer)
                try writeObject(record, members, coordinator, into: &writer)
            }
            array.close(&writer)
        }
        try writer.flush()
        return String(decoding: bytes, as: UTF8.self)
    }
}
