import Foundation
import Testing

/// Expected CLI output committed under `Tests/StrataCLITests/Golden/` and compared exactly, so
/// that any change to an output format shows up in review. Re-record every golden file with
/// `STRATA_RECORD_GOLDEN=1 swift test --filter StrataCLITests`, then read the diff.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Support
        .deletingLastPathComponent() // StrataCLITests
        .appendingPathComponent("Golden")

    static var isRecording: Bool {
        ProcessInfo.processInfo.environment["STRATA_RECORD_GOLDEN"] == "1"
    }

    /// Expects `actual` to equal the golden file `name`, byte for byte; records it first when
    /// `STRATA_RECORD_GOLDEN=1`.
    static func expect(_ actual: String, matches name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name)
        if isRecording {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
        }
        let data = try #require(
            FileManager.default.contents(atPath: url.path),
            "no golden file \(name); record it with STRATA_RECORD_GOLDEN=1", sourceLocation: sourceLocation)
        let expected = String(decoding: data, as: UTF8.self)
        #expect(
            actual == expected,
            "the output differs from Golden/\(name); if the change is intended, re-record with STRATA_RECORD_GOLDEN=1 and review the diff",
            sourceLocation: sourceLocation)
    }
}
