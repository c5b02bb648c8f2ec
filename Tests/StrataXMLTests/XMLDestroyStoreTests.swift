import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// An XML store keeps no file beside its own but the writers' lock file, which destroying the
/// store leaves (another process may hold it).
@Suite struct XMLDestroyStoreTests {
    @Test func destroyingAStoreRemovesTheFileOnly() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store.xml")
            let factory = XMLStoreFactory()
            #expect(factory.companionFileSuffixes.isEmpty)
            try Data("x".utf8).write(to: url)
            try Data("x".utf8).write(to: directory.appendingPathComponent("store.xml.lock"))
            try factory.destroyStore(at: url)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store.xml.lock"])
        }
    }
}
