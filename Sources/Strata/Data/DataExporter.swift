/// Writes stored objects in Strata's JSON data format, canonically: concrete entities by name,
/// objects by `@id`, keys sorted, every stored attribute and relationship present (null, or []
/// for an empty to-many), to-many members ascending unless ordered. Two stores hold the same
/// graph exactly when their dumps are byte-identical.
public enum DataExporter {
    /// The canonical dump of every concrete entity, or of `entityNames` (with their subentities).
    /// - Throws: `unknownEntity`, or a store's error.
    public static func dump(_ coordinator: PersistentStoreCoordinator, entityNames: [String]? = nil) throws(StrataError) -> String {
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

        var entities: [JSONMember] = []
        for entity in selected.sorted(by: { $0.name < $1.name }) {
            let records = try coordinator.fetchRecords(StoreFetchRequest(entityNames: [entity.name]))
                .sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
            var objects: [JSONNode] = []
            objects.reserveCapacity(records.count)
            for record in records {
                objects.append(JSONNode(try object(record, entity, coordinator)))
            }
            entities.append(JSONMember(key: entity.name, value: JSONNode(.array(objects))))
        }
        let root = JSONValue.object([JSONMember(key: "objects", value: JSONNode(.object(entities)))])
        return JSONWriter(sortKeys: true).string(from: root)
    }

    /// The given objects in the data format, grouped by entity, each group in the given order
    /// (what `strata query --format json` prints; `strata load` reads it back).
    public static func dump(_ coordinator: PersistentStoreCoordinator, objectIDs: [ObjectID]) throws(StrataError) -> String {
        var groups: [String: [JSONNode]] = [:]
        for id in objectIDs {
            guard let record = try coordinator.record(for: id), let entity = coordinator.schema.entity(named: id.entityName) else { continue }
            groups[id.entityName, default: []].append(JSONNode(try object(record, entity, coordinator)))
        }
        let entities = groups.map { JSONMember(key: $0.key, value: JSONNode(.array($0.value))) }
        let root = JSONValue.object([JSONMember(key: "objects", value: JSONNode(.object(entities)))])
        return JSONWriter(sortKeys: true).string(from: root)
    }

    private static func object(_ record: StoreRecord, _ entity: EntityDescription, _ coordinator: PersistentStoreCoordinator) throws(StrataError) -> JSONValue {
        var members = [JSONMember(key: "@id", value: JSONNode(.number(String(record.objectID.primaryKey ?? 0))))]
        for attribute in entity.attributes where !attribute.isTransient {
            members.append(JSONMember(key: attribute.name, value: JSONNode(record.attributes[attribute.name]?.jsonValue ?? .null)))
        }
        for relationship in entity.relationships {
            let value: JSONValue
            if relationship.isToMany {
                var ids = record.lazyToMany.contains(relationship.name)
                    ? try coordinator.relatedObjectIDs(of: record.objectID, relationship: relationship.name)
                    : record.toMany[relationship.name] ?? []
                if !relationship.isOrdered { ids.sort { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) } }
                value = .array(ids.map { .number(String($0.primaryKey ?? 0)) })
            } else {
                value = record.toOne[relationship.name].map { .number(String($0.primaryKey ?? 0)) } ?? .null
            }
            members.append(JSONMember(key: relationship.name, value: JSONNode(value)))
        }
        return .object(members)
    }
}
