/// Other processes' saves to an XML or binary store file: each replaces the file (a new file
/// renamed over the old one), so the file's identity (device, inode, size, times) tells that
/// one happened, and the records it holds, compared with this store's by object ID and version,
/// tell what changed.
extension AtomicStore {
    /// Follows other processes' saves to the file: every 100 ms it checks whether the file was
    /// replaced since this store loaded or wrote it, and if so loads it — from then on this
    /// store holds the new records, as after a save that rebased onto them — and reports the
    /// objects inserted, deleted, and updated (their stored state differs). A file replaced by
    /// another store (`strata convert --force`) is reported once as every entity changed; the
    /// store keeps its records (its saves refuse to write over the other store). Nil for a
    /// store in memory.
    public func observeChanges(ofOtherProcesses handler: @escaping @Sendable (StoreRemoteChanges) -> Void) throws(StrataError) -> (any StoreChangeObserver)? {
        guard format != nil, let fileURL else { return nil }
        rebasedChanges.withLock { $0 = $0 ?? StoreRemoteChanges() }
        let foreign = Locked<FileVersion?>(nil)
        return PollingChangeObserver(
            name: "strata.file.changes \(fileURL.lastPathComponent)",
            poll: { [weak self] () throws(StrataError) -> [StoreRemoteChanges] in (try self?.reloadIfReplaced(foreign)).map { [$0] } ?? [] },
            handler: handler,
            onStop: { [weak self] in self?.rebasedChanges.withLock { $0 = nil } })
    }

    /// A save of this store found the file replaced and rebased onto it: what the other
    /// process changed is kept for the observer (when one runs), which reports it next.
    func noteRebase(from base: AtomicStoreContents, to reloaded: AtomicStoreContents) {
        guard rebasedChanges.withLock({ $0 != nil }) else { return }
        let changes = Self.changes(from: base, to: reloaded)
        rebasedChanges.withLock { pending in
            pending?.inserted.formUnion(changes.inserted)
            pending?.updated.formUnion(changes.updated)
            pending?.deleted.formUnion(changes.deleted)
        }
    }

    /// Loads the file when another process replaced it, makes it this store's contents, and
    /// returns what changed (with what saves of this store took in when they rebased onto
    /// such a file); nil when nothing did. `foreign` remembers a file of another store already
    /// reported.
    func reloadIfReplaced(_ foreign: Locked<FileVersion?>) throws(StrataError) -> StoreRemoteChanges? {
        guard let format, let fileURL else { return nil }
        return try writeLock.withLock { (loaded) throws(StrataError) -> StoreRemoteChanges? in
            let rebased = rebasedChanges.withLock { pending in
                defer { pending = StoreRemoteChanges() }
                return pending.flatMap { $0.isEmpty ? nil : $0 }
            }
            guard let current = try FileVersion.current(fileURL), current != loaded?.identity,
                  foreign.withLock({ $0 }) != current else { return rebased }
            var (reloaded, version) = try Self.load(fileURL, format: format)
            guard reloaded.metadata.storeIdentifier == storeIdentifier else {
                foreign.withLock { $0 = current }
                return StoreRemoteChanges(unlistedEntities: Set(schema.entities.map(\.name)))
            }
            try Self.checkLoaded(&reloaded, schema: schema, identifier: storeIdentifier)
            let base = snapshot
            Self.carryingVersions(from: base, into: &reloaded, schema: schema)
            for (root, key) in base.keySequences where key > reloaded.keySequences[root, default: 0] {
                reloaded.keySequences[root] = key
            }
            var changes = rebased ?? StoreRemoteChanges()
            let found = Self.changes(from: base, to: reloaded)
            changes.inserted.formUnion(found.inserted)
            changes.updated.formUnion(found.updated)
            changes.deleted.formUnion(found.deleted)
            loaded = version
            publish(reloaded)
            return changes
        }
    }

    /// The objects inserted, deleted, and updated (another version) from one content to another.
    static func changes(from base: AtomicStoreContents, to reloaded: AtomicStoreContents) -> StoreRemoteChanges {
        var changes = StoreRemoteChanges()
        for entity in Set(base.records.keys).union(reloaded.records.keys) {
            let before = base.records[entity] ?? [:]
            let after = reloaded.records[entity] ?? [:]
            for (id, record) in after {
                if let previous = before[id] {
                    if previous.version != record.version { changes.updated.insert(id) }
                } else {
                    changes.inserted.insert(id)
                }
            }
            for id in before.keys where after[id] == nil { changes.deleted.insert(id) }
        }
        return changes
    }
}
