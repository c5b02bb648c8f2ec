import Foundation
import Strata
@testable import StrataCoreData
import Testing

@Suite("Core Data XML parser")
struct CoreDataXMLParserTests {
    private func readError(_ text: String) throws -> StrataError? {
        let url = try CoreDataXMLSamples.file(text)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        do {
            _ = try CoreDataXMLParser.read(path: url.path)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - databaseInfo

    @Test func readsDatabaseInfoOfAFixture() throws {
        let info = try CoreDataXMLStoreFactory.info(at: CoreDataFixtures.xmlStore("objective-audio__CoreDataMigrationSample__Model1-2.xcmapping.xml"))
        #expect(info.formatVersion == 134481920)
        #expect(info.storeUUID == "4B6B6CD3-CB10-47A2-932E-A394526E9ECB")
        #expect(info.nextObjectID == 111)
        #expect(info.entityNames == ["XDDevAttributeMapping", "XDDevEntityMapping", "XDDevMappingModel", "XDDevPropertyMapping", "XDDevRelationshipMapping"])
        #expect(info.metadata["NSPersistenceFrameworkVersion"] == .integer(641))
        #expect(info.metadata["NSStoreModelVersionHashesVersion"] == .integer(3))
        #expect(info.metadata["NSStoreModelVersionIdentifiers"] == .array([.string("")]))
        guard case .dictionary(let hashes)? = info.metadata["NSStoreModelVersionHashes"] else {
            Issue.record("no NSStoreModelVersionHashes")
            return
        }
        #expect(hashes["XDDevMappingModel"] == .data(Data(base64Encoded: "EqtMzvRnVZWkXwBHu4VeVGy8UyoOe+bi67KC79kphlQ=")!))
        #expect(info.customMetadata["NSStoreModelVersionHashes"]?.hasPrefix("{\"XDDevAttributeMapping\":\"0plcXXRN7XHKl5CcF+fwriFmUpON3ZtcI/AfK748aWc=\",") == true)
        #expect(info.customMetadata["NSPersistenceFrameworkVersion"] == "641")
        #expect(info.customMetadata["NSStoreModelVersionIdentifiers"] == "[\"\"]")
    }

    @Test func readsEveryPropertyListType() throws {
        let url = try CoreDataXMLSamples.file(CoreDataXMLSamples.company)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let info = try CoreDataXMLStoreFactory.info(at: url)
        #expect(info.customMetadata == [
            "NSPersistenceFrameworkVersion": "1244",
            "NSStoreModelVersionHashes": "{\"Department\":\"AAEC\",\"Manager\":\"AwQF\",\"Person\":\"BgcI\",\"Project\":\"CQoL\"}",
            "NSStoreModelVersionIdentifiers": "[\"2\"]",
            "checked": "true",
            "createdAt": "2024-05-01T10:00:00Z",
            "ratio": "0.5",
        ])
    }

    @Test func aFileWithoutDatabaseInfoReads() throws {
        let url = try CoreDataXMLSamples.file("""
            <?xml version="1.0"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
            <database><object type="TAG" id="t1"><attribute name="name" type="string">a</attribute></object></database>
            """)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let document = try CoreDataXMLParser.read(path: url.path)
        #expect(document.hasDatabaseInfo == false)
        #expect(document.objects.map(\.id) == ["t1"])
        // The same UUID at every read, made from the objects.
        #expect(document.storeIdentifier == (try CoreDataXMLParser.read(path: url.path)).storeIdentifier)
        #expect(UUID(uuidString: document.storeIdentifier) != nil)
    }

    // MARK: - Document types and entities

    @Test func billionLaughsIsRefusedBeforeItsSubsetIsRead() throws {
        let error = try readError("""
            <?xml version="1.0"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd" [
              <!ENTITY lol "lol">
              <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
              <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
              <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
              <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
              <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
              <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
              <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
              <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
            ]>
            <database><object type="TAG" id="z1"><attribute name="name" type="string">&lol9;</attribute></object></database>
            """)
        #expect(error?.code == .corruptStore)
        #expect(error?.message == "the document type declaration has an internal subset ([ … ]); Core Data XML stores have none, and it is refused because its entity declarations could expand without bound or read other files")
        #expect(error?.location?.line == 2)
    }

    @Test func externalEntityIsNeverRead() throws {
        let error = try readError("""
            <?xml version="1.0"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd" [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
            <database><object type="TAG" id="z1"><attribute name="name" type="string">&secret;</attribute></object></database>
            """)
        #expect(error?.code == .corruptStore)
        #expect(error?.message.hasPrefix("the document type declaration has an internal subset") == true)
        #expect(error?.description.contains("root:") == false)
    }

    @Test func anotherDocumentTypeIsRefused() throws {
        let passwd = try CoreDataXMLSamples.file("<!ENTITY secret SYSTEM \"file:///etc/passwd\">", named: "evil.dtd")
        defer { try? FileManager.default.removeItem(at: passwd.deletingLastPathComponent()) }
        for declaration in [
            "<!DOCTYPE database SYSTEM \"\(passwd.absoluteString)\">",
            "<!DOCTYPE database PUBLIC \"-//Apple//DTD CoreData//EN\" \"file:///System/Library/DTDs/CoreData.dtd\">",
            "<!DOCTYPE store SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">",
        ] {
            let error = try readError("<?xml version=\"1.0\"?>\n\(declaration)\n<database>&secret;</database>\n")
            #expect(error?.code == .corruptStore)
            #expect(error?.message.hasPrefix("the file declares the document type <!DOCTYPE ") == true, "\(declaration)")
            #expect(error?.description.contains("root:") == false)
        }
    }

    /// With Core Data's DOCTYPE (an external subset, never loaded) libxml2 takes an undeclared
    /// entity for one the DTD might declare and would drop it silently: it is refused instead.
    @Test func anUndeclaredEntityIsRefused() throws {
        let error = try readError("""
            <?xml version="1.0" standalone="no"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
            <database><object type="TAG" id="z1"><attribute name="name" type="string">a&secret;b</attribute></object></database>
            """)
        #expect(error?.code == .corruptStore)
        // libxml2 2.9 reports it as an error itself; the reference callback refuses it otherwise.
        #expect(error?.message == "malformed XML: Entity 'secret' not defined" || error?.message.hasPrefix("the file refers to the entity &secret;") == true)
    }

    @Test func theDocumentTypeIsAcceptedWithoutLoadingIt() throws {
        let url = try CoreDataXMLSamples.file(CoreDataXMLSamples.company)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let document = try CoreDataXMLParser.read(path: url.path)
        #expect(document.objects.map(\.id) == ["z101", "z102", "z103", "z104", "z105", "z106"])
        #expect(document.objects[0].attributes.map { String(decoding: $0.text, as: UTF8.self) } == ["R&D"])
        #expect(document.objects[0].relationships.map(\.idrefs) == [["z105", "z103", "z104"]])
    }

    // MARK: - Malformed files

    @Test(arguments: [
        ("<database><object id=\"z1\"></object></database>", "<object> has no type=\"…\""),
        ("<database><object type=\"A\" id=\"z1\"><attribute type=\"string\">x</attribute></object></database>", "<attribute> has no name=\"…\""),
        ("<database><object type=\"A\" id=\"z1\"><relationship name=\"r\" type=\"1/1\"></relationship></object></database>", "<relationship> has no destination=\"…\""),
        ("<database><thing/></database>", "unknown element <thing> in <database>; expected <databaseInfo>, <object>"),
        ("<store/>", "the root element is <store>, expected <database>: this is not a Core Data XML store"),
        ("<database><databaseInfo><version>x</version></databaseInfo></database>", "<version> holds \"x\", which is not a whole number"),
        ("<database><databaseInfo/><databaseInfo/></database>", "<database> holds a second <databaseInfo>"),
        ("<database><object type=\"A\" id=\"z1\">text</object></database>", "unexpected text \"text\" in <object>, which holds elements only"),
    ])
    func malformedFilesAreRefused(_ body: String, _ message: String) throws {
        let error = try readError("<?xml version=\"1.0\"?>\n\(body)\n")
        #expect(error?.code == .corruptStore)
        #expect(error?.message == message)
        #expect(error?.location?.line == 2)
    }

    @Test func recognisesCoreDataFilesByTheirHeader() throws {
        let factory = CoreDataXMLStoreFactory()
        #expect(factory.recognizes(header: Data(CoreDataXMLSamples.company.utf8.prefix(256))))
        #expect(factory.recognizes(header: Data("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">".utf8)))
        #expect(!factory.recognizes(header: Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<database>\n".utf8)))
        #expect(!factory.recognizes(header: Data("<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///tmp/CoreData.dtd\">".utf8)))
    }
}
