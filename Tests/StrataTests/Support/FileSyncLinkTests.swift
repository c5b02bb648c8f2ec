import Foundation
@testable import Strata
import StrataTestKit
import Testing

@Suite("FileSync.link(_:asNew:)")
struct FileSyncLinkTests {
    @Test func aFreeNameGetsTheFileAndATakenOneIsLeftAlone() throws {
        let temporary = try TemporaryDirectory(prefix: "link")
        let directory = temporary.url
        let made = directory.appendingPathComponent("made"), name = directory.appendingPathComponent("name")
        try Data("first".utf8).write(to: made)
        #expect(try FileSync.link(made, asNew: name))
        #expect(FileManager.default.contents(atPath: name.path) == Data("first".utf8))

        let other = directory.appendingPathComponent("other")
        try Data("second".utf8).write(to: other)
        #expect(try !FileSync.link(other, asNew: name))
        #expect(FileManager.default.contents(atPath: name.path) == Data("first".utf8))

        let error = #expect(throws: StrataError.self) { try FileSync.link(other, asNew: directory.appendingPathComponent("no/such/dir")) }
        #expect(error?.code == .storeIO)
        #expect(error?.message.hasPrefix("cannot create '") == true)
    }
}
