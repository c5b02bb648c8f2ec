import Foundation
@testable import Strata
import Testing

@Suite struct FetchPredicateSubstitutionTests {
    @Test func variablesBecomeConstants() throws {
        let template = try FetchPredicate(format: "year >= $from AND author.name IN $names AND pages * $factor > 100")
        #expect(template.substitutionVariableNames == ["from", "names", "factor"])
        let filled = template.withSubstitutionVariables(["from": 1900, "names": ["Woolf", "Mann"], "factor": 1.5])
        #expect(filled == (try FetchPredicate(format: "year >= %@ AND author.name IN %@ AND pages * %@ > 100", 1900, ["Woolf", "Mann"], 1.5)))
        #expect(filled.substitutionVariableNames.isEmpty)
        // Variables it lacks stay, for a later substitution or an error naming them.
        let partly = template.withSubstitutionVariables(["from": 1900, "unused": 3])
        #expect(partly.substitutionVariableNames == ["names", "factor"])
        #expect(partly.withSubstitutionVariables(["names": ["A"], "factor": 2]) == template.withSubstitutionVariables(["from": 1900, "names": ["A"], "factor": 2]))
    }

    @Test func keyPathsAfterAVariableFold() throws {
        let predicate = try FetchPredicate(format: "count == $list.@count AND total == $list.@sum AND name == $value.name")
        let filled = predicate.withSubstitutionVariables(["list": [1, 2, 3], "value": "x"])
        #expect(filled == (try FetchPredicate(format: "count == 3 AND total == 6 AND name == nil")))
        let null: String? = nil
        #expect(try FetchPredicate(format: "a == $x").withSubstitutionVariables(["x": null]) == (try FetchPredicate(format: "a == nil")))
    }

    @Test func subqueryVariablesAreNotReplaced() throws {
        let predicate = try FetchPredicate(format: "SUBQUERY(tags, $t, $t.name == $name).@count > 0 AND $t == 1")
        #expect(predicate.substitutionVariableNames == ["name", "t"])
        let filled = predicate.withSubstitutionVariables(["t": 1, "name": "x"])
        #expect(filled == (try FetchPredicate(format: "SUBQUERY(tags, $t, $t.name == 'x').@count > 0 AND 1 == 1")))
    }

    @Test func everyPlaceAVariableCanBe() throws {
        let predicate = try FetchPredicate(format: "steps[$i].name == lowercase:($s) AND {$a, 2} CONTAINS b AND SUBQUERY($c, $x, $x > $m).@count == 1")
        let filled = predicate.withSubstitutionVariables(["i": 1, "s": "X", "a": 1, "c": [1, 5], "m": 2])
        #expect(filled == (try FetchPredicate(
            format: "steps[1].name == lowercase:('X') AND {1, 2} CONTAINS b AND SUBQUERY(%@, $x, $x > 2).@count == 1", [1, 5])))
        let expression = FetchExpression.variable("v").withSubstitutionVariables(["v": 3])
        #expect(expression == .constant(3))
    }
}
