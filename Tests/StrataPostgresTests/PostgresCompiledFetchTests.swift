import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataPostgres

/// What a PostgreSQL fetch does in SQL and what it leaves to the evaluator (`PostgresStore.fetch`
/// documents the rule), and the answers where PostgreSQL's own semantics differ: NaN, nil order,
/// integers against doubles past 2^53.
@Suite struct PostgresCompiledFetchTests {
    static let schema = #"""
        { "name": "Numbers", "entities": [ { "name": "Reading", "attributes": [
            { "name": "value", "type": "double", "optional": true },
            { "name": "count", "type": "int64", "optional": true },
            { "name": "label", "type": "string", "optional": true },
            { "name": "amount", "type": "decimal", "optional": true },
            { "name": "flag", "type": "bool", "optional": true } ] } ] }
        """#

    @Test func whatGoesToSQL() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let store = try place.store(try Models.schema(Self.schema))
        func inSQL(_ format: String, sortedBy sort: String? = nil) throws -> Bool {
            let request = StoreFetchRequest(
                entityNames: ["Reading"], predicate: try FetchPredicate(format: format), sortDescriptors: sort.map { [FetchSortDescriptor($0)] } ?? [])
            return store.compiled(request, ("Reading", ["Reading"])) != nil
        }
        #expect(try inSQL("value > 1.5 AND count IN {1, 2} AND flag == YES", sortedBy: "value"))
        #expect(try inSQL("count BETWEEN {1, 9} OR NOT value == nil", sortedBy: "count"))
        #expect(try inSQL("count < 2.5 AND value != 3"))
        #expect(try !inSQL("label == 'a'"))
        #expect(try !inSQL("label BEGINSWITH[cd] 'a'"))
        #expect(try !inSQL("amount > 1"))
        #expect(try !inSQL("count > 1", sortedBy: "label"))
        #expect(try !inSQL("count > value"))
        #expect(try inSQL("label == nil AND amount != nil"))
    }

    @Test func nanNilAndLargeIntegersAnswerAsTheEvaluatorDoes() throws {
        let place = try TestSchema()
        defer { place.drop() }
        let store = try place.store(try Models.schema(Self.schema))
        let values: [Double?] = [nil, .nan, 1, -.infinity, 2, 0x1p53]
        let counts: [Int64?] = [1, nil, Int64.max, 9_007_199_254_740_993, -5, 3]
        let keys = try store.allocatePrimaryKeys(rootEntity: "Reading", count: values.count)
        var records: [StoreRecord] = []
        for (index, key) in keys.enumerated() {
            var attributes: AttributeValues = [:]
            if let value = values[index] { attributes["value"] = .double(value) }
            if let count = counts[index] { attributes["count"] = .integer(count) }
            records.append(StoreRecord(objectID: ObjectID(entityName: "Reading", storeIdentifier: store.storeIdentifier, primaryKey: key), attributes: attributes))
        }
        _ = try store.save(StoreChangeset(inserted: records))
        func keysOf(_ format: String, _ arguments: [any PredicateArgument] = [], sortedBy sort: FetchSortDescriptor? = nil) throws -> [Int64] {
            let request = StoreFetchRequest(
                entityNames: ["Reading"], predicate: try FetchPredicate(format: format, argumentArray: arguments), sortDescriptors: sort.map { [$0] } ?? [])
            #expect(store.compiled(request, ("Reading", ["Reading"])) != nil)
            return try store.fetch(request).map { $0.objectID.primaryKey! - keys[0] }
        }
        // NaN is greater than nothing, equal to itself; nil sorts first, NaN after the numbers.
        #expect(try keysOf("value > 0") == [2, 4, 5])
        #expect(try keysOf("value >= %@", [Double.nan]) == [1])
        #expect(try keysOf("value != %@", [Double.nan]) == [0, 2, 3, 4, 5])
        #expect(try keysOf("TRUEPREDICATE", sortedBy: FetchSortDescriptor("value")) == [0, 3, 2, 4, 5, 1])
        #expect(try keysOf("TRUEPREDICATE", sortedBy: FetchSortDescriptor("value", ascending: false)) == [1, 5, 4, 2, 3, 0])
        // Integers against doubles exactly: 2^53 + 1 is not 2^53, Int64.max is below 2^63.
        #expect(try keysOf("count == %@", [0x1p53]) == [])
        #expect(try keysOf("count > %@", [0x1p53]) == [2, 3])
        #expect(try keysOf("count < %@", [0x1p63]) == [0, 2, 3, 4, 5])
        #expect(try keysOf("count < 2.5") == [0, 4])
    }
}
