/// The primary keys of one entity's records in an atomic store's contents: a membership test
/// for writers and readers that check every reference of a file, without hashing object IDs
/// (a lookup in a dictionary of tens of thousands of records is a cache miss each time).
///
/// Keys a store hands out are dense, so they are kept as bits from the lowest key; keys spread
/// more thinly than one in four fall back to a set.
package struct RecordKeySet: Sendable {
    private var lowest: Int64 = 0
    private var bits: [UInt64] = []
    private var sparse: Set<Int64>?

    /// The keys of the records of `records` whose IDs belong to the store `storeIdentifier`.
    package init<Value>(_ records: [ObjectID: Value]?, storeIdentifier: String) {
        guard let records, !records.isEmpty else {
            self.init(keys: [])
            return
        }
        var keys: [Int64] = []
        keys.reserveCapacity(records.count)
        for id in records.keys where id.storeIdentifier == storeIdentifier {
            if let key = id.primaryKey { keys.append(key) }
        }
        self.init(keys: keys)
    }

    /// A set of `keys`.
    package init(keys: [Int64]) {
        guard let low = keys.min(), let high = keys.max() else { return }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span / 4 <= Int64(keys.count) else {
            sparse = Set(keys)
            return
        }
        lowest = low
        bits = Array(repeating: 0, count: Int(span / 64) + 1)
        for key in keys {
            let offset = Int(key &- low)
            bits[offset >> 6] |= 1 << UInt64(offset & 63)
        }
    }

    package func contains(_ key: Int64) -> Bool {
        if let sparse { return sparse.contains(key) }
        let (offset, overflow) = key.subtractingReportingOverflow(lowest)
        guard !overflow, offset >= 0, offset >> 6 < Int64(bits.count) else { return false }
        return bits[Int(offset >> 6)] & (1 << UInt64(offset & 63)) != 0
    }
}
