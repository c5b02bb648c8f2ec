extension StoreChangeset {
    /// One reference a save writes to an object the save does not insert: the store must find
    /// that object before it commits, or the save would store a reference to nothing.
    package struct WrittenReference {
        /// The object that holds the reference, and its relationship.
        package var source: ObjectID
        package var key: String
        /// The object referred to.
        package var target: ObjectID

        package init(source: ObjectID, key: String, target: ObjectID) {
            self.source = source
            self.key = key
            self.target = target
        }
    }

    /// The references this save writes to objects it does not insert, each target once (the
    /// first reference to it, for the error), in the order of the records.
    ///
    /// Every reference of an inserted record counts. Of an updated record, the relationships it
    /// changed (``changedKeys``) when the store writes only those — versions checked, the row
    /// as it was read — and all of them otherwise (an overwrite writes back references another
    /// save may have cleared when it deleted their object). Members of a to-many left to load
    /// later (`lazyToMany`) are not written and do not count. References to other stores'
    /// objects (`storeIdentifier`) are left to those stores.
    ///
    /// Another context or process may delete an object between the time this one read it and
    /// its save: a relationship with an inverse then conflicts by version (the deleting save
    /// changed the inverse side), but a new reference from an inserted object, or a
    /// relationship without an inverse, does not. Stores check these references inside their
    /// save transaction and fail with ``StrataError/danglingReferences(_:in:)``.
    package func writtenReferences(storeIdentifier: String, reassigned: [ObjectID: ObjectID] = [:]) -> [WrittenReference] {
        // Most saves write no reference: the set of inserted IDs is built at the first one.
        var insertedIDs: Set<ObjectID>?
        var seen: Set<ObjectID> = []
        var references: [WrittenReference] = []
        func note(_ source: ObjectID, _ key: String, _ target: ObjectID) {
            let target = reassigned[target] ?? target
            guard target.storeIdentifier == storeIdentifier else { return }
            if insertedIDs == nil {
                var ids = Set<ObjectID>(minimumCapacity: inserted.count)
                for record in inserted { ids.insert(reassigned[record.objectID] ?? record.objectID) }
                insertedIDs = ids
            }
            guard insertedIDs?.contains(target) == false, seen.insert(target).inserted else { return }
            references.append(WrittenReference(source: reassigned[source] ?? source, key: key, target: target))
        }
        func noteAll(of record: StoreRecord, only keys: Set<String>?) {
            for (key, target) in record.toOne where keys?.contains(key) ?? true {
                note(record.objectID, key, target)
            }
            for (key, members) in record.toMany where !record.lazyToMany.contains(key) && (keys?.contains(key) ?? true) {
                for target in members { note(record.objectID, key, target) }
            }
        }
        for record in inserted where !record.toOne.isEmpty || !record.toMany.isEmpty {
            noteAll(of: record, only: nil)
        }
        let partial = !overwritesConflicts && !restoresVersions
        for (position, record) in updated.enumerated() where !record.toOne.isEmpty || !record.toMany.isEmpty {
            noteAll(of: record, only: partial && position < changedKeys.count ? changedKeys[position] : nil)
        }
        return references
    }
}

extension Schema {
    /// The relationships without an inverse that can refer to objects of `deletedEntities`,
    /// with the entity declaring each (whose subentities inherit it).
    package func oneWayRelationships(into deletedEntities: Set<String>) -> [OneWayRelationship] {
        guard !deletedEntities.isEmpty else { return [] }
        return oneWayRelationships.filter { oneWay in
            deletedEntities.contains { name in
                entity(named: name)?.isKind(of: oneWay.relationship.destination) == true
            }
        }
    }
}

extension StrataError {
    /// A save that deletes objects which objects it does not change still refer to through
    /// relationships without an inverse (saved by another context or process after this one
    /// looked for them): a merge conflict, one failure per referring object.
    package static func referencesToDeleted(_ references: [StoreChangeset.WrittenReference], in file: String?) -> StrataError {
        let failures = references.sorted { ($0.source.description, $0.key) < ($1.source.description, $1.key) }.map { reference in
            ValidationFailure(
                code: .conflict, objectID: reference.source, key: reference.key,
                message: "refers to \(reference.target), which this save deletes (the reference was saved by another save since this one looked for references)")
        }
        return StrataError(
            .mergeConflict, "the save would delete objects other objects still refer to; nothing was written",
            failures: failures, file: file)
    }

    /// A save that would store references to objects the store does not hold (deleted by
    /// another context or process since they were read): a merge conflict, one failure per
    /// referring object and relationship, each naming the object that is gone in
    /// ``ValidationFailure/relatedObjectID``.
    package static func danglingReferences(_ references: [StoreChangeset.WrittenReference], in file: String?) -> StrataError {
        let failures = references.sorted { ($0.source.description, $0.key) < ($1.source.description, $1.key) }.map { reference in
            ValidationFailure(
                code: .conflict, objectID: reference.source, key: reference.key,
                message: "refers to \(reference.target), which the store no longer holds (another save deleted it)",
                relatedObjectID: reference.target)
        }
        return StrataError(
            .mergeConflict, "the save would store references to objects another save deleted; nothing was written",
            failures: failures, file: file)
    }
}
