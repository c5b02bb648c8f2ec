import Strata
import StrataTestKit
import Testing

@Suite struct ResultsDiffTests {
    private static func id(_ key: Int64) -> ObjectID {
        ObjectID(entityName: "Book", storeIdentifier: "S", primaryKey: key)
    }

    private static func snapshot(_ sections: [(String?, [Int64])]) -> ResultsSnapshot {
        ResultsSnapshot(sections: sections.map { ResultsSnapshot.Section(name: $0.0, objectIDs: $0.1.map(id)) })
    }

    @Test func ordersDeletionsDescendingAndInsertionsAscending() {
        let old = Self.snapshot([(nil, [1, 2, 3, 4, 5])])
        let new = Self.snapshot([(nil, [1, 6, 3, 5, 7, 8])])
        let diff = ResultsDiff(from: old, to: new, updated: [Self.id(3)])
        #expect(diff.deleted.map(\.path.item) == [3, 1])
        #expect(diff.inserted.map(\.path.item) == [1, 4, 5])
        #expect(diff.moved.isEmpty)
        #expect(diff.updated == [ResultsDiff.ItemChange(path: ResultsIndexPath(section: 0, item: 2), objectID: Self.id(3))])
        #expect(diff.applied(to: old) == new)
    }

    @Test func movesTheFewestItems() {
        let old = Self.snapshot([(nil, [1, 2, 3, 4])])
        let new = Self.snapshot([(nil, [2, 3, 4, 1])])
        let diff = ResultsDiff(from: old, to: new)
        #expect(diff.moved == [ResultsDiff.Move(from: ResultsIndexPath(section: 0, item: 0), to: ResultsIndexPath(section: 0, item: 3), objectID: Self.id(1))])
        #expect(diff.deleted.isEmpty && diff.inserted.isEmpty && diff.updated.isEmpty)
        #expect(diff.applied(to: old) == new)
    }

    @Test func sectionsComeAndGoWithTheirItems() {
        let old = Self.snapshot([("a", [1, 2]), ("b", [3]), ("c", [4, 5])])
        let new = Self.snapshot([("a", [1]), ("c", [5, 3]), ("d", [2, 6])])
        let diff = ResultsDiff(from: old, to: new)
        #expect(diff.deletedSections.map(\.index) == [1])
        #expect(diff.insertedSections.map(\.index) == [2])
        #expect(diff.insertedSections.first?.objectIDs == [Self.id(2), Self.id(6)])
        // 2 leaves a kept section for an inserted one: deleted; 4 is gone; 3 comes from a
        // deleted section into a kept one: inserted.
        #expect(diff.deleted.map(\.path) == [ResultsIndexPath(section: 2, item: 0), ResultsIndexPath(section: 0, item: 1)])
        #expect(diff.inserted.map(\.path) == [ResultsIndexPath(section: 1, item: 1)])
        #expect(diff.applied(to: old) == new)
    }

    @Test func randomDiffsApplyExactly() {
        var random = SeededGenerator(seed: 14)
        for _ in 0..<300 {
            func make() -> ResultsSnapshot {
                let names = ["a", "b", "c", "d", nil].filter { _ in random.chance(0.6) }
                var keys = Array(Int64(1)...20).shuffled(using: &random).prefix(Int.random(in: 0...20, using: &random))
                return ResultsSnapshot(sections: names.compactMap { name in
                    let count = Int.random(in: 0...keys.count, using: &random)
                    let taken = keys.prefix(count)
                    keys.removeFirst(count)
                    return taken.isEmpty ? nil : ResultsSnapshot.Section(name: name, objectIDs: taken.map(Self.id))
                })
            }
            let old = make()
            let new = make()
            let diff = ResultsDiff(from: old, to: new)
            #expect(diff.applied(to: old) == new)
            #expect(diff.deleted.map(\.path) == diff.deleted.map(\.path).sorted(by: >))
            #expect(diff.inserted.map(\.path) == diff.inserted.map(\.path).sorted())
            #expect(diff.isEmpty == (old == new))
        }
    }
}
