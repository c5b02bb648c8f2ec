import Foundation
import Strata
import StrataTestKit
import Synchronization
import Testing

@Suite("Saves across two stores")
struct MultiStoreSaveTests {
    /// Each kind holding the notes, beside the next kind of the list holding the log.
    static let pairs = MultiStoreSaveChecks.pairs(StoreKind.all)

    @Test(arguments: pairs, MultiStoreSaveChecks.Failure.allCases)
    func aStoreFailingAtCommitLeavesBothStoresAsTheyWere(pair: StorePair, failing: MultiStoreSaveChecks.Failure) throws {
        try MultiStoreSaveChecks().aStoreFailingAtCommitLeavesBothStoresAsTheyWere(pair: pair, failing: failing)
    }

    @Test(arguments: pairs)
    func anotherSaveSinceTheCommitIsNeverUndone(pair: StorePair) throws {
        try MultiStoreSaveChecks().anotherSaveSinceTheCommitIsNeverUndone(pair: pair)
    }

    @Test(arguments: StoreKind.all.filter { $0.persists })
    func aStoreFileIsAddedOnce(kind: StoreKind) throws {
        try MultiStoreSaveChecks().aStoreFileIsAddedOnce(kind: kind)
    }
}
