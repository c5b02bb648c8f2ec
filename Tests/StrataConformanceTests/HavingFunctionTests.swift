import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct HavingFunctionTests {
    @Test(arguments: StoreKind.all, HavingFunctionChecks.havings)
    func aFunctionOfAnAggregateColumnInHaving(_ kind: StoreKind, _ having: String) throws {
        try HavingFunctionChecks().aFunctionOfAnAggregateColumnInHaving(kind, having)
    }
}
