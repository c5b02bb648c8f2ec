import Foundation
import Strata
import StrataTestKit
import StrataXML
import Testing

/// A small valid TodoList store as text: one Location, one Tag, one Todo.
func todoStoreText() throws -> String {
    let schema = try exampleSchema("TodoList")
    let todo = objectID("Todo", 1)
    let tag = objectID("Tag", 1)
    let place = objectID("Location", 1)
    let records = [
        StoreRecord(objectID: todo, attributes: [
            "title": .string("Buy milk"), "createdAt": .date(Date(timeIntervalSince1970: 1_714_557_600)),
            "priority": .integer(2), "done": .bool(false),
        ], toOne: ["location": place], toMany: ["tags": [tag]]),
        StoreRecord(objectID: tag, attributes: ["name": .string("home")], toMany: ["todos": [todo]]),
        StoreRecord(objectID: place, attributes: ["name": .string("Shop")], toMany: ["todos": [todo]]),
    ]
    return try withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent("todos.xml")
        try XMLStoreFormat().write(contents(schema, records, keySequences: ["Todo": 1, "Tag": 1, "Location": 1]), to: url)
        return try String(contentsOf: url, encoding: .utf8)
    }
}

/// Where libxml2 is when it reports a start tag, which is where errors about an element point:
/// the line holding `marker`, and the column of the `>` that closes the tag containing it.
func startTagEnd(of marker: String, in text: String) -> Strata.SourceLocation {
    let lines = text.components(separatedBy: "\n")
    let index = lines.firstIndex { $0.contains(marker) }!
    let line = lines[index]
    let markerStart = line.range(of: marker)!.lowerBound
    let close = line[markerStart...].firstIndex(of: ">")!
    return Strata.SourceLocation(line: index + 1, column: line.distance(from: line.startIndex, to: close) + 1)
}

/// Reading damaged, hostile and wrong files: every one is refused with an error that says what
/// and where, and none crashes.
@Suite struct XMLStoreReaderTests {
    func readError(_ text: String) throws -> StrataError? {
        try withTemporaryDirectory { directory in
            let url = try writeFile(text, in: directory)
            return strataError { _ = try XMLStoreFormat().read(from: url) }
        }
    }

    // MARK: - Hostile input

    @Test func billionLaughsIsRefusedBeforeAnyEntityIsDeclared() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE database [
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
            <database><databaseInfo><version>&lol9;</version></databaseInfo></database>
            """
        let error = try readError(text)
        #expect(error?.code == .corruptStore)
        #expect(error?.message == "the file has a document type declaration (<!DOCTYPE …>); Strata XML stores have none, and they are refused because their entity declarations could expand without bound or read other files")
        #expect(error?.location == Strata.SourceLocation(line: 2, column: 20))
    }

    @Test func externalEntityIsNeverRead() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE database [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>
            <database><databaseInfo><UUID>&secret;</UUID></databaseInfo></database>
            """
        let error = try readError(text)
        #expect(error?.code == .corruptStore)
        #expect(error?.message.hasPrefix("the file has a document type declaration") == true)
        #expect(error?.description.contains("root:") == false)
        #expect(error?.location?.line == 2)
    }

    /// Core Data's own files name their DTD; Strata refuses any document type declaration.
    @Test func documentTypeWithoutEntitiesIsRefused() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
            <database/>
            """
        let error = try readError(text)
        #expect(error?.message.hasPrefix("the file has a document type declaration") == true)
        #expect(error?.location == Strata.SourceLocation(line: 2, column: 69))
    }

    /// A DTD or parameter entity on the network is never fetched: a local listener sees no
    /// connection.
    @Test func networkDeclarationsAreNeverFetched() throws {
        let listener = try LocalListener()
        for text in [
            "<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"http://127.0.0.1:\(listener.port)/strata.dtd\">\n<database/>\n",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE database [ <!ENTITY % remote SYSTEM \"http://127.0.0.1:\(listener.port)/x\"> %remote; ]>\n<database/>\n",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE database [ <!ENTITY remote SYSTEM \"http://127.0.0.1:\(listener.port)/x\"> ]>\n<database>&remote;</database>\n",
        ] {
            let error = try readError(text)
            #expect(error?.message.hasPrefix("the file has a document type declaration") == true)
        }
        #expect(listener.acceptedConnection() == false)
    }

    // MARK: - Malformed XML

    @Test func malformedXMLReportsLineAndColumn() throws {
        let error = try readError("<database>\n  <databaseInfo>\n  </database>\n")
        #expect(error?.code == .corruptStore)
        #expect(error?.message == "malformed XML: Opening and ending tag mismatch: databaseInfo line 2 and database")
        #expect(error?.location == Strata.SourceLocation(line: 3, column: 14))
        #expect(error?.description.hasSuffix("store.xml:3:14: malformed XML: Opening and ending tag mismatch: databaseInfo line 2 and database") == true)
        // libxml2's own error underneath: XML_ERR_TAG_NAME_MISMATCH.
        #expect(error?.cause?.domain == .libxml2)
        #expect(error?.cause?.code == 76)
        #expect(error?.cause?.message == "Opening and ending tag mismatch: databaseInfo line 2 and database")
    }

    @Test func undefinedEntityIsAnError() throws {
        let error = try readError("<database>\n  &foo;\n</database>\n")
        #expect(error?.message == "malformed XML: Entity 'foo' not defined")
        #expect(error?.location == Strata.SourceLocation(line: 2, column: 8))
    }

    @Test func emptyAndForeignFilesAreRefused() throws {
        #expect(try readError("")?.message == "malformed XML: Document is empty")
        #expect(try readError("bplist00\u{0}\u{1}")?.message == "malformed XML: Start tag expected, '<' not found")
        let plist = try readError("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n")
        #expect(plist?.message == "the root element is <plist>, expected <database>: this is not a Strata XML store")
        #expect(plist?.location == Strata.SourceLocation(line: 2, column: 21))
        #expect(try readError("<database>\n</database>\n")?.message == "the file has no <databaseInfo>")
    }

    @Test func unreadableFilesAreStoreIOErrors() throws {
        try withTemporaryDirectory { directory in
            let missing = strataError { _ = try XMLStoreFormat().read(from: directory.appendingPathComponent("missing.xml")) }
            #expect(missing?.code == .storeIO)
            #expect(missing?.message == "cannot open '\(directory.path)/missing.xml': no such file")
            let folder = strataError { _ = try XMLStoreFormat().read(from: directory) }
            #expect(folder?.code == .storeIO)
            #expect(folder?.message == "cannot read '\(directory.path)': Is a directory")
        }
    }

    // MARK: - The layout

    struct Damage: CustomTestStringConvertible, Sendable {
        var name: String
        /// Replaced once in a valid file.
        var original: String
        var replacement: String
        /// The element whose start tag the error points at (a marker in the damaged file).
        var at: String
        var message: String
        var testDescription: String { name }
    }

    static let damages: [Damage] = [
        Damage(name: "unknown element", original: "<attribute name=\"done\"", replacement: "<attribut name=\"done\"",
               at: "<attribut ", message: "unknown element <attribut> in <object>; did you mean 'attribute'?; expected <attribute>, <relationship>"),
        Damage(name: "unknown attribute", original: "name=\"title\"", replacement: "name=\"titel\"",
               at: "name=\"titel\"", message: "<object type=\"Todo\" id=\"p1\"> has an attribute 'titel' that entity 'Todo' does not have; did you mean 'title'?"),
        Damage(name: "unknown XML attribute", original: "<object type=\"Tag\" id=\"p1\"", replacement: "<object type=\"Tag\" id=\"p1\" kind=\"x\"",
               at: "kind=\"x\"", message: "<object> has an unknown attribute 'kind'; it takes type, id"),
        Damage(name: "wrong attribute type", original: "name=\"priority\" type=\"int16\"", replacement: "name=\"priority\" type=\"int32\"",
               at: "name=\"priority\"", message: "<attribute name=\"priority\"> of <object type=\"Todo\" id=\"p1\"> has type=\"int32\", but the model says int16"),
        Damage(name: "integer out of range", original: "type=\"int16\">2<", replacement: "type=\"int16\">40000<",
               at: "name=\"priority\"", message: "<attribute name=\"priority\" type=\"int16\"> of <object type=\"Todo\" id=\"p1\">: expected a whole number from -32768 to 32767, found \"40000\""),
        Damage(name: "bad bool", original: ">false<", replacement: ">no<",
               at: "name=\"done\"", message: "<attribute name=\"done\" type=\"bool\"> of <object type=\"Todo\" id=\"p1\">: expected true or false, found \"no\""),
        Damage(name: "bad date", original: "2024-05-01T10:00:00.000Z", replacement: "2024-02-30T10:00:00.000Z",
               at: "name=\"createdAt\"", message: "<attribute name=\"createdAt\" type=\"date\"> of <object type=\"Todo\" id=\"p1\">: expected an ISO 8601 date like 2024-05-01T10:00:00.000Z (or seconds since 2001-01-01), found \"2024-02-30T10:00:00.000Z\""),
        Damage(name: "unknown entity", original: "<object type=\"Tag\"", replacement: "<object type=\"Tags\"",
               at: "type=\"Tags\"", message: "<object type=\"Tags\">: the store's model has no entity 'Tags'; did you mean 'Tag'?"),
        Damage(name: "bad object ID", original: "<object type=\"Tag\" id=\"p1\"", replacement: "<object type=\"Tag\" id=\"z102\"",
               at: "id=\"z102\"", message: "<object type=\"Tag\" id=\"z102\">: an object ID is p and a primary key, like p12"),
        Damage(name: "duplicate ID", original: "<object type=\"Tag\" id=\"p1\">", replacement: "<object type=\"Tag\" id=\"p1\"></object>\n  <object type=\"Tag\" id=\"p1\">",
               at: "id=\"p1\"></object>\n  <object type=\"Tag\" id=\"p1\">", message: "<object type=\"Tag\" id=\"p1\">: the 'Tag' hierarchy already has an object with that ID (<object type=\"Tag\"> at line 99)"),
        Damage(name: "dangling idref", original: "destination=\"Tag\" idrefs=\"p1\"", replacement: "destination=\"Tag\" idrefs=\"p1 p99\"",
               at: "idrefs=\"p1 p99\"", message: "<relationship name=\"tags\"> of <object type=\"Todo\" id=\"p1\"> refers to p99, but there is no Tag with that ID in the file"),
        Damage(name: "repeated idref", original: "destination=\"Tag\" idrefs=\"p1\"", replacement: "destination=\"Tag\" idrefs=\"p1 p1\"",
               at: "idrefs=\"p1 p1\"", message: "<relationship name=\"tags\"> of <object type=\"Todo\" id=\"p1\"> names p1 twice"),
        Damage(name: "repeated idref among many", original: "destination=\"Tag\" idrefs=\"p1\"",
               replacement: "destination=\"Tag\" idrefs=\"\(Array(repeating: "p1", count: 20).joined(separator: " "))\"",
               at: "idrefs=\"p1 p1", message: "<relationship name=\"tags\"> of <object type=\"Todo\" id=\"p1\"> names p1 twice"),
        Damage(name: "bad idref token", original: "destination=\"Tag\" idrefs=\"p1\"", replacement: "destination=\"Tag\" idrefs=\"z1\"",
               at: "idrefs=\"z1\"", message: "<relationship name=\"tags\"> of <object type=\"Todo\" id=\"p1\"> has idrefs token \"z1\"; a reference is p and a primary key (p12), or Entity.p12 for an object no longer in the store"),
        Damage(name: "missing object that exists", original: "destination=\"Tag\" idrefs=\"p1\"", replacement: "destination=\"Tag\" idrefs=\"Tag.p1\"",
               at: "idrefs=\"Tag.p1\"", message: "<relationship name=\"tags\"> of <object type=\"Todo\" id=\"p1\"> refers to Tag.p1 as an object no longer in the store, but the file has an object with ID p1: write p1"),
        Damage(name: "missing object of another entity", original: "destination=\"Tag\" idrefs=\"p1\"", replacement: "destination=\"Tag\" idrefs=\"Todo.p5\"",
               at: "idrefs=\"Todo.p5\"", message: "<relationship name=\"tags\"> of <object type=\"Todo\" id=\"p1\"> refers to Todo.p5, but a Todo cannot be a member (the destination is Tag)"),
        Damage(name: "to-one with two members", original: "destination=\"Location\" idrefs=\"p1\"", replacement: "destination=\"Location\" idrefs=\"p1 p2\"",
               at: "destination=\"Location\"", message: "<relationship name=\"location\"> of <object type=\"Todo\" id=\"p1\"> is to-one but names 2 objects"),
        Damage(name: "wrong relationship type", original: "type=\"0/1\" destination=\"Location\"", replacement: "type=\"0/0\" destination=\"Location\"",
               at: "destination=\"Location\"", message: "<relationship name=\"location\"> of <object type=\"Todo\" id=\"p1\"> has type=\"0/0\", but the model gives it \"0/1\" (min/max count)"),
        Damage(name: "wrong destination", original: "type=\"0/1\" destination=\"Location\"", replacement: "type=\"0/1\" destination=\"Place\"",
               at: "destination=\"Place\"", message: "<relationship name=\"location\"> of <object type=\"Todo\" id=\"p1\"> has destination=\"Place\", but the model says Location"),
        Damage(name: "text in an object", original: "<object type=\"Tag\" id=\"p1\">", replacement: "<object type=\"Tag\" id=\"p1\">stray",
               at: "stray", message: "unexpected text \"stray\\n    \" in <object>, which holds elements only"),
        Damage(name: "unknown encoding", original: "name=\"title\" type=\"string\"", replacement: "name=\"title\" type=\"string\" encoding=\"rot13\"",
               at: "encoding=\"rot13\"", message: "<attribute> has encoding=\"rot13\"; the only encoding is \"base64\""),
        Damage(name: "base64 on a number", original: "name=\"priority\" type=\"int16\"", replacement: "name=\"priority\" type=\"int16\" encoding=\"base64\"",
               at: "encoding=\"base64\"", message: "<attribute name=\"priority\"> of <object type=\"Todo\" id=\"p1\"> has encoding=\"base64\", which only string attributes take"),
        Damage(name: "bad base64 text", original: ">Buy milk<", replacement: " encoding=\"base64\">Buy milk<",
               at: "encoding=\"base64\"", message: "<attribute name=\"title\" type=\"string\"> of <object type=\"Todo\" id=\"p1\">: expected base64-encoded data, found \"Buy milk\" which is not valid base64"),
        Damage(name: "attribute twice", original: "<attribute name=\"done\" type=\"bool\">false</attribute>", replacement: "<attribute name=\"done\" type=\"bool\">false</attribute><attribute name=\"done\" type=\"bool\">true</attribute>",
               at: "<attribute name=\"done\" type=\"bool\">true", message: "<object type=\"Todo\" id=\"p1\"> has attribute 'done' twice"),
        Damage(name: "missing ID", original: "<object type=\"Tag\" id=\"p1\">", replacement: "<object type=\"Tag\">",
               at: "<object type=\"Tag\">", message: "<object> has no id attribute"),
        Damage(name: "namespaced element", original: "<attribute name=\"done\"", replacement: "<x:attribute xmlns:x=\"urn:x\" name=\"done\"",
               at: "<x:attribute", message: "element <x:attribute> is in namespace 'urn:x'; the elements of Strata XML stores are in no namespace"),
        Damage(name: "newer layout", original: "<version>1</version>", replacement: "<version>2</version>",
               at: "<version>", message: "the file is in version 2 of the Strata XML layout; this Strata reads version 1: open it with a newer Strata"),
        Damage(name: "second UUID", original: "</UUID>", replacement: "</UUID><UUID>x</UUID>",
               at: "<UUID>x", message: "<databaseInfo> holds a second <UUID>"),
        Damage(name: "edited model", original: "<modelVersionHash>", replacement: "<modelVersionHash>0",
               at: "<databaseInfo>", message: "the model in <schema> has version hash HASH, but <modelVersionHash> says 0HASH: the file was edited by hand"),
    ]

    @Test(arguments: damages)
    func damagedLayout(_ damage: Damage) throws {
        let valid = try todoStoreText()
        #expect(valid.components(separatedBy: damage.original).count == 2, "the original text occurs once")
        let damaged = valid.replacingOccurrences(of: damage.original, with: damage.replacement)
        let error = try readError(damaged)
        #expect(error?.code == .corruptStore)
        var message = damage.message
        if damage.name == "duplicate ID" {
            let firstLine = damaged.components(separatedBy: "\n").firstIndex { $0.contains("<object type=\"Tag\" id=\"p1\">") }! + 1
            message = message.replacingOccurrences(of: "line 99", with: "line \(firstLine)")
        }
        message = message.replacingOccurrences(of: "HASH", with: try exampleSchema("TodoList").versionHash)
        #expect(error?.message == message)
        if damage.name == "duplicate ID" {
            // The second of the two objects, a line that ends with its start tag.
            let lines = damaged.components(separatedBy: "\n")
            let second = lines.lastIndex { $0.contains("<object type=\"Tag\" id=\"p1\">") }!
            #expect(error?.location == Strata.SourceLocation(line: second + 1, column: lines[second].count))
        } else if damage.name == "text in an object" {
            // Where the text ends: the start of the next line's element.
            let line = damaged.components(separatedBy: "\n").firstIndex { $0.contains("stray") }! + 2
            #expect(error?.location == Strata.SourceLocation(line: line, column: 5))
        } else {
            #expect(error?.location == startTagEnd(of: damage.at, in: damaged))
        }
    }

    @Test func readMetadataStopsAfterDatabaseInfo() throws {
        let damaged = try todoStoreText().replacingOccurrences(of: "</databaseInfo>", with: "</databaseInfo>\n  <object type=\"Nope\" id=\"p1\"><<<")
        try withTemporaryDirectory { directory in
            let url = try writeFile(damaged, in: directory)
            let metadata = try XMLStoreFormat().readMetadata(from: url)
            #expect(metadata.storeIdentifier == fixedStoreIdentifier)
            #expect(metadata.modelName == "TodoList")
            #expect(metadata.storeType == .xml)
            #expect(metadata.schemaJSON == (try exampleSchema("TodoList")).jsonString)
            let error = strataError { _ = try XMLStoreFormat().read(from: url) }
            #expect(error?.message == "<object type=\"Nope\">: the store's model has no entity 'Nope'")
        }
    }

    // MARK: - Truncated and mutated files

    /// Every prefix of a valid file is refused (until the root element is complete).
    @Test func truncatedFilesAreRefused() throws {
        let valid = Array(try todoStoreText().utf8)
        let end = valid.count - 1 // the final newline
        try withTemporaryDirectory { directory in
            for length in stride(from: 0, to: end, by: 3) {
                let url = directory.appendingPathComponent("cut-\(length).xml")
                try Data(valid[..<length]).write(to: url)
                let error = strataError { _ = try XMLStoreFormat().read(from: url) }
                #expect(error?.code == .corruptStore, "cut at \(length)")
                try FileManager.default.removeItem(at: url)
            }
            let url = directory.appendingPathComponent("whole.xml")
            try Data(valid[..<end]).write(to: url)
            #expect(try XMLStoreFormat().read(from: url).recordCount == 3)
        }
    }

    /// Seeded random damage: each file is refused with a `StrataError` or loads; one that
    /// loads writes and reads back the same records. None crashes.
    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func mutatedFilesAreRefusedOrLoad(seed: UInt64) throws {
        let valid = Array(try todoStoreText().utf8)
        var generator = SeededGenerator(seed: seed)
        let interesting: [UInt8] = Array("<>&\"'/= p0123456789.-#;xX".utf8) + [0, 0x01, 0x0D, 0x80, 0xC3, 0xFF]
        var refused = 0
        var loaded = 0
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("mutated.xml")
            let again = directory.appendingPathComponent("again.xml")
            for _ in 0..<250 {
                var bytes = valid
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let position = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: bytes[position] = interesting.randomElement(using: &generator)!
                    case 1: bytes.insert(interesting.randomElement(using: &generator)!, at: position)
                    case 2: bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...20, using: &generator)))
                    default:
                        let end = min(bytes.count, position + Int.random(in: 1...40, using: &generator))
                        bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0..<bytes.count, using: &generator))
                    }
                    if bytes.isEmpty { bytes = [UInt8(ascii: "<")] }
                }
                try Data(bytes).write(to: url)
                do {
                    let contents = try XMLStoreFormat().read(from: url)
                    loaded += 1
                    try XMLStoreFormat().write(contents, to: again)
                    let back = try XMLStoreFormat().read(from: again)
                    #expect(back.records == contents.records)
                    #expect(back.metadata == contents.metadata)
                } catch let error as StrataError {
                    #expect(error.code == .corruptStore || error.code == .invalidData, "\(error)")
                    refused += 1
                }
            }
        }
        #expect(refused > 100)
        #expect(loaded > 0)
    }
}
