internal import CLibXML2
internal import Foundation
internal import Strata
internal import StrataXML

/// Reads a Core Data XML store into a ``CoreDataXMLDocument`` with libxml2's SAX2 parser.
///
/// Core Data's files start with `<!DOCTYPE database SYSTEM
/// "file:///System/Library/DTDs/CoreData.dtd">`. That declaration, exactly (name, no public
/// identifier, that system identifier, no internal subset), is accepted and never loaded:
/// the parser runs without `XML_PARSE_DTDLOAD`, `DTDATTR`, `DTDVALID` and `NOENT`, with
/// `XML_PARSE_NONET`, and the handler's `externalSubset` callback (the one that would load it)
/// does nothing. Any other document type declaration, and any internal subset (`[ … ]`, where
/// entity declarations live: billion laughs, external entities), stop the parse before it is
/// read; an entity declaration or a reference to an undeclared entity is refused as well.
///
/// Owns its parser context and frees it in `deinit`.
final class CoreDataXMLParser: SAXRefusing {
    private let path: String
    private let input: XMLFileInput
    private var parser: xmlParserCtxtPtr?
    private var failure: StrataError?

    private enum Element: Equatable {
        case database, databaseInfo, version, uuid, nextObjectID, metadata, object, attribute, relationship
        case plist, dict, array, key
        /// A property-list scalar: `string`, `integer`, `real`, `true`, `false`, `date`, `data`.
        case scalar(String)

        var holdsText: Bool {
            switch self {
            case .version, .uuid, .nextObjectID, .attribute, .key, .scalar: true
            default: false
            }
        }
    }

    private struct Frame {
        var element: Element
        var name: String
        var position: CoreDataXMLDocument.Position
        var seen: Set<String> = []
    }

    private var stack: [Frame] = []
    private var text: [UInt8] = []

    private var info = CoreDataXMLStoreInfo()
    private var hasDatabaseInfo = false
    private var objects: [CoreDataXMLDocument.Object] = []
    private var currentObject: CoreDataXMLDocument.Object?
    private var currentAttribute: (name: String, type: String)?

    private enum Container {
        case dictionary([String: CoreDataPropertyList], key: String?)
        case array([CoreDataPropertyList])
    }

    private var containers: [Container] = []
    private var plistValue: CoreDataPropertyList?

    private init(path: String, input: XMLFileInput) {
        _ = LibXML2.initialized
        self.path = path
        self.input = input
    }

    deinit {
        if let parser { xmlFreeParserCtxt(parser) }
    }

    /// Reads the file at `path`.
    /// - Throws: `corruptStore` naming the problem with its line and column; `storeIO` when the
    ///   file cannot be read.
    static func read(path: String) throws(StrataError) -> CoreDataXMLDocument {
        let input = try XMLFileInput(path: path)
        return try LibXML2.withoutErrorOutput { () throws(StrataError) in
            try CoreDataXMLParser(path: path, input: input).parse()
        }
    }

    private func parse() throws(StrataError) -> CoreDataXMLDocument {
        var handler = Self.handler()
        let context = Unmanaged.passUnretained(self).toOpaque()
        let inputContext = Unmanaged.passUnretained(input).toOpaque()
        guard let parser = xmlCreateIOParserCtxt(
            &handler, context, XMLFileInput.readCallback, XMLFileInput.closeCallback, inputContext, XML_CHAR_ENCODING_NONE)
        else {
            throw StrataError(.storeIO, "libxml2 could not create a parser for '\(path)'")
        }
        self.parser = parser
        // No NOENT (entities are not substituted), no DTDLOAD/DTDATTR/DTDVALID (no DTD is
        // loaded), NONET (no network); see xmlParserOption in parser.h.
        xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue))
        let result = xmlParseDocument(parser)
        if let inputFailure = input.failure { throw inputFailure }
        if let failure { throw failure }
        if result != 0 || parser.pointee.wellFormed == 0 {
            throw corrupt("malformed XML", at: position)
        }
        return CoreDataXMLDocument(path: path, info: info, hasDatabaseInfo: hasDatabaseInfo, objects: objects)
    }

    // MARK: - SAX events

    fileprivate func startElement(_ name: String, namespace: UnsafePointer<xmlChar>?, attributes: [String: String]) {
        guard failure == nil else { return }
        let here = position
        if let namespace {
            return fail("element <\(name)> is in namespace '\(String(cString: namespace))'; the elements of Core Data XML stores are in none", at: here)
        }
        guard let parent = stack.last else {
            guard name == "database" else {
                return fail("the root element is <\(name)>, expected <database>: this is not a Core Data XML store", at: here)
            }
            stack.append(Frame(element: .database, name: name, position: here))
            return
        }
        guard let element = child(named: name, of: parent) else { return }
        if parent.element == .plist {
            guard stack[stack.count - 1].seen.isEmpty else { return fail("<plist> holds a second value, <\(name)>", at: here) }
            stack[stack.count - 1].seen.insert(name)
        } else if !isRepeatable(element) {
            guard !stack[stack.count - 1].seen.contains(name) else {
                return fail("<\(parent.name)> holds a second <\(name)>", at: here)
            }
            stack[stack.count - 1].seen.insert(name)
        }
        stack.append(Frame(element: element, name: name, position: here))
        text.removeAll(keepingCapacity: true)
        switch element {
        case .databaseInfo:
            hasDatabaseInfo = true
        case .object:
            guard let type = required("type", of: name, in: attributes, at: here),
                  let id = required("id", of: name, in: attributes, at: here)
            else { return }
            currentObject = CoreDataXMLDocument.Object(type: type, id: id, position: here)
        case .attribute:
            guard let attributeName = required("name", of: name, in: attributes, at: here),
                  let type = required("type", of: name, in: attributes, at: here)
            else { return }
            currentAttribute = (attributeName, type)
        case .relationship:
            guard let relationshipName = required("name", of: name, in: attributes, at: here),
                  let type = required("type", of: name, in: attributes, at: here),
                  let destination = required("destination", of: name, in: attributes, at: here)
            else { return }
            let idrefs = (attributes["idrefs"] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
            currentObject?.relationships.append(CoreDataXMLDocument.Relationship(
                name: relationshipName, type: type, destination: destination, idrefs: idrefs, position: here))
        case .dict:
            containers.append(.dictionary([:], key: nil))
        case .array:
            containers.append(.array([]))
        default:
            break
        }
    }

    /// The element `name` may be inside `parent`; nil (after failing) when it may not.
    private func child(named name: String, of parent: Frame) -> Element? {
        let element: Element?
        let expected: [String]
        switch parent.element {
        case .database:
            element = name == "object" ? .object : name == "databaseInfo" ? .databaseInfo : nil
            expected = ["databaseInfo", "object"]
        case .object:
            element = name == "attribute" ? .attribute : name == "relationship" ? .relationship : nil
            expected = ["attribute", "relationship"]
        case .databaseInfo:
            element = ["version": .version, "UUID": .uuid, "nextObjectID": .nextObjectID, "metadata": .metadata][name]
            expected = ["UUID", "metadata", "nextObjectID", "version"]
        case .metadata:
            element = name == "plist" ? .plist : nil
            expected = ["plist"]
        case .dict where !hasPendingKey:
            element = name == "key" ? .key : nil
            expected = ["key"]
        case .plist, .array, .dict:
            element = Self.plistValues[name]
            expected = Self.plistValues.keys.sorted()
        case .relationship, .version, .uuid, .nextObjectID, .attribute, .key, .scalar:
            fail("unexpected element <\(name)> inside <\(parent.name)>, which holds \(parent.element == .relationship ? "nothing" : "text only")", at: position)
            return nil
        }
        guard let element else {
            fail("unknown element <\(name)> in <\(parent.name)>\(Suggestion.didYouMean(name, in: expected)); expected \(expected.map { "<\($0)>" }.joined(separator: ", "))", at: position)
            return nil
        }
        return element
    }

    /// Whether the innermost dictionary has read a key and waits for its value.
    private var hasPendingKey: Bool {
        if case .dictionary(_, let key)? = containers.last { return key != nil }
        return false
    }

    private static let plistValues: [String: Element] = [
        "dict": .dict, "array": .array, "string": .scalar("string"), "integer": .scalar("integer"), "real": .scalar("real"),
        "true": .scalar("true"), "false": .scalar("false"), "date": .scalar("date"), "data": .scalar("data"),
    ]

    private func isRepeatable(_ element: Element) -> Bool {
        switch element {
        case .object, .attribute, .relationship, .key, .dict, .array, .scalar: true
        default: false
        }
    }

    fileprivate func endElement() {
        guard failure == nil, let frame = stack.popLast() else { return }
        switch frame.element {
        case .version:
            guard let number = wholeNumber(frame) else { return }
            info.formatVersion = number
        case .nextObjectID:
            guard let number = wholeNumber(frame) else { return }
            info.nextObjectID = number
        case .uuid:
            info.storeUUID = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        case .attribute:
            if let (name, type) = currentAttribute {
                currentObject?.attributes.append(CoreDataXMLDocument.Attribute(name: name, type: type, text: text, position: frame.position))
            }
            currentAttribute = nil
        case .object:
            if let object = currentObject { objects.append(object) }
            currentObject = nil
        case .key:
            guard case .dictionary(let values, nil)? = containers.last else { return }
            let key = String(decoding: text, as: UTF8.self)
            guard values[key] == nil else { return fail("the metadata dictionary holds the key \(String(reflecting: key)) twice", at: frame.position) }
            containers[containers.count - 1] = .dictionary(values, key: key)
        case .scalar(let kind):
            guard let value = scalar(kind, frame) else { return }
            add(value, frame)
        case .dict:
            guard case .dictionary(let values, let key)? = containers.popLast() else { return }
            if let key { return fail("the metadata key \(String(reflecting: key)) has no value", at: frame.position) }
            add(.dictionary(values), frame)
        case .array:
            guard case .array(let values)? = containers.popLast() else { return }
            add(.array(values), frame)
        case .metadata:
            if let plistValue {
                guard case .dictionary(let values) = plistValue else {
                    return fail("the metadata property list is not a dictionary", at: frame.position)
                }
                info.metadata = values
            }
        default:
            break
        }
    }

    /// Puts a finished property-list value into its container, or makes it the plist's value.
    private func add(_ value: CoreDataPropertyList, _ frame: Frame) {
        guard let container = containers.popLast() else {
            plistValue = value
            return
        }
        switch container {
        case .dictionary(var values, let key?):
            values[key] = value
            containers.append(.dictionary(values, key: nil))
        case .dictionary(_, nil):
            fail("a value in the metadata dictionary has no <key>", at: frame.position)
        case .array(var values):
            values.append(value)
            containers.append(.array(values))
        }
    }

    private func scalar(_ kind: String, _ frame: Frame) -> CoreDataPropertyList? {
        let string = String(decoding: text, as: UTF8.self)
        switch kind {
        case "string": return .string(string)
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "integer":
            guard let number = wholeNumber(frame) else { return nil }
            return .integer(number)
        case "real":
            guard let number = text.withUnsafeBufferPointer({ XMLValueCoding.parseDouble($0) }) else {
                fail("<real> holds \(String(reflecting: string)), which is not a number", at: frame.position)
                return nil
            }
            return .real(number)
        case "date":
            guard let date = ISO8601DateFormatter().date(from: string.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                fail("<date> holds \(String(reflecting: string)), which is not an ISO 8601 date", at: frame.position)
                return nil
            }
            return .date(date)
        default:
            do throws(XMLValueError) {
                return .data(try text.withUnsafeBufferPointer { (bytes) throws(XMLValueError) in try XMLValueCoding.decodeBase64(bytes) })
            } catch {
                fail("<data>: \(error.message)", at: frame.position)
                return nil
            }
        }
    }

    private func wholeNumber(_ frame: Frame) -> Int64? {
        let trimmed = Array(String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard let number = trimmed.withUnsafeBufferPointer({ XMLValueCoding.parseInteger($0) }) else {
            fail("<\(frame.name)> holds \(String(reflecting: String(decoding: text, as: UTF8.self))), which is not a whole number", at: frame.position)
            return nil
        }
        return number
    }

    fileprivate func characters(_ bytes: UnsafePointer<xmlChar>, _ count: Int) {
        guard failure == nil, let top = stack.last else { return }
        if top.element.holdsText {
            text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
            return
        }
        for index in 0..<count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default:
                let sample = String(decoding: UnsafeBufferPointer(start: bytes + index, count: min(count - index, 40)), as: UTF8.self)
                return fail("unexpected text \(String(reflecting: sample)) in <\(top.name)>, which holds \(top.element == .relationship ? "nothing" : "elements only")", at: position)
            }
        }
    }

    /// `<!DOCTYPE …>`: only Core Data's, with no internal subset, goes on.
    fileprivate func documentType(name: String?, publicIdentifier: String?, systemIdentifier: String?) {
        guard CoreDataDocumentType.matches(name: name, publicIdentifier: publicIdentifier, systemIdentifier: systemIdentifier) else {
            let declared = [name, publicIdentifier.map { "PUBLIC \"\($0)\"" }, systemIdentifier.map { "\"\($0)\"" }].compactMap { $0 }.joined(separator: " ")
            return fail(
                "the file declares the document type <!DOCTYPE \(declared)>; a Core Data XML store declares only <!DOCTYPE database SYSTEM \"\(CoreDataDocumentType.systemIdentifier)\">, and any other is refused (its DTD could expand entities without bound or read other files)",
                at: position)
        }
        // libxml2 calls this with the input at the `[` of an internal subset, if there is one
        // (xmlParseDocTypeDecl in parser.c): stop before any of it is read.
        if let cursor = parser?.pointee.input?.pointee.cur, cursor.pointee == UInt8(ascii: "[") {
            fail("the document type declaration has an internal subset ([ … ]); Core Data XML stores have none, and it is refused because its entity declarations could expand without bound or read other files", at: position)
        }
    }

    func refuseDeclaration(_ kind: String) {
        fail("the file declares \(kind); Core Data XML stores declare none", at: position)
    }

    fileprivate func refuseReference(_ name: String) {
        fail("the file refers to the entity &\(name);, which it does not declare; Core Data XML stores use only the predefined entities (&amp; &lt; &gt; &quot; &apos;) and character references", at: position)
    }

    func parserError(_ message: String, line: Int, column: Int) {
        guard failure == nil else { return }
        failure = corrupt("malformed XML: \(message)", at: CoreDataXMLDocument.Position(line: line, column: column))
    }

    // MARK: - Errors and positions

    private var position: CoreDataXMLDocument.Position {
        let input = parser?.pointee.input
        return CoreDataXMLDocument.Position(line: input.map { Int($0.pointee.line) } ?? 0, column: input.map { Int($0.pointee.col) } ?? 0)
    }

    private func required(_ attribute: String, of element: String, in attributes: [String: String], at position: CoreDataXMLDocument.Position) -> String? {
        guard let value = attributes[attribute] else {
            fail("<\(element)> has no \(attribute)=\"…\"", at: position)
            return nil
        }
        return value
    }

    private func corrupt(_ message: String, at position: CoreDataXMLDocument.Position) -> StrataError {
        StrataError(.corruptStore, message, file: path, location: position.location)
    }

    /// Records the first error and stops the parser.
    private func fail(_ message: String, at position: CoreDataXMLDocument.Position) {
        guard failure == nil else { return }
        failure = corrupt(message, at: position)
        if let parser { xmlStopParser(parser) }
    }

    // MARK: - Handler

    /// The SAX2 handler: element, text, document-type and error callbacks; every declaration
    /// and every reference to a declared entity refuses.
    private static func handler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, _, namespace, _, _, attributeCount, _, attributes in
            guard let context, let localname else { return }
            // Five pointers per attribute: local name, prefix, URI, value start, value end.
            var values: [String: String] = [:]
            if let attributes {
                for index in 0..<Int(attributeCount) {
                    let base = index * 5
                    guard let name = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4] else { continue }
                    values[String(cString: name)] = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                }
            }
            withParser(context) { $0.startElement(String(cString: localname), namespace: namespace, attributes: values) }
        }
        handler.endElementNs = { context, _, _, _ in
            guard let context else { return }
            withParser(context) { $0.endElement() }
        }
        handler.characters = { context, bytes, count in
            guard let context, let bytes else { return }
            withParser(context) { $0.characters(bytes, Int(count)) }
        }
        handler.cdataBlock = handler.characters
        handler.ignorableWhitespace = handler.characters
        handler.internalSubset = { context, name, publicID, systemID in
            guard let context else { return }
            withParser(context) {
                $0.documentType(
                    name: name.map { String(cString: $0) }, publicIdentifier: publicID.map { String(cString: $0) },
                    systemIdentifier: systemID.map { String(cString: $0) })
            }
        }
        // The callback that would load the external subset (the DTD) does nothing.
        handler.externalSubset = { _, _, _, _ in }
        LibXML2.refuseDeclarations(in: &handler)
        // A reference to an entity no declaration defines: with an external subset (never
        // loaded) libxml2 reports it only as a warning and would drop the text silently.
        handler.reference = { context, name in
            guard let context else { return }
            withParser(context) { $0.refuseReference(name.map { String(cString: $0) } ?? "") }
        }
        return handler
    }
}

/// The parser passed as context, borrowed for `body` without a retain (it outlives its
/// libxml2 parser).
private func withParser<T>(_ context: UnsafeMutableRawPointer, _ body: (CoreDataXMLParser) -> T) -> T {
    Unmanaged<CoreDataXMLParser>.fromOpaque(context)._withUnsafeGuaranteedRef(body)
}
