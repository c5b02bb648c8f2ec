import Foundation

/// The Core Data files in `../shared/fixtures/coredata` (beside the checkout), read in place.
enum CoreDataFixtures {
    static let root: URL = {
        var directory = URL(fileURLWithPath: #filePath)
        // Tests/StrataCoreDataTests/FixturePaths.swift → the checkout, then its parent.
        for _ in 0..<4 { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("shared/fixtures/coredata")
    }()

    static func model(_ name: String) -> URL { root.appendingPathComponent("models/\(name)") }
    static func store(_ name: String) -> URL { root.appendingPathComponent("stores/\(name)") }
    static func xmlStore(_ name: String) -> URL { root.appendingPathComponent("xmlstores/\(name)") }
}
