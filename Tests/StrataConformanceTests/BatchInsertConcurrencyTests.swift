import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct BatchInsertConcurrencyTests {
    @Test(arguments: StoreKind.all.filter { $0.persists })
    func aBatchInsertAfterAnotherProcessInsertedSucceedsAsAContextInsertDoes(_ kind: StoreKind) throws {
        try BatchInsertConcurrencyChecks().aBatchInsertAfterAnotherProcessInsertedSucceedsAsAContextInsertDoes(kind)
    }
}
