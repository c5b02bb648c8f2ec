import Foundation
@testable import Strata
import Testing

@Suite("UUIDText")
struct UUIDTextTests {
    @Test(arguments: [
        ("E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
        ("e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
        ("E621E1F8-C36C-495A-93FC-0C247A3E6EZF", nil),
        ("E621E1F8C36C-495A-93FC-0C247A3E6E5F0", nil),
        ("E621E1F8-C36C-495A-93FC-0C247A3E6E5", nil),
        ("not-a-uuid", nil),
    ] as [(String, String?)])
    func parsesStrictly(_ text: String, _ expected: String?) {
        var text = text
        let parsed = text.withUTF8 { UUIDText.uuid(ascii: UnsafeRawBufferPointer($0)) }
        #expect(parsed?.uuidString == expected)
    }
}
