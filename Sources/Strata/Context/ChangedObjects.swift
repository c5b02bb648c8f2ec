/// A context's objects with unsaved changes, kept alive until they are saved or rolled back:
/// an array, each object knowing its place in it (``ManagedObject/changedIndex``).
///
/// Adding and removing an object is one store each, without hashing; and the objects come out
/// in about the order they were first changed — for new objects, the order they were made in,
/// near each other in memory — so a save's passes over them read memory in order.
struct ChangedObjects {
    /// The objects, in no defined order (removing one moves the last into its place).
    private(set) var values: [ManagedObject] = []

    var isEmpty: Bool { values.isEmpty }
    var count: Int { values.count }

    /// Whether `object` is one of them. An index left from an earlier set (objects are not
    /// told when the whole set is emptied) is checked against the object there.
    func contains(_ object: ManagedObject) -> Bool {
        let index = object.changedIndex
        return index >= 0 && index < values.count && values[index] === object
    }

    mutating func insert(_ object: ManagedObject) {
        guard !contains(object) else { return }
        object.changedIndex = values.count
        values.append(object)
    }

    mutating func remove(_ object: ManagedObject) {
        guard contains(object) else { return }
        let index = object.changedIndex
        let last = values.removeLast()
        if index < values.count {
            values[index] = last
            last.changedIndex = index
        }
        object.changedIndex = -1
    }

    mutating func removeAll() {
        values.removeAll()
    }
}
