/// The objects of one inheritance hierarchy by primary key, for finding a second object with
/// a key and the object an `idrefs` token names.
///
/// Files list the objects of an entity by key, so keys mostly arrive in ascending order: those
/// are kept in an array (a key greater than the last one cannot be a second one, and lookups
/// search the array). The first key out of order moves everything into a dictionary.
struct XMLKeyIndex {
    private var ascending: [(key: Int64, object: Int)] = []
    private var byKey: [Int64: Int]?

    /// Adds `key` for `object`; when another object already has the key, returns that one and
    /// adds nothing.
    @inline(__always)
    mutating func insert(_ key: Int64, object: Int) -> Int? {
        if byKey == nil {
            if ascending.isEmpty || key > ascending[ascending.count - 1].key {
                ascending.append((key, object))
                return nil
            }
            var all = [Int64: Int](minimumCapacity: 2 * ascending.count)
            for entry in ascending { all[entry.key] = entry.object }
            ascending = []
            byKey = all
        }
        if let existing = byKey![key] { return existing }
        byKey![key] = object
        return nil
    }

    /// The object with `key`.
    func object(withKey key: Int64) -> Int? {
        if let byKey { return byKey[key] }
        // Keys a store hands out are dense: the key's distance from the first is its place.
        if let first = ascending.first?.key {
            let (distance, overflow) = key.subtractingReportingOverflow(first)
            if !overflow, distance >= 0, distance < Int64(ascending.count), ascending[Int(distance)].key == key {
                return ascending[Int(distance)].object
            }
        }
        var low = 0
        var high = ascending.count
        while low < high {
            let middle = (low + high) / 2
            if ascending[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low < ascending.count && ascending[low].key == key ? ascending[low].object : nil
    }
}
