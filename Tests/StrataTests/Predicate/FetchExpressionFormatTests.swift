import Foundation
@testable import Strata
import Testing

/// `FetchExpression(format:)`: one expression of the format language, as NSExpression(format:).
@Suite struct FetchExpressionFormatTests {
    @Test func parsesWhatTheLeftOfAComparisonParses() throws {
        for format in ["price * 1.1", "count + 1", "lowercase:(name)", "-price", "(a + b) * 2", "sum:(books.price)", "%K", "$limit", "tags[FIRST].name"] {
            let arguments: [any PredicateArgument] = format.contains("%K") ? ["title"] : []
            let predicate = try FetchPredicate(format: "\(format) == nil", argumentArray: arguments)
            guard case .comparison(let comparison) = predicate else {
                Issue.record("\(format) did not parse as a comparison")
                continue
            }
            let expression = format.contains("%K") ? try FetchExpression(format: format, "title") : try FetchExpression(format: format)
            #expect(expression == comparison.left, "\(format)")
        }
    }

    @Test func refusesWhatIsNotOneExpression() throws {
        #expect(throws: PredicateSyntaxError.self) { try FetchExpression(format: "price > 1") }
        #expect(throws: PredicateSyntaxError.self) { try FetchExpression(format: "price +") }
        #expect(throws: PredicateSyntaxError.self) { try FetchExpression(format: "price)") }
        #expect(throws: PredicateSyntaxError.self) { try FetchExpression(format: "price", "unused") }
    }
}
