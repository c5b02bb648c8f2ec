import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct CountOfNilCollectionTests {
    @Test(arguments: StoreKind.all)
    func aColumnAgreesWithThePredicate(_ kind: StoreKind) throws {
        try CountOfNilCollectionChecks().aColumnAgreesWithThePredicate(kind)
    }
}
