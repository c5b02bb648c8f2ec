import Foundation
import Strata
import StrataTestKit
import Testing
import StrataSQL
@testable import StrataSQLite

/// Each construct of the predicate language on a small hand-made graph, with the exact answer
/// (and the in-memory store's answer, which must be the same).
@Suite struct PredicateConstructTests {
    let sqlite: SQLiteStore
    let memory: AtomicStore
    let o1: ObjectID

    init() throws {
        let schema = try LibraryFixture.schema()
        sqlite = try SQLiteStore(url: nil, schema: schema)
        memory = try AtomicStore(format: nil, type: .inMemory, url: nil, schema: schema, configurationName: nil)
        let store = sqlite.metadata.storeIdentifier
        func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entityName: entity, storeIdentifier: store, primaryKey: key) }
        o1 = id("Owner", 1)
        let items: [StoreRecord] = [
            StoreRecord(objectID: id("Item", 1), attributes: ["name": .string("apple"), "count": .integer(5), "ratio": .double(1.5), "price": .decimal(Decimal(string: "1.5")!), "flag": .bool(true)],
                        toOne: ["owner": id("Owner", 1)], toMany: ["tags": [id("Tag", 1), id("Tag", 2)], "parts": [id("Part", 2), id("Part", 1)]]),
            StoreRecord(objectID: id("Item", 2), attributes: ["name": .string("Apple"), "ratio": .double(.nan)], toMany: ["tags": [id("Tag", 2)]]),
            StoreRecord(objectID: id("Item", 3), attributes: ["name": .string("e\u{301}clair"), "count": .integer(100), "ratio": .double(-0.0), "price": .decimal(Decimal(string: "123456789012345678.901234567890")!)],
                        toOne: ["owner": id("Owner", 2)]),
            StoreRecord(objectID: id("SpecialItem", 4), attributes: ["count": .integer(50), "extra": .string("x")],
                        toOne: ["owner": id("Owner", 1)], toMany: ["tags": [id("Tag", 1), id("Tag", 3)]]),
            StoreRecord(objectID: id("Item", 5), attributes: ["name": .string("\u{C9}CLAIR"), "count": .integer(0), "ratio": .double(.infinity)]),
        ]
        let others: [StoreRecord] = [
            StoreRecord(objectID: id("Owner", 1), attributes: ["name": .string("Ann"), "age": .integer(30)], toMany: ["items": [id("Item", 1), id("SpecialItem", 4)]]),
            StoreRecord(objectID: id("Owner", 2), toMany: ["items": [id("Item", 3)]]),
            StoreRecord(objectID: id("Tag", 1), attributes: ["label": .string("red"), "rank": .integer(1)], toMany: ["items": [id("Item", 1), id("SpecialItem", 4)]]),
            StoreRecord(objectID: id("Tag", 2), attributes: ["label": .string("green"), "rank": .integer(2)], toMany: ["items": [id("Item", 1), id("Item", 2)]]),
            StoreRecord(objectID: id("Tag", 3), attributes: ["label": .string("Blue"), "rank": .integer(3)], toMany: ["items": [id("SpecialItem", 4)]]),
            StoreRecord(objectID: id("Part", 1), attributes: ["size": .integer(10)], toOne: ["item": id("Item", 1)]),
            StoreRecord(objectID: id("Part", 2), attributes: ["size": .integer(20)], toOne: ["item": id("Item", 1)]),
        ]
        _ = try sqlite.save(StoreChangeset(inserted: items + others))
        _ = try memory.save(StoreChangeset(inserted: items + others))
    }

    func keys(_ format: String, _ arguments: [any PredicateArgument] = [], sort: [FetchSortDescriptor] = [], limit: Int = 0, offset: Int = 0) throws -> [Int64] {
        let predicate = try FetchPredicate(format: format, argumentArray: arguments)
        let request = StoreFetchRequest(entityNames: ["Item", "SpecialItem"], predicate: predicate, sortDescriptors: sort, fetchLimit: limit, fetchOffset: offset)
        let result = try sqlite.fetch(request).map { $0.objectID.primaryKey! }
        #expect(try memory.fetch(request).map { $0.objectID.primaryKey! } == result, "\(format)")
        #expect(try sqlite.count(request) == result.count, "\(format)")
        return result
    }

    /// Arithmetic, functions, subscripts of the ordered `parts` and distinct values: in SQL, not
    /// left to the evaluator.
    @Test func expressionsCompileToSQL() throws {
        let before = sqlite.inMemoryFallbacks.load(ordering: .relaxed)
        #expect(try keys("count * 2 + 1 == 11") == [1])
        #expect(try keys("count / 0 == nil") == [1, 2, 3, 4, 5])
        #expect(try keys("-count < -60 OR count - 50 == 0") == [3, 4])
        #expect(try keys("price * 2 == 3") == [1])
        #expect(try keys("parts[FIRST].size == 20") == [1])
        #expect(try keys("parts[LAST].size == 10") == [1])
        #expect(try keys("parts[1].size == 10 AND parts[2].size == nil") == [1])
        #expect(try keys("parts[SIZE] == 0") == [2, 3, 4, 5])
        #expect(try keys("lowercase:(name) == 'apple'") == [1, 2])
        #expect(try keys("length:(name) == 6") == [3, 5])
        #expect(try keys("ANY uppercase:(tags.label) == 'BLUE'") == [4])
        #expect(try keys("sum:(tags.rank) == 4") == [4])
        #expect(try keys("count:(owner.items.@distinctUnionOfObjects.owner) == 1") == [1, 3, 4])
        #expect(try keys("abs:(ratio) == 0") == [3])
        #expect(try keys("max:({count, 7}) == 7") == [1, 2, 5])
        #expect(sqlite.inMemoryFallbacks.load(ordering: .relaxed) == before)
    }

    @Test func nilIsFalseExceptNotEqualAndNotInvertsIt() throws {
        #expect(try keys("count < 100") == [1, 4, 5])
        #expect(try keys("NOT (count < 100)") == [2, 3])
        #expect(try keys("count != 5") == [2, 3, 4, 5])
        #expect(try keys("count == nil") == [2])
        #expect(try keys("count != nil") == [1, 3, 4, 5])
        #expect(try keys("NOT (count >= 0 AND name BEGINSWITH 'a')") == [2, 3, 4, 5])
        #expect(try keys("owner.name == nil") == [2, 3, 5])
        #expect(try keys("owner.age > 20") == [1, 4])
        #expect(try keys("NOT (owner.age > 20)") == [2, 3, 5])
    }

    @Test func stringsCompareAsSwiftDoes() throws {
        #expect(try keys("name == %@", ["\u{E9}clair"]) == [3])
        #expect(try keys("name ==[c] %@", ["\u{E9}clair"]) == [3, 5])
        #expect(try keys("name ==[cd] 'eclair'") == [3, 5])
        #expect(try keys("name BEGINSWITH 'e'") == [])
        #expect(try keys("name BEGINSWITH[d] 'e'") == [3])
        #expect(try keys("name ENDSWITH[c] 'LE'") == [1, 2])
        #expect(try keys("name CONTAINS[c] 'PL'") == [1, 2])
        #expect(try keys("name LIKE[c] 'a*'") == [1, 2])
        #expect(try keys("name LIKE '?pple'") == [1, 2])
        #expect(try keys("name MATCHES 'A.*'") == [2])
        #expect(try keys("name MATCHES[c] 'A.*'") == [1, 2])
        #expect(try keys("name > 'apple'") == [3, 5])
        #expect(try keys("'pp' IN name") == [1, 2])
    }

    @Test func numbersCompareByValueAcrossKinds() throws {
        #expect(try keys("ratio > 1") == [1, 5])
        #expect(try keys("ratio == %@", [Double.nan]) == [2])
        #expect(try keys("ratio == 0") == [3])
        #expect(try keys("NOT (ratio < 10)") == [2, 4, 5])
        #expect(try keys("price > 100") == [3])
        #expect(try keys("price == 1.5") == [1])
        #expect(try keys("price > %@", [Decimal(string: "123456789012345678.9012345678")!]) == [3])
        #expect(try keys("price == %@", [Decimal(string: "123456789012345678.90123456789")!]) == [3])
        #expect(try keys("count IN {5, 0}") == [1, 5])
        #expect(try keys("count BETWEEN {0, 50}") == [1, 4, 5])
        #expect(try keys("count == 5.0") == [1])
        #expect(try keys("flag == YES") == [1])
        #expect(try keys("name IN {'apple', 'x'}") == [1])
    }

    @Test func toManyModifiersAndAggregates() throws {
        #expect(try keys("ANY tags.label == 'red'") == [1, 4])
        #expect(try keys("tags.label == 'green'") == [1, 2])
        #expect(try keys("ALL tags.rank > 1") == [2, 3, 5])
        #expect(try keys("NONE tags.label == 'red'") == [2, 3, 5])
        #expect(try keys("'red' IN tags.label") == [1, 4])
        #expect(try keys("tags.@count == 2") == [1, 4])
        #expect(try keys("tags.@sum.rank == 4") == [4])
        #expect(try keys("tags.@avg.rank == 1.5") == [1])
        #expect(try keys("tags.@max.rank == 3") == [4])
        #expect(try keys("tags.@min.label == 'green'") == [1, 2])
        #expect(try keys("parts.@count > 0") == [1])
        #expect(try keys("parts.@sum.size == 30") == [1])
        #expect(try keys("tags.@sum.rank == 0") == [3, 5])
        #expect(try keys("owner.items.@count == 2") == [1, 4])
        #expect(try keys("SUBQUERY(tags, $t, $t.rank >= 2).@count == 1") == [1, 2, 4])
        #expect(try keys("SUBQUERY(tags, $t, label BEGINSWITH[c] 'b' OR rank == 1).@count == 2") == [4])
    }

    @Test func objectsAndTheEvaluatedObject() throws {
        #expect(try keys("owner == %@", [o1]) == [1, 4])
        #expect(try keys("owner != %@", [o1]) == [2, 3, 5])
        let three = ObjectID(entityName: "Item", storeIdentifier: sqlite.metadata.storeIdentifier, primaryKey: 3)
        #expect(try keys("SELF IN %@", [[three, o1]]) == [3])
        #expect(try keys("SELF == %@", [three]) == [3])
        #expect(try keys("extra == 'x'") == [4])
    }

    @Test func sortOrderLimitOffsetAndCount() throws {
        #expect(try keys("TRUEPREDICATE", sort: [FetchSortDescriptor("name")]) == [4, 2, 1, 5, 3])
        #expect(try keys("TRUEPREDICATE", sort: [FetchSortDescriptor("name", ascending: false, comparison: .caseInsensitive)]) == [3, 5, 1, 2, 4])
        #expect(try keys("TRUEPREDICATE", sort: [FetchSortDescriptor("ratio")]) == [4, 3, 1, 5, 2])
        #expect(try keys("TRUEPREDICATE", sort: [FetchSortDescriptor("count", ascending: false)]) == [3, 4, 1, 5, 2])
        #expect(try keys("TRUEPREDICATE", sort: [FetchSortDescriptor("owner.name"), FetchSortDescriptor("count")]) == [2, 5, 3, 1, 4])
        #expect(try keys("TRUEPREDICATE", sort: [FetchSortDescriptor("count")], limit: 2, offset: 1) == [5, 1])
        #expect(try keys("count > 0", sort: [FetchSortDescriptor("count")], offset: 10) == [])
        #expect(sqlite.inMemoryFallbacks.load(ordering: .relaxed) == 0)
    }

    @Test func valuesAreBoundNeverSpliced() throws {
        let predicate = try FetchPredicate(format: "name == %@ OR tags.label BEGINSWITH 'secret'", "Robert'); DROP TABLE Item; --")
        var compiler = sqlite.compiler()
        let compiled = try compiler.fetch(
            table: sqlite.layout.tables["Item"]!, entityNames: ["Item", "SpecialItem"], predicate: predicate, sortDescriptors: [], limit: 0, offset: 0)
        #expect(!compiled.select.contains("Robert"))
        #expect(!compiled.select.contains("secret"))
        #expect(compiled.arguments.contains(.text("secret")))
        #expect(try sqlite.fetch(StoreFetchRequest(entityNames: ["Item"], predicate: predicate)).isEmpty)
        #expect(try sqlite.count(StoreFetchRequest(entityNames: ["Item", "SpecialItem"])) == 5)
    }
}
