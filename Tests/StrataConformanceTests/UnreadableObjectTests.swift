import Foundation
import Strata
import StrataTestKit
import Testing

@Suite("Objects a store cannot read")
struct UnreadableObjectTests {
    @Test(arguments: StoreKind.all)
    func aFaultThatCannotBeReadIsNotDeletedAndBlocksTheSave(kind: StoreKind) throws {
        try UnreadableObjectChecks().aFaultThatCannotBeReadIsNotDeletedAndBlocksTheSave(kind: kind)
    }

    @Test(arguments: StoreKind.all)
    func membersThatCannotBeReadAreNeverSavedAsNone(kind: StoreKind) throws {
        try UnreadableObjectChecks().membersThatCannotBeReadAreNeverSavedAsNone(kind: kind)
    }
}
