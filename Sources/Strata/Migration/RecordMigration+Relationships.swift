/// Both sides of every inverse pair consistent after a step.
///
/// Each relationship's members come from its own matched source relationship. When the two
/// sides of a destination pair came from a source pair, they already agree. Otherwise — an
/// inverse added to a relationship that had none, a relationship that becomes the inverse of
/// another, members dropped on one side only — each side gains the objects that name it from
/// the other side (the union of both sides' links): a to-many appends them by primary key, a
/// to-one takes the one; a to-one that would hold two objects is refused, naming the objects.
/// References to objects no longer in the store (left by the `noAction` delete rule) stay as
/// they are.
extension RecordMigration {
    /// A relationship by the entity that declares it.
    struct Side: Hashable {
        var entity: String
        var name: String
    }

    /// Every inverse pair of the destination model, once; a relationship that is its own
    /// inverse is a pair of one side twice.
    func inversePairs() -> [(Side, Side)] {
        var pairs: [(Side, Side)] = []
        var seen: Set<Side> = []
        for entity in destination.entities {
            for relationship in entity.declaredRelationships {
                let side = Side(entity: entity.name, name: relationship.name)
                guard !seen.contains(side), let inverseName = relationship.inverse,
                      let target = destination.entity(named: relationship.destination),
                      target.relationship(named: inverseName)?.inverse == relationship.name,
                      let declaring = ([target.name] + target.ancestorNames).first(where: { destination.entity(named: $0)?.declares(inverseName) == true })
                else { continue }
                let inverse = Side(entity: declaring, name: inverseName)
                seen.insert(side)
                seen.insert(inverse)
                pairs.append((side, inverse))
            }
        }
        return pairs
    }

    func reconcileInverses(_ records: inout [String: [ObjectID: StoreRecord]]) throws(StrataError) {
        var crowded: [String: Set<ObjectID>] = [:]
        for (side, inverse) in inversePairs() {
            addLinks(from: side, to: inverse, &records, &crowded)
            if inverse != side { addLinks(from: inverse, to: side, &records, &crowded) }
        }
        guard !crowded.isEmpty else { return }
        throw Self.refusal(step, crowded.keys.sorted().map { path in
            let ids = crowded[path]!.sorted()
            return "\(path) is to-one, but its inverse names more than one object for \(Self.count(ids.count, "object")): \(Self.list(ids, Self.name)) (keep at most one in a custom stage's willMigrate)"
        })
    }

    /// Puts every object that holds a member through `side` among that member's objects
    /// through `inverse`.
    private func addLinks(
        from side: Side, to inverse: Side, _ records: inout [String: [ObjectID: StoreRecord]], _ crowded: inout [String: Set<ObjectID>]
    ) {
        guard let relationship = destination.entity(named: side.entity)?.relationship(named: side.name),
              let inverseRelationship = destination.entity(named: inverse.entity)?.relationship(named: inverse.name),
              let holders = families[side.entity], let targets = families[inverse.entity] else { return }
        // Member → the objects that name it but that it does not name back. A store whose
        // sides agree (every step that keeps a pair) only looks links up.
        var missing: [ObjectID: [ObjectID]] = [:]
        var presentSets: [ObjectID: Set<ObjectID>] = [:]
        for entity in holders.sorted() {
            guard let entityRecords = records[entity] else { continue }
            for (id, record) in entityRecords {
                let members = relationship.isToMany ? record.toMany[side.name] ?? [] : record.toOne[side.name].map { [$0] } ?? []
                for member in members where targets.contains(member.entityName) {
                    guard let target = records[member.entityName]?[member] else { continue }
                    if inverseRelationship.isToMany {
                        let present = target.toMany[inverse.name] ?? []
                        if present.count <= 16 {
                            if present.contains(id) { continue }
                        } else {
                            if presentSets[member] == nil { presentSets[member] = Set(present) }
                            if presentSets[member]!.contains(id) { continue }
                        }
                    } else if target.toOne[inverse.name] == id {
                        continue
                    }
                    missing[member, default: []].append(id)
                }
            }
        }
        for (member, holders) in missing {
            var record = records[member.entityName]![member]!
            if inverseRelationship.isToMany {
                record.toMany[inverse.name, default: []] += Set(holders).sorted(by: Self.byKey)
            } else {
                let linked = Set(holders).union(record.toOne[inverse.name].map { [$0] } ?? [])
                guard linked.count == 1 else {
                    crowded["\(member.entityName).\(inverse.name)", default: []].insert(member)
                    continue
                }
                record.toOne[inverse.name] = linked.first
            }
            records[member.entityName]![member] = record
        }
    }
}
