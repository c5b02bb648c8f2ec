import Foundation
import Strata
import StrataBinaryPlist
import Testing

/// The bytes of a small store, committed under `Golden/` and compared exactly, so that any change
/// to the file layout shows up in review. Re-record with `STRATA_RECORD_GOLDEN=1 swift test`.
@Suite struct BinaryPlistGoldenTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    @Test func smallStoreMatchesTheGoldenFile() throws {
        let url = Self.directory.appendingPathComponent("SmallStore.plist")
        let bytes = try Fixtures.format.encode(Fixtures.smallStore())
        if ProcessInfo.processInfo.environment["STRATA_RECORD_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
            print("recorded \(url.path) (\(bytes.count) bytes)")
        }
        let golden = try Data(contentsOf: url)
        #expect(Array(golden) == bytes, "the binary layout changed; if that is intended, re-record with STRATA_RECORD_GOLDEN=1 and review the diff")
        #expect(golden.count == 5_125)
        // The committed file still reads back as the same store.
        #expect(sameContents(try Fixtures.format.decode(golden), Fixtures.smallStore()))
    }

    @Test func writingToAFileGivesTheSameBytes() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("store.plist")
        try Fixtures.format.write(Fixtures.smallStore(), to: url)
        #expect(Array(try Data(contentsOf: url)) == (try Fixtures.format.encode(Fixtures.smallStore())))
    }
}
