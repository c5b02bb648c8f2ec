import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct LimitTests {
    @Test(arguments: StoreKind.all)
    func longToOneKeyPaths(_ kind: StoreKind) throws {
        try LimitChecks().longToOneKeyPaths(kind)
    }

    @Test(arguments: StoreKind.all)
    func keyPathsPastTheLimit(_ kind: StoreKind) throws {
        try LimitChecks().keyPathsPastTheLimit(kind)
    }

    @Test(arguments: StoreKind.all)
    func longRunsOfOrAndAnd(_ kind: StoreKind) throws {
        try LimitChecks().longRunsOfOrAndAnd(kind)
    }

    @Test(arguments: StoreKind.all)
    func deepPredicatesBuiltInCode(_ kind: StoreKind) throws {
        try LimitChecks().deepPredicatesBuiltInCode(kind)
    }

    @Test(arguments: StoreKind.all)
    func subqueriesNestedToTheLimit(_ kind: StoreKind) throws {
        try LimitChecks().subqueriesNestedToTheLimit(kind)
    }

    @Test(arguments: StoreKind.all)
    func arithmeticNestedToTheLimit(_ kind: StoreKind) throws {
        try LimitChecks().arithmeticNestedToTheLimit(kind)
    }

    @Test(arguments: StoreKind.all)
    func matchesPastTheRegexEnginesLimits(_ kind: StoreKind) throws {
        try LimitChecks().matchesPastTheRegexEnginesLimits(kind)
    }

    /// W1: a `regex` rule the engine cannot decide is a validation failure that says so, not
    /// "does not match". (Validation runs in the context, the same for every store.)
    @Test func regexRulePastTheEnginesLimits() throws {
        let fixture = try StoreFixture(StoreKind.all.first { $0.name == "sqlite" }!, LimitChecks.model)
        let context = fixture.context()
        let node = try context.make("Node", ["n": 0, "code": String(repeating: "a", count: 25) + "!"])
        let expected = ValidationFailure(
            code: .patternNotEvaluated, objectID: node.objectID, key: "code",
            message: "could not check the value against the regex rule: the pattern \"(a+)+c|a*!\" could not be evaluated: the match exceeded the regular expression engine's limits (too much backtracking or nesting); simplify the pattern, for example by removing nested quantifiers such as (a+)+")
        #expect {
            try context.save()
        } throws: { error in
            (error as? StrataError)?.code == .validationFailed && (error as? StrataError)?.failures == [expected]
        }
        node["code"] = "aaa!"
        try context.save()
        try fixture.verifyStored { context in
            let codes = try context.fetch(FetchRequest(entityName: "Node")).map { $0["code"] as? String }
            #expect(codes == ["aaa!"])
        }
    }
}
