import Foundation
import Strata
import StrataSQLite
import StrataTestKit
import Testing

/// The SQLite factory names the files a store keeps beside its own, and removes them with it —
/// but not the lock file other processes may hold.
@Suite struct DestroyStoreTests {
    @Test func destroyingAStoreRemovesItsLogsAndKeepsTheLockFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.file("store.sqlite")
        let factory = SQLiteStoreFactory()
        #expect(factory.companionFileSuffixes == ["-wal", "-shm", "-journal"])
        for suffix in ["", "-wal", "-shm", "-journal", ".lock"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: url.path + suffix))
        }
        try factory.destroyStore(at: url)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(left == ["store.sqlite.lock"])
        // Nothing there is no error.
        try factory.destroyStore(at: url)
    }
}
