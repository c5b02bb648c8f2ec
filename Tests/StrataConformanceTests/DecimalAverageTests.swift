import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct DecimalAverageTests {
    @Test(arguments: StoreKind.all)
    func theAverageOfDecimalsIsAnExactDecimal(_ kind: StoreKind) throws {
        try DecimalAverageChecks().theAverageOfDecimalsIsAnExactDecimal(kind)
    }
}
