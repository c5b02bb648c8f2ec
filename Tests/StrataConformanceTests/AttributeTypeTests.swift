import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct AttributeTypeTests {
    @Test(arguments: StoreKind.all)
    func everyTypeRoundTripsExactly(_ kind: StoreKind) throws {
        try AttributeTypeChecks().everyTypeRoundTripsExactly(kind)
    }

    @Test(arguments: StoreKind.all)
    func emptyAndNilAreDifferent(_ kind: StoreKind) throws {
        try AttributeTypeChecks().emptyAndNilAreDifferent(kind)
    }

    @Test(arguments: StoreKind.all)
    func transformableAndTransientAttributes(_ kind: StoreKind) throws {
        try AttributeTypeChecks().transformableAndTransientAttributes(kind)
    }

    @Test(arguments: StoreKind.all)
    func edgeValuesAreFoundByEquality(_ kind: StoreKind) throws {
        try AttributeTypeChecks().edgeValuesAreFoundByEquality(kind)
    }
}
