import Foundation
import Strata
import Testing

/// ``RecordKeySet``: the same answers as a set of the keys, whether they are kept as bits (dense
/// keys) or in a set (spread ones), at the edges of the 64-bit range too.
@Suite("RecordKeySet")
struct RecordKeySetTests {
    /// Every key of `keys` and around them, asked of a RecordKeySet and of a Set.
    static func expectSameAnswers(_ keys: [Int64], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let keySet = RecordKeySet(keys: keys)
        let reference = Set(keys)
        var probes: [Int64] = [.min, .max, 0, -1, 1, 63, 64, 65]
        for key in keys { probes += [key, key &- 1, key &+ 1, key &+ 64, key &- 64] }
        for probe in probes {
            #expect(keySet.contains(probe) == reference.contains(probe), "key \(probe)", sourceLocation: sourceLocation)
        }
    }

    @Test func denseKeys() {
        Self.expectSameAnswers(Array(1...1000))
        Self.expectSameAnswers(Array(1...1000).filter { $0 % 3 != 0 })
        Self.expectSameAnswers([5])
        Self.expectSameAnswers(Array(-70 ... -3))
        Self.expectSameAnswers(Array((Int64.max - 200)...Int64.max))
        Self.expectSameAnswers(Array(Int64.min...(Int64.min + 200)))
    }

    @Test func spreadKeys() {
        Self.expectSameAnswers([1, 1_000_000])
        Self.expectSameAnswers([.min, 0, .max])
        Self.expectSameAnswers((0..<100).map { Int64($0) * 1_000 })
    }

    @Test func emptyAndMissingEntities() {
        #expect(!RecordKeySet(keys: []).contains(0))
        let none: [ObjectID: Int]? = nil
        #expect(!RecordKeySet(none, storeIdentifier: "S").contains(1))
    }

    @Test func onlyKeysOfTheStoreCount() {
        let records: [ObjectID: Int] = [
            ObjectID(entityName: "Item", storeIdentifier: "S", primaryKey: 1): 0,
            ObjectID(entityName: "Item", storeIdentifier: "T", primaryKey: 2): 0,
            ObjectID(entityName: "Item", storeIdentifier: "S", primaryKey: 3): 0,
        ]
        let keys = RecordKeySet(records, storeIdentifier: "S")
        #expect(keys.contains(1) && !keys.contains(2) && keys.contains(3))
    }
}
