@testable import Strata
import Testing

@Suite("Echo")
struct EchoTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("a\nb\tc\rd", #"a\nb\tc\rd"#),
        ("\u{1B}[31mred\u{0}", #"\u{1B}[31mred\u{00}"#),
        ("del\u{7F} c1\u{85}\u{9F}", #"del\u{7F} c1\u{85}\u{9F}"#),
        ("émoji 😀 stay", "émoji 😀 stay"),
    ])
    func valuesAreEscaped(_ text: String, _ shown: String) {
        #expect(Echo.value(text) == shown)
    }

    @Test func longValuesAreCutAt200Characters() {
        #expect(Echo.value(String(repeating: "é", count: 200)) == String(repeating: "é", count: 200))
        #expect(Echo.value(String(repeating: "é", count: 201)) == String(repeating: "é", count: 200) + "…")
    }

    /// A message keeps its lines; each is cut at 1,000 characters.
    @Test func messagesKeepNewlines() {
        #expect(Echo.message("one\u{1B}\ntwo\tthree") == "one\\u{1B}\ntwo\tthree")
        #expect(Echo.message(String(repeating: "x", count: 1_001) + "\nend") == String(repeating: "x", count: 1_000) + "…\nend")
    }
}
