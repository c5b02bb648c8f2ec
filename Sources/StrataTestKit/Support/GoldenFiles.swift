public import Foundation
public import Testing

/// Expected output committed as files in a directory of the source tree and compared exactly,
/// so that any change to an output format shows up in review.
///
/// Re-record every golden file a test compares with `STRATA_RECORD_GOLDEN=1 swift test`, then
/// read the diff.
///
/// ```swift
/// let golden = GoldenFiles(directory: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden"))
/// try golden.expect(output, matches: "dump.txt")
/// ```
public struct GoldenFiles: Sendable {
    /// The directory of the golden files.
    public let directory: URL

    /// The golden files in `directory`.
    public init(directory: URL) { self.directory = directory }

    /// Whether this run records golden files instead of comparing (`STRATA_RECORD_GOLDEN=1`).
    public static var isRecording: Bool {
        ProcessInfo.processInfo.environment["STRATA_RECORD_GOLDEN"] == "1"
    }

    /// Expects `actual` to equal the golden file `name`, byte for byte; records it first when
    /// recording. A difference is reported with the first line that differs.
    public func expect(_ actual: String, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let expected = try golden(Data(actual.utf8), name, sourceLocation: sourceLocation) else { return }
        let expectedText = String(decoding: expected, as: UTF8.self)
        guard actual != expectedText else { return }
        let actualLines = actual.components(separatedBy: "\n")
        let expectedLines = expectedText.components(separatedBy: "\n")
        let line = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(actualLines.count, expectedLines.count)
        Issue.record("""
            \(name) differs from the golden file at line \(line + 1):
              expected: \(line < expectedLines.count ? expectedLines[line] : "<end of file>")
              actual:   \(line < actualLines.count ? actualLines[line] : "<end of file>")
            If the change is intended, re-record with STRATA_RECORD_GOLDEN=1 and review the diff.
            """, sourceLocation: sourceLocation)
    }

    /// Expects `actual` to equal the golden file `name`, byte for byte; records it first when
    /// recording.
    public func expect(_ actual: Data, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let expected = try golden(actual, name, sourceLocation: sourceLocation) else { return }
        #expect(
            expected == actual,
            "\(name) differs from the golden file (\(actual.count) bytes, expected \(expected.count)); if the change is intended, re-record with STRATA_RECORD_GOLDEN=1 and review the diff",
            sourceLocation: sourceLocation)
    }

    /// The golden file's bytes, after recording `actual` when recording; nil (with an issue)
    /// when there is no golden file.
    private func golden(_ actual: Data, _ name: String, sourceLocation: SourceLocation) throws -> Data? {
        let url = directory.appendingPathComponent(name)
        if Self.isRecording {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try actual.write(to: url)
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("no golden file \(name); record it with STRATA_RECORD_GOLDEN=1", sourceLocation: sourceLocation)
            return nil
        }
        return data
    }
}
