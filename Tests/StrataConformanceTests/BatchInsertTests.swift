import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct BatchInsertTests {
    @Test(arguments: StoreKind.all)
    func insertsWithDefaultsAndReturnsIDsInOrder(_ kind: StoreKind) throws {
        try BatchInsertChecks().insertsWithDefaultsAndReturnsIDsInOrder(kind)
    }

    @Test(arguments: StoreKind.all)
    func typedValuesAndCounts(_ kind: StoreKind) throws {
        try BatchInsertChecks().typedValuesAndCounts(kind)
    }

    @Test(arguments: StoreKind.all)
    func aBrokenRuleRefusesEveryObject(_ kind: StoreKind) throws {
        try BatchInsertChecks().aBrokenRuleRefusesEveryObject(kind)
    }

    @Test(arguments: StoreKind.all)
    func uniquenessIsCheckedAgainstTheStoreAndWithinTheRequest(_ kind: StoreKind) throws {
        try BatchInsertChecks().uniquenessIsCheckedAgainstTheStoreAndWithinTheRequest(kind)
    }

    @Test(arguments: StoreKind.all)
    func badKeysAndValuesAreErrorsNotTraps(_ kind: StoreKind) throws {
        try BatchInsertChecks().badKeysAndValuesAreErrorsNotTraps(kind)
    }

    @Test(arguments: StoreKind.all)
    func manyObjectsInStatementsOfManyRows(_ kind: StoreKind) throws {
        try BatchInsertChecks().manyObjectsInStatementsOfManyRows(kind)
    }
}
