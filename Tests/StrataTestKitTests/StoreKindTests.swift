import Foundation
import Strata
import StrataTestKit
import Testing

@Suite struct StoreKindTests {
    /// The checks remove the directory of every store they make, with everything in it; a
    /// directory that cannot be one made for one store (a kind whose stores are files right in
    /// the temporary directory, say) is never removed.
    @Test func onlyAStoresOwnDirectoryIsRemoved() throws {
        let temporary = FileManager.default.temporaryDirectory
        #expect(StoreKind.isSharedDirectory(temporary))
        #expect(StoreKind.isSharedDirectory(temporary.appendingPathComponent(".", isDirectory: true)))
        #expect(StoreKind.isSharedDirectory(temporary.deletingLastPathComponent()))
        #expect(StoreKind.isSharedDirectory(URL(fileURLWithPath: "/")))
        #expect(StoreKind.isSharedDirectory(FileManager.default.homeDirectoryForCurrentUser))
        #expect(StoreKind.isSharedDirectory(URL(fileURLWithPath: FileManager.default.currentDirectoryPath)))
        #expect(StoreKind.isSharedDirectory(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()))

        let own = try TemporaryDirectory(prefix: "kind")
        defer { own.cleanup() }
        #expect(!StoreKind.isSharedDirectory(own.url))
        #expect(!StoreKind.isSharedDirectory(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build")))
        let store = own.file("store.bplist")
        try Data("store".utf8).write(to: store)
        try Data("log".utf8).write(to: own.file("store.bplist-wal"))
        StoreKind.removeStoreDirectory(of: store)
        #expect(!FileManager.default.fileExists(atPath: own.url.path))
        StoreKind.removeStoreDirectory(of: nil)
        StoreKind.removeStoreDirectory(of: URL(string: "postgres://localhost/strata"))
    }
}
