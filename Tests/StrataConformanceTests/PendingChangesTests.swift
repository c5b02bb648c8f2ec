import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct PendingChangesTests {
    @Test(arguments: StoreKind.all)
    func fetchesWithAndWithoutPendingChanges(_ kind: StoreKind) throws {
        try PendingChangesChecks().fetchesWithAndWithoutPendingChanges(kind)
    }
}
