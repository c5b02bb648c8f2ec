import Strata
import Testing

@Suite("Suggestion")
struct SuggestionTests {
    @Test(arguments: [
        ("", "", 0),
        ("", "abc", 3),
        ("abc", "", 3),
        ("abc", "abc", 0),
        ("kitten", "sitting", 3),
        ("flaw", "lawn", 2),
        ("strng", "string", 1), // one insertion
        ("strings", "string", 1), // one deletion
        ("strimg", "string", 1), // one substitution
        ("dobule", "double", 1), // a swap of neighbours counts once
        ("ab", "ba", 1),
        ("abcd", "badc", 2),
        ("ca", "abc", 3), // optimal string alignment: no edit of a swapped pair
        ("tomany", "toMany", 1), // case counts here; `closest` ignores it
        ("intenger", "integer", 1),
        ("relationship", "relashionship", 2),
        ("é", "e", 1),
        ("🇫🇷", "🇩🇪", 1), // a flag is one Character
    ])
    func editDistance(_ a: String, _ b: String, _ expected: Int) {
        #expect(Suggestion.editDistance(a, b) == expected)
        #expect(Suggestion.editDistance(b, a) == expected)
    }

    static let relationshipKeys = [
        "name", "destination", "inverse", "toMany", "ordered", "optional", "minCount", "maxCount", "deleteRule",
        "renamingIdentifier", "versionHashModifier",
    ]
    static let types = [
        "string", "int16", "int32", "int64", "decimal", "double", "float", "bool", "date", "binary", "uuid", "uri",
        "transformable",
    ]

    @Test(arguments: [
        ("tomany", relationshipKeys, "toMany"), // case-insensitive match
        ("TOMANY", relationshipKeys, "toMany"),
        ("toMany", relationshipKeys, "toMany"),
        ("destnation", relationshipKeys, "destination"),
        ("inverce", relationshipKeys, "inverse"),
        ("deleterule", relationshipKeys, "deleteRule"),
        ("mincount", relationshipKeys, "minCount"),
        ("orderd", relationshipKeys, "ordered"),
        ("strng", types, "string"),
        ("dobule", types, "double"),
        ("flaot", types, "float"),
        ("boo", types, "bool"),
        ("uid", types, "uuid"),
        ("transformible", types, "transformable"),
        ("Date", types, "date"),
    ])
    func suggestsTheNearMiss(_ word: String, _ candidates: [String], _ expected: String) {
        #expect(Suggestion.closest(to: word, in: candidates) == expected)
        #expect(Suggestion.didYouMean(word, in: candidates) == "; did you mean '\(expected)'?")
    }

    @Test(arguments: [
        ("xyz", types),
        ("integer", types), // 3 edits from int16..int64: too far for 7 letters
        ("intt", types), // 2 edits from int16, but 4 letters allow 1
        ("text", types),
        ("color", relationshipKeys),
        ("target", relationshipKeys),
        ("a", ["bb", "cc"]),
        ("anything", []),
    ] as [(String, [String])])
    func suggestsNothingForFarWords(_ word: String, _ candidates: [String]) {
        #expect(Suggestion.closest(to: word, in: candidates) == nil)
        #expect(Suggestion.didYouMean(word, in: candidates) == "")
    }

    /// The allowed distance grows with the word: 1 up to four characters, 2 from five, 3 from nine.
    @Test func allowedDistanceGrowsWithLength() {
        #expect(Suggestion.closest(to: "abx", in: ["abc"]) == "abc") // 3 letters, 1 edit
        #expect(Suggestion.closest(to: "axx", in: ["abc"]) == nil) // 3 letters, 2 edits
        #expect(Suggestion.closest(to: "abcd", in: ["abxx"]) == nil) // 4 letters, 2 edits
        #expect(Suggestion.closest(to: "abcde", in: ["abcxx"]) == "abcxx") // 5 letters, 2 edits
        #expect(Suggestion.closest(to: "abcde", in: ["abxxx"]) == nil) // 5 letters, 3 edits
        #expect(Suggestion.closest(to: "abcdefgh", in: ["abcdexxx"]) == nil) // 8 letters, 3 edits
        #expect(Suggestion.closest(to: "abcdefghi", in: ["abcdefxxx"]) == "abcdefxxx") // 9 letters, 3 edits
        #expect(Suggestion.closest(to: "abcdefghi", in: ["abcdexxxx"]) == nil) // 9 letters, 4 edits
    }

    @Test func closestCandidateWins() {
        // The candidate at distance 1 beats the one at distance 2, whatever their order.
        #expect(Suggestion.closest(to: "optinal", in: ["ordinal", "optional"]) == "optional")
        #expect(Suggestion.closest(to: "optinal", in: ["optional", "ordinal"]) == "optional")
        // A case-insensitive match beats an exact-case near miss listed earlier.
        #expect(Suggestion.closest(to: "Name", in: ["same", "name"]) == "name")
        // On a tie the first candidate is kept.
        #expect(Suggestion.closest(to: "cat", in: ["bat", "cut"]) == "bat")
        #expect(Suggestion.closest(to: "cat", in: ["cut", "bat"]) == "cut")
    }
}
