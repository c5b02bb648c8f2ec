import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct PredicateExpressionTests {
    @Test(arguments: StoreKind.all)
    func arithmeticAndFunctions(_ kind: StoreKind) throws {
        try PredicateExpressionChecks().arithmeticAndFunctions(kind)
    }

    @Test(arguments: StoreKind.all)
    func distinctValues(_ kind: StoreKind) throws {
        try PredicateExpressionChecks().distinctValues(kind)
    }

    @Test(arguments: StoreKind.all)
    func subscriptsOfOrderedToManys(_ kind: StoreKind) throws {
        try PredicateExpressionChecks().subscriptsOfOrderedToManys(kind)
    }

    @Test(arguments: StoreKind.all)
    func anUnboundVariableIsAnErrorNamingIt(_ kind: StoreKind) throws {
        try PredicateExpressionChecks().anUnboundVariableIsAnErrorNamingIt(kind)
    }
}
