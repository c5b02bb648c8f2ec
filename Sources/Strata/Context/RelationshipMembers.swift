internal import OrderedCollections

/// The members of one to-many relationship of one object, mutated in place.
///
/// Each object owns its own instance and never shares it, so adding or removing a member never
/// copies the others: filling a relationship of n members one at a time costs O(n) in all
/// (Core Data's mutable sets). For an object that was saved, the members added and removed
/// since are tracked, so that whether the relationship changed is known without comparing it
/// with the saved members. Every operation adds the number of elements it touched to
/// ``work``: tests check with it that relationship upkeep stays linear.
final class RelationshipMembers {
    private var ids: OrderedSet<ObjectID>
    let isOrdered: Bool
    /// Whether membership changes are tracked against a saved state (false for a new object,
    /// whose relationships all count as changed).
    private var tracksChanges: Bool
    private var added: Set<ObjectID> = []
    private var removed: Set<ObjectID> = []
    /// An ordered relationship had a member inserted before its end or removed from its middle:
    /// its order may differ from the saved one even when its members do not.
    private var orderTouched = false
    /// Elements touched by every operation so far (see the type's documentation).
    private(set) var work = 0

    init(_ ids: [ObjectID], ordered: Bool, tracksChanges: Bool) {
        self.ids = OrderedSet(ids)
        self.isOrdered = ordered
        self.tracksChanges = tracksChanges
        work += ids.count
    }

    var count: Int { ids.count }
    var isEmpty: Bool { ids.isEmpty }

    func contains(_ id: ObjectID) -> Bool {
        work += 1
        return ids.contains(id)
    }

    func firstIndex(of id: ObjectID) -> Int? {
        work += 1
        return ids.firstIndex(of: id)
    }

    /// The members, in order.
    var elements: [ObjectID] {
        work += ids.count
        return ids.elements
    }

    /// Adds a member (at `index` for an ordered relationship, else at the end); false when it
    /// is a member already.
    @discardableResult
    func insert(_ id: ObjectID, at index: Int? = nil) -> Bool {
        work += 1
        if let index, index < ids.count {
            guard ids.insert(id, at: index).inserted else { return false }
            work += ids.count - index
            orderTouched = true
        } else {
            guard ids.append(id).inserted else { return false }
        }
        if tracksChanges {
            if removed.remove(id) == nil {
                added.insert(id)
            } else if isOrdered {
                // A saved member back, maybe elsewhere: taking members off the end and
                // appending them again reorders without touching the middle.
                orderTouched = true
            }
        }
        return true
    }

    /// Removes a member and returns where it was; nil when it is not a member. An unordered
    /// relationship moves its last member into the gap instead of shifting every later one.
    @discardableResult
    func remove(_ id: ObjectID) -> Int? {
        work += 1
        guard let index = ids.firstIndex(of: id) else { return nil }
        let last = ids.count - 1
        if index == last {
            ids.removeLast()
        } else if isOrdered {
            ids.remove(at: index)
            work += last - index
            orderTouched = true
        } else {
            ids.swapAt(index, last)
            ids.removeLast()
        }
        if tracksChanges, added.remove(id) == nil { removed.insert(id) }
        return index
    }

    /// Replaces every member ID through `map` (temporary IDs made permanent by a save).
    func mapIDs(_ map: [ObjectID: ObjectID]) {
        work += ids.count
        var changed = false
        for id in ids where map[id] != nil {
            changed = true
            break
        }
        guard changed else { return }
        ids = OrderedSet(ids.map { map[$0] ?? $0 })
    }

    /// Whether the members differ from `saved`, the members last saved; cheap unless an ordered
    /// relationship's members were moved around.
    func differs(from saved: [ObjectID]) -> Bool {
        guard tracksChanges else { return true }
        if !added.isEmpty || !removed.isEmpty { return true }
        guard isOrdered, orderTouched else { return false }
        work += ids.count
        if ids.elements == saved {
            orderTouched = false
            return false
        }
        return true
    }

    /// Tracks changes against `saved` from now on (a merge put another saved state under the
    /// object's own changes).
    func rebase(onto saved: [ObjectID]) {
        work += ids.count + saved.count
        let savedSet = Set(saved)
        tracksChanges = true
        added = Set(ids.filter { !savedSet.contains($0) })
        removed = savedSet.filter { !ids.contains($0) }
        orderTouched = isOrdered
    }

    /// The members become `saved` with this object's own additions and removals made again
    /// (a by-property merge keeps both sides' member changes), tracked against `saved`. An
    /// ordered relationship keeps the saved order, with the members added here at its end.
    func replayChanges(onto saved: [ObjectID]) {
        guard tracksChanges else { return rebase(onto: saved) }
        work += ids.count + saved.count
        var next = OrderedSet(saved.filter { !removed.contains($0) })
        for id in ids where added.contains(id) { next.append(id) }
        let savedSet = Set(saved)
        added = added.filter { !savedSet.contains($0) }
        removed = removed.filter { savedSet.contains($0) }
        ids = next
        orderTouched = isOrdered
    }

    /// The members are now the saved state.
    func commit() {
        tracksChanges = true
        added = []
        removed = []
        orderTouched = false
    }
}
