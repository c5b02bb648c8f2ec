import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// The members of a to-many relationship of many objects at once (prefetching) are those of
/// each object asked for alone, in the same order: foreign keys, join tables, ordered ones,
/// across subentities and batch sizes.
@Suite struct BatchedMembersTests {
    @Test(arguments: ["tags", "parts", "related"])
    func manyAtOnceEqualsOneByOne(_ relationship: String) throws {
        let (sqlite, _, graph) = try LibraryGraph.stores(seed: 5)
        let owners = graph.items.map(\.objectID)
        for count in [1, 3, 17, owners.count] {
            let some = Array(owners.prefix(count))
            var expected: [ObjectID: [ObjectID]] = [:]
            for id in some { expected[id] = try sqlite.relatedObjectIDs(of: id, relationship: relationship) }
            #expect(try sqlite.relatedObjectIDs(of: some, relationship: relationship) == expected, "\(count) objects")
        }
        #expect(graph.items.contains { !($0.toMany[relationship] ?? []).isEmpty })
    }
}
