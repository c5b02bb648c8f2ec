/// A set of property positions, as bits: which properties of an object changed since its last
/// save. Attributes take the positions of the entity's attribute layout, relationships follow
/// (see ``ManagedObject/relationshipBit(_:)``). Up to 64 properties fit without an allocation.
struct PropertyMask: Equatable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    var isEmpty: Bool { low == 0 && !high.contains { $0 != 0 } }

    func contains(_ bit: Int) -> Bool {
        if bit < 64 { return low & (1 << UInt64(bit)) != 0 }
        let word = bit / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(bit % 64)) != 0
    }

    mutating func insert(_ bit: Int) {
        if bit < 64 {
            low |= 1 << UInt64(bit)
            return
        }
        let word = bit / 64 - 1
        if word >= high.count { high += Array(repeating: 0, count: word - high.count + 1) }
        high[word] |= 1 << UInt64(bit % 64)
    }

    mutating func remove(_ bit: Int) {
        if bit < 64 {
            low &= ~(1 << UInt64(bit))
            return
        }
        let word = bit / 64 - 1
        if word < high.count { high[word] &= ~(1 << UInt64(bit % 64)) }
    }

    mutating func set(_ bit: Int, _ isMember: Bool) {
        if isMember { insert(bit) } else { remove(bit) }
    }

    mutating func removeAll() {
        low = 0
        high = []
    }

    /// The positions in the set, ascending.
    var positions: [Int] {
        var result: [Int] = []
        var word = low
        while word != 0 {
            result.append(word.trailingZeroBitCount)
            word &= word - 1
        }
        for (index, bits) in high.enumerated() {
            var word = bits
            while word != 0 {
                result.append((index + 1) * 64 + word.trailingZeroBitCount)
                word &= word - 1
            }
        }
        return result
    }
}
