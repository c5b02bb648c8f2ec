import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct AverageOfStringsTests {
    @Test(arguments: StoreKind.all)
    func averagingStringsIsAnError(_ kind: StoreKind) throws {
        try AverageOfStringsChecks().averagingStringsIsAnError(kind)
    }
}
