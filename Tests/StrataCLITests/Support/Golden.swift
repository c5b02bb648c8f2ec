import Foundation
import StrataTestKit

/// Expected CLI output committed under `Tests/StrataCLITests/Golden/` and compared exactly, so
/// that any change to an output format shows up in review. Re-record every golden file with
/// `STRATA_RECORD_GOLDEN=1 swift test --filter StrataCLITests`, then read the diff.
let golden = GoldenFiles(directory: URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent() // Support
    .deletingLastPathComponent() // StrataCLITests
    .appendingPathComponent("Golden"))
