import Foundation
import Strata
import Testing

/// The average of decimal values (money) is an exact decimal, as Core Data's `@avg` of a
/// decimal attribute (an NSDecimalNumber): 1.10 and 2.2 average to 1.65, not the
/// 1.6500000000000001 of adding them as doubles.
package struct DecimalAverageChecks {
    package init() {}

    package func theAverageOfDecimalsIsAnExactDecimal(_ kind: StoreKind) throws {
        let fixture = try StoreFixture(kind, Models.catalog)
        _ = try fixture.coordinator.execute(BatchInsertRequest(entityName: "Book", objects: [
            ["title": "a", "price": Decimal(string: "1.10")!], ["title": "b", "price": Decimal(string: "2.2")!],
        ]))
        var request = FetchRequest(entityName: "Book", resultType: .dictionaries)
        request.expressionsToFetch = [.average("price")]
        let rows = try fixture.context().fetchDictionaries(request)
        #expect(rows.first?["@avg.price"] == .attribute(.decimal(Decimal(string: "1.65")!)))
    }
}
