import Foundation
import Strata
import StrataBinaryPlist
import StrataTestKit
import Testing

/// The bytes of a small store, committed under `Golden/` and compared exactly, so that any change
/// to the file layout shows up in review. Re-record with `STRATA_RECORD_GOLDEN=1 swift test`.
@Suite struct BinaryPlistGoldenTests {
    static let golden = GoldenFiles(directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden"))

    @Test func smallStoreMatchesTheGoldenFile() throws {
        let bytes = try Fixtures.format.encode(Fixtures.smallStore())
        try Self.golden.expect(Data(bytes), matches: "SmallStore.plist")
        let golden = try Data(contentsOf: Self.golden.directory.appendingPathComponent("SmallStore.plist"))
        #expect(golden.count == 5_125)
        // The committed file still reads back as the same store.
        #expect(sameContents(try Fixtures.format.decode(golden), Fixtures.smallStore()))
    }

    @Test func writingToAFileGivesTheSameBytes() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.plist")
        try Fixtures.format.write(Fixtures.smallStore(), to: url)
        #expect(Array(try Data(contentsOf: url)) == (try Fixtures.format.encode(Fixtures.smallStore())))
    }
}
