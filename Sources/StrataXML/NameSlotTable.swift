/// The slots of a fixed list of names, found for a `String` without hashing its characters
/// first: a `String` value is two words, and a name whose words are the very words of one of
/// the list's names is that name. Names in records are mostly the model's own strings or short
/// ones (up to 15 bytes of UTF-8 live inside those two words), so the words almost always
/// match; any other spelling of a name is found through an ordinary dictionary.
///
/// The words only ever confirm a match — equal words are the same value — so the table never
/// depends on how `String` lays out its words, only its speed does.
struct NameSlotTable {
    /// Two words per bucket.
    private var words: [UInt64]
    /// The slot in each bucket, -1 for an empty one.
    private var slots: [Int32]
    private var mask: Int
    private var byName: [String: Int]

    /// Finding names by their words needs a `String` of two 64-bit words.
    private static let usesWords = MemoryLayout<String>.size == 16

    /// A table of `names`, whose slots are their positions.
    init(_ names: [String]) {
        byName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var capacity = 4
        while capacity < 2 * names.count { capacity *= 2 }
        mask = capacity - 1
        words = Array(repeating: 0, count: 2 * capacity)
        slots = Array(repeating: -1, count: capacity)
        guard Self.usesWords else { return }
        for (slot, name) in names.enumerated() where byName[name] == slot {
            let (first, second) = Self.words(of: name)
            var bucket = Self.bucket(first, second) & mask
            while slots[bucket] >= 0 { bucket = (bucket + 1) & mask }
            words[2 * bucket] = first
            words[2 * bucket + 1] = second
            slots[bucket] = Int32(slot)
        }
    }

    /// The slot of `name`, or nil when it is none of the names.
    @inline(__always)
    func slot(of name: String) -> Int? {
        if Self.usesWords {
            let (first, second) = Self.words(of: name)
            var bucket = Self.bucket(first, second) & mask
            while true {
                let slot = slots[bucket]
                if slot < 0 { break }
                if words[2 * bucket] == first && words[2 * bucket + 1] == second { return Int(slot) }
                bucket = (bucket + 1) & mask
            }
        }
        return byName[name]
    }

    @inline(__always)
    private static func words(of name: String) -> (UInt64, UInt64) {
        withUnsafeBytes(of: name) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }

    @inline(__always)
    private static func bucket(_ first: UInt64, _ second: UInt64) -> Int {
        Int(truncatingIfNeeded: ((first ^ second.rotateLeft(29)) &* 0x9E37_79B9_7F4A_7C15) >> 40)
    }
}

private extension UInt64 {
    func rotateLeft(_ count: UInt64) -> UInt64 { self << count | self >> (64 - count) }
}
