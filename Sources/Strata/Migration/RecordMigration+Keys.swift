/// Primary keys across a step: kept, except where two inheritance hierarchies merge.
///
/// Keys are unique per hierarchy (its root entity's key sequence). When a step puts objects of
/// several source hierarchies into one destination hierarchy (a parent added above an entity
/// that was a root, or an entity moved under another root), their keys may collide. Then:
/// - the source hierarchies are taken in order: first the one whose root the destination root
///   was matched with, then the others by the first position, in the destination model, of an
///   entity their objects go to;
/// - within a hierarchy, objects are taken by key; each keeps its key when no object taken
///   before holds it, and otherwise gets the next key above every key and key sequence of the
///   merged hierarchies;
/// - every reference to a renumbered object follows (``map(_:)``).
///
/// A hierarchy that splits (a parent removed) keeps every key: they were unique in the larger
/// hierarchy, so they are in each part.
extension RecordMigration {
    mutating func planKeys() {
        // Destination root → source root → the source entities whose objects go there.
        var merged: [String: [String: [String]]] = [:]
        for (sourceName, records) in contents.records where !records.isEmpty {
            guard let destinationName = entityMap[sourceName], let entity = destination.entity(named: destinationName) else { continue }
            let sourceRoot = source.entity(named: sourceName)?.rootName ?? sourceName
            merged[entity.rootName, default: [:]][sourceRoot, default: []].append(sourceName)
        }
        var positions: [String: Int] = [:]
        for (position, entity) in destination.entities.enumerated() { positions[entity.name] = position }
        for (root, hierarchies) in merged where hierarchies.count > 1 {
            let keeper = step.diff.sourceEntity(of: root)?.rootName
            func rank(_ sourceRoot: String) -> (Int, Int, String) {
                if sourceRoot == keeper { return (0, 0, sourceRoot) }
                let first = hierarchies[sourceRoot]!.compactMap { entityMap[$0].flatMap { positions[$0] } }.min() ?? Int.max
                return (1, first, sourceRoot)
            }
            var next: Int64 = 0
            for (sourceRoot, entities) in hierarchies {
                next = max(next, contents.keySequences[sourceRoot] ?? 0)
                for entity in entities {
                    for id in contents.records[entity]!.keys { next = max(next, id.primaryKey ?? 0) }
                }
            }
            var claimed: Set<Int64> = []
            for sourceRoot in hierarchies.keys.sorted(by: { rank($0) < rank($1) }) {
                let ids = hierarchies[sourceRoot]!.flatMap { contents.records[$0]!.keys }.sorted(by: Self.byKey)
                for id in ids {
                    guard let key = id.primaryKey, !claimed.insert(key).inserted else { continue }
                    next += 1
                    renumbered[id.entityName, default: [:]][key] = next
                    claimed.insert(next)
                }
            }
        }
    }

    /// The destination's key sequences: per destination root, the largest of the sequences
    /// of the source hierarchies its entities come from and of the keys it holds.
    func keySequences(of records: [String: [ObjectID: StoreRecord]]) -> [String: Int64] {
        var result: [String: Int64] = [:]
        for entity in destination.entities {
            guard let matched = step.diff.sourceEntity(of: entity.name), let sequence = contents.keySequences[matched.rootName], sequence > 0 else { continue }
            result[entity.rootName] = max(result[entity.rootName] ?? 0, sequence)
        }
        for (entityName, entityRecords) in records {
            let root = destination.entity(named: entityName)?.rootName ?? entityName
            for id in entityRecords.keys {
                if let key = id.primaryKey, key > result[root, default: 0] { result[root] = key }
            }
        }
        return result
    }
}
