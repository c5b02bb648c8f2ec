import Foundation
import Strata
import Testing

@Suite struct StringMatchingTests {
    @Test func foldingCopiesAndNeverChangesTheStoredString() {
        #expect(StringMatching.fold("Saint-Étienne", []) == "Saint-Étienne")
        #expect(StringMatching.fold("Saint-Étienne", .caseInsensitive) == "saint-étienne")
        #expect(StringMatching.fold("Saint-Étienne", .diacriticInsensitive) == "Saint-Etienne")
        #expect(StringMatching.fold("Saint-Étienne", [.caseInsensitive, .diacriticInsensitive]) == "saint-etienne")
        #expect(StringMatching.fold("ÅRHUS", [.caseInsensitive, .diacriticInsensitive]) == "arhus")
        #expect(StringMatching.fold("Straße", .normalized) == "Straße")
    }

    @Test func equalityAndOrder() {
        #expect(StringMatching.equal("\u{C9}", "E\u{301}", []))
        #expect(!StringMatching.equal("É", "E", []))
        #expect(StringMatching.equal("É", "e", [.caseInsensitive, .diacriticInsensitive]))
        #expect(StringMatching.compare("a", "b", []) == -1)
        #expect(StringMatching.compare("b", "a", []) == 1)
        #expect(StringMatching.compare("B", "a", []) == -1)        // scalar order: upper case first
        #expect(StringMatching.compare("B", "a", .caseInsensitive) == 1)
        #expect(StringMatching.compare("e\u{301}", "\u{E9}", []) == 0)
        #expect(StringMatching.compare("é", "f", []) == 1)         // é is after every ASCII letter
        #expect(StringMatching.compare("é", "f", .diacriticInsensitive) == -1)
    }

    @Test func prefixSuffixAndSubstringWorkOnCharacters() {
        #expect(StringMatching.beginsWith("École", "\u{C9}", []))
        #expect(StringMatching.beginsWith("E\u{301}cole", "\u{C9}", []))
        #expect(!StringMatching.beginsWith("E\u{301}cole", "E", []))     // É is one character
        #expect(StringMatching.beginsWith("E\u{301}cole", "e", [.caseInsensitive, .diacriticInsensitive]))
        #expect(StringMatching.beginsWith("abc", "", []))
        #expect(!StringMatching.beginsWith("ab", "abc", []))
        #expect(StringMatching.endsWith("café", "fe\u{301}", []))
        #expect(!StringMatching.endsWith("café", "e", []))
        #expect(StringMatching.endsWith("café", "E", [.caseInsensitive, .diacriticInsensitive]))
        #expect(!StringMatching.endsWith("a", "ba", []))
        #expect(!StringMatching.contains("résumé", "e", []))            // not inside é
        #expect(StringMatching.contains("résumé", "e", .diacriticInsensitive))
        #expect(StringMatching.contains("résumé", "SUM", .caseInsensitive))
        #expect(StringMatching.contains("abc", "", []))
        #expect(StringMatching.contains("aab", "ab", []))
        #expect(!StringMatching.contains("ab", "abc", []))
        #expect(StringMatching.contains("family 👩‍👩‍👧‍👦 photo", "👩‍👩‍👧‍👦", []))
        #expect(!StringMatching.contains("family 👩‍👩‍👧‍👦 photo", "👩", []))   // part of a grapheme
    }

    @Test(arguments: [
        ("abc", "abc", [], true),
        ("abc", "a*", [], true),
        ("abc", "*c", [], true),
        ("abc", "*b*", [], true),
        ("abc", "a?c", [], true),
        ("abc", "a?", [], false),
        ("abc", "????", [], false),
        ("", "*", [], true),
        ("", "?", [], false),
        ("abc", "a**c", [], true),
        ("aXbXc", "a*b*c", [], true),
        ("abcbc", "*bc", [], true),
        ("a*c", "a\\*c", [], true),
        ("abc", "a\\*c", [], false),
        ("a?c", "a\\?c", [], true),
        ("a\\c", "a\\\\c", [], true),
        ("a\\", "a\\", [], true),                      // a trailing backslash matches itself
        ("ABC", "a*", [], false),
        ("ABC", "a*", .caseInsensitive, true),
        ("Été", "ete", [.caseInsensitive, .diacriticInsensitive], true),
        ("👩‍👩‍👧‍👦!", "?!", [], true),                   // ? is one character (grapheme)
        ("E\u{301}", "?", [], true),
    ] as [(String, String, ComparisonOptions, Bool)])
    func like(_ string: String, _ pattern: String, _ options: ComparisonOptions, _ expected: Bool) {
        #expect(StringMatching.like(string, pattern, options) == expected)
    }

    @Test func matchesIsAWholeStringRegularExpression() throws {
        #expect(try StringMatching.matches("abc123", "[a-z]+[0-9]+", []))
        #expect(try !StringMatching.matches("abc123x", "[a-z]+[0-9]+", []))
        #expect(try !StringMatching.matches("1abc123", "[a-z]+[0-9]+", []))
        #expect(try StringMatching.matches("a|b", "a\\|b", []))
        #expect(try StringMatching.matches("b", "a|b", []))               // alternation stays inside the anchors
        #expect(try !StringMatching.matches("ab", "a|b", []))
        #expect(try StringMatching.matches("ABC", "abc", .caseInsensitive))
        #expect(try !StringMatching.matches("ABC", "abc", []))
        #expect(try StringMatching.matches("Étienne", "Etienne", .diacriticInsensitive))
        #expect(try StringMatching.matches("ÉTIENNE", "etienne", [.caseInsensitive, .diacriticInsensitive]))
        #expect(try !StringMatching.matches("a\nb", "a.b", []))
        #expect(try !StringMatching.matches("abc", "(", []))              // invalid: matches nothing
    }

    /// W1: ICU gives up on this match after about 40 million steps and reports no match, though
    /// `a*!` matches; Strata stops it first and says so.
    @Test func aMatchPastTheEnginesLimitsThrows() throws {
        let pattern = "(a+)+c|a*!"
        let subject = String(repeating: "a", count: 25) + "!"
        #expect(throws: RegexRule.Failure(pattern: pattern)) { try StringMatching.matches(subject, pattern, .caseInsensitive) }
        // The same pattern on a short value is decided, either way.
        #expect(try StringMatching.matches("aaa!", pattern, []))
        #expect(try !StringMatching.matches("aaab", pattern, []))
        // Too deep for ICU's backtracking stack: also an error, not a "no".
        let long = String(repeating: "ab", count: 1_000_000) + "!"
        #expect(throws: RegexRule.Failure(pattern: "(a|b)*!")) { try RegexRule.matches("(a|b)*!", long) }
    }

    @Test func localizedStandardCompare() {
        let cases: [(String, String, Int)] = [
            ("file2", "file10", -1),
            ("file10", "file2", 1),
            ("file10", "file10", 0),
            ("file002", "file2", -1),        // equal numbers: plain order breaks the tie
            ("File2", "file10", -1),
            ("file", "file1", -1),
            ("1", "a", -1),                  // numbers before letters
            ("Émile", "emile", 1),           // tie after folding: plain order, É after e
            ("Émile", "émile", -1),          // ... and É before é
            ("Émile", "Zola", -1),           // é sorts as e
            ("a99999999999999999999999", "a100000000000000000000000", -1),
            ("x9y", "x10a", -1),
        ]
        for (a, b, expected) in cases {
            #expect(StringMatching.localizedStandardCompare(a, b) == expected, "\(a) vs \(b)")
        }
    }
}
