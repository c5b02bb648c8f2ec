/// How results changed between two snapshots, in the order a table or collection view applies
/// a batch update (UIKit's `performBatchUpdates`, AppKit's `beginUpdates`/`endUpdates`):
///
/// 1. ``deletedSections``, at their indexes in the old results, in descending order;
/// 2. ``insertedSections``, at their indexes in the new results, in ascending order, each with
///    its objects (they are not listed again as inserted items);
/// 3. ``deleted`` items, at their old index paths, in descending order (items of a deleted
///    section are not listed: the section takes them);
/// 4. ``inserted`` items, at their new index paths, in ascending order;
/// 5. ``moved`` items, from an old index path to a new one (each a deletion at `from` and an
///    insertion at `to`, in the two steps above);
/// 6. ``updated`` items, at their old index paths (as `reloadRows(at:)` takes them within the
///    batch), whose objects changed but kept their place among the others.
///
/// Deletions are applied before insertions, each in the order given, so every index is valid
/// when it is used: ``applied(to:)`` does exactly this, and gives the new snapshot. Objects are
/// matched by identity (an object's temporary ID becoming permanent at its save is an update,
/// not a deletion and an insertion); sections by name. Objects that keep their section and their
/// order relative to the others stay; the fewest others move (a longest increasing subsequence).
/// A moved object may also have changed: reconfigure it at its new place after the batch.
public struct ResultsDiff: Sendable, Hashable {
    /// A section deleted (old index, name and objects) or inserted (new index, name and objects).
    public struct SectionChange: Sendable, Hashable {
        public var index: Int
        public var name: String?
        public var objectIDs: [ObjectID]

        public init(index: Int, name: String?, objectIDs: [ObjectID]) {
            self.index = index
            self.name = name
            self.objectIDs = objectIDs
        }
    }

    /// An item deleted (old index path and ID), inserted (new index path and ID) or updated
    /// (old index path and the object's ID now).
    public struct ItemChange: Sendable, Hashable {
        public var path: ResultsIndexPath
        public var objectID: ObjectID

        public init(path: ResultsIndexPath, objectID: ObjectID) {
            self.path = path
            self.objectID = objectID
        }
    }

    /// An item that moved, with the object's ID now.
    public struct Move: Sendable, Hashable {
        public var from: ResultsIndexPath
        public var to: ResultsIndexPath
        public var objectID: ObjectID

        public init(from: ResultsIndexPath, to: ResultsIndexPath, objectID: ObjectID) {
            self.from = from
            self.to = to
            self.objectID = objectID
        }
    }

    public var deletedSections: [SectionChange] = []
    public var insertedSections: [SectionChange] = []
    public var deleted: [ItemChange] = []
    public var inserted: [ItemChange] = []
    public var moved: [Move] = []
    public var updated: [ItemChange] = []

    /// True when nothing changed.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deleted.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty
    }

    /// The diff from one snapshot to another, objects matched by ID; the objects in
    /// `updated` that stay in place are reported as updated.
    public init(from old: ResultsSnapshot, to new: ResultsSnapshot, updated: Set<ObjectID> = []) {
        self.init(old: old, oldKeys: old.sections.map(\.objectIDs), new: new, newKeys: new.sections.map(\.objectIDs)) { key in
            updated.contains(key)
        }
    }

    /// The diff between two snapshots whose items are identified by `oldKeys` and `newKeys`
    /// (shaped as the snapshots' sections); an item that stays is updated when `isUpdated` says
    /// so or its ID changed.
    init<Key: Hashable>(
        old: ResultsSnapshot, oldKeys: [[Key]], new: ResultsSnapshot, newKeys: [[Key]], isUpdated: (Key) -> Bool
    ) {
        // Sections: names are unique on each side; those kept in order stay, the rest go or come.
        var newSectionOfName: [String?: Int] = [:]
        for (index, section) in new.sections.enumerated() { newSectionOfName[section.name] = index }
        let candidates = old.sections.indices.compactMap { index in newSectionOfName[old.sections[index].name].map { (index, $0) } }
        let keptPairs = Self.longestIncreasing(candidates)
        var newSectionOfOld: [Int: Int] = [:]
        for (oldIndex, newIndex) in keptPairs { newSectionOfOld[oldIndex] = newIndex }
        let keptNew = Set(newSectionOfOld.values)
        for index in old.sections.indices.reversed() where newSectionOfOld[index] == nil {
            deletedSections.append(SectionChange(index: index, name: old.sections[index].name, objectIDs: old.sections[index].objectIDs))
        }
        for index in new.sections.indices where !keptNew.contains(index) {
            insertedSections.append(SectionChange(index: index, name: new.sections[index].name, objectIDs: new.sections[index].objectIDs))
        }
        // Items: where each is now, and where each was.
        var newPlace: [Key: ResultsIndexPath] = [:]
        for (section, keys) in newKeys.enumerated() {
            for (item, key) in keys.enumerated() { newPlace[key] = ResultsIndexPath(section: section, item: item) }
        }
        var oldPlace: [Key: ResultsIndexPath] = [:]
        for (section, keys) in oldKeys.enumerated() {
            for (item, key) in keys.enumerated() { oldPlace[key] = ResultsIndexPath(section: section, item: item) }
        }
        var deleted: [ItemChange] = []
        for (oldSection, newSection) in keptPairs {
            let keys = oldKeys[oldSection]
            // The items that stay: in the same section, in the same order relative to each other.
            let inSection = keys.indices.compactMap { item -> (Int, Int)? in
                guard let place = newPlace[keys[item]], place.section == newSection else { return nil }
                return (item, place.item)
            }
            let staying = Dictionary(uniqueKeysWithValues: Self.longestIncreasing(inSection))
            for (item, key) in keys.enumerated() {
                let from = ResultsIndexPath(section: oldSection, item: item)
                guard let to = newPlace[key], keptNew.contains(to.section) else {
                    deleted.append(ItemChange(path: from, objectID: old[from]))
                    continue
                }
                if staying[item] != nil {
                    if old[from] != new[to] || isUpdated(key) { updated.append(ItemChange(path: from, objectID: new[to])) }
                } else {
                    moved.append(Move(from: from, to: to, objectID: new[to]))
                }
            }
        }
        self.deleted = deleted.reversed()
        let keptOld = Set(newSectionOfOld.keys)
        for (section, keys) in newKeys.enumerated() where keptNew.contains(section) {
            for (item, key) in keys.enumerated() where oldPlace[key].map({ !keptOld.contains($0.section) }) ?? true {
                let to = ResultsIndexPath(section: section, item: item)
                inserted.append(ItemChange(path: to, objectID: new[to]))
            }
        }
    }

    /// The old snapshot with this diff applied as a table view applies it (see the type's
    /// documentation): updates, then deletions in descending order, then insertions in
    /// ascending order.
    public func applied(to old: ResultsSnapshot) -> ResultsSnapshot {
        var sections = old.sections
        for change in updated { sections[change.path.section].objectIDs[change.path.item] = change.objectID }
        let removals = (deleted.map(\.path) + moved.map(\.from)).sorted(by: >)
        for path in removals { sections[path.section].objectIDs.remove(at: path.item) }
        for change in deletedSections.sorted(by: { $0.index > $1.index }) { sections.remove(at: change.index) }
        for change in insertedSections.sorted(by: { $0.index < $1.index }) {
            sections.insert(ResultsSnapshot.Section(name: change.name, objectIDs: change.objectIDs), at: change.index)
        }
        let insertions = (inserted + moved.map { ItemChange(path: $0.to, objectID: $0.objectID) }).sorted { $0.path < $1.path }
        for change in insertions { sections[change.path.section].objectIDs.insert(change.objectID, at: change.path.item) }
        return ResultsSnapshot(sections: sections)
    }

    /// The longest subsequence of `pairs` (in their order) whose second elements increase:
    /// the elements that keep their relative order. O(n log n).
    static func longestIncreasing(_ pairs: [(Int, Int)]) -> [(Int, Int)] {
        guard !pairs.isEmpty else { return [] }
        // tails[k]: the index in `pairs` of the smallest last element of an increasing run of k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: pairs.count)
        for index in pairs.indices {
            let value = pairs[index].1
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if pairs[tails[middle]].1 < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [(Int, Int)] = []
        var index = tails[tails.count - 1]
        while index >= 0 {
            result.append(pairs[index])
            index = previous[index]
        }
        return result.reversed()
    }
}
