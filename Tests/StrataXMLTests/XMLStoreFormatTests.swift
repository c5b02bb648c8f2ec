import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// How the XML store type is recognised and registered.
@Suite struct XMLStoreFormatTests {
    @Test func recognizesXMLHeaders() {
        let format = XMLStoreFormat()
        #expect(format.type == .xml)
        #expect(format.fileExtensions == ["xml"])
        #expect(format.recognizes(header: Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<database>".utf8)))
        #expect(format.recognizes(header: Data("<database>\n  <databaseInfo>".utf8)))
        #expect(format.recognizes(header: Data([0xEF, 0xBB, 0xBF]) + Data(" \n\t<?xml version=\"1.0\"?>".utf8)))
        #expect(!format.recognizes(header: Data("bplist00".utf8)))
        #expect(!format.recognizes(header: Data("SQLite format 3\u{0}".utf8)))
        #expect(!format.recognizes(header: Data("{\"objects\": {}}".utf8)))
        #expect(!format.recognizes(header: Data()))
    }

    /// A registry finds the type of an XML store from its first bytes, whatever its name, and
    /// reads its metadata without opening a stack.
    @Test func registryFindsXMLStoresByContent() throws {
        let schema = try exampleSchema("TodoList")
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.data")
            try createEmptyStore(at: url, schema: schema, identifier: fixedStoreIdentifier)
            let registry = StoreTypeRegistry([XMLStoreFactory()])
            #expect(try registry.type(of: url) == .xml)
            #expect(try registry.type(of: directory.appendingPathComponent("new.xml")) == .xml)
            let metadata = try PersistentStoreCoordinator.metadataForStore(at: url, storeTypes: registry)
            #expect(metadata.storeIdentifier == fixedStoreIdentifier)
            #expect(metadata.modelVersionHash == schema.versionHash)
        }
    }

    /// A store written with one model is refused by a coordinator with another, before any
    /// object is read.
    @Test func anotherModelIsRefused() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("todos.xml")
            try createEmptyStore(at: url, schema: try exampleSchema("TodoList"), identifier: fixedStoreIdentifier)
            let coordinator = xmlCoordinator(try valuesSchema())
            let error = strataError { try coordinator.addStore(StoreDescription(type: .xml, url: url)) }
            #expect(error?.code == .incompatibleModel)
        }
    }
}
