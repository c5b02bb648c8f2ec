import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct BatchRaceTests {
    @Test(arguments: Array(StoreKind.all.suffix(2)))
    func aMemberAddedMeanwhileIsNotLeftDangling(_ kind: StoreKind) throws {
        try BatchRaceChecks().aMemberAddedMeanwhileIsNotLeftDangling(kind)
    }

    @Test(arguments: Array(StoreKind.all.suffix(2)))
    func aDenyingMemberAddedMeanwhileRefusesTheDelete(_ kind: StoreKind) throws {
        try BatchRaceChecks().aDenyingMemberAddedMeanwhileRefusesTheDelete(kind)
    }
}
