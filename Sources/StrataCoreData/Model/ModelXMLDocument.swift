internal import CLibXML2
internal import Foundation
internal import StrataXML

/// An element of an Xcode model file (`.xcdatamodel/contents`): its name, its attributes in
/// document order, its child elements and where it starts. Text between elements carries no
/// meaning in a model file and is not kept.
struct ModelXMLElement {
    var name: String
    var attributes: [(name: String, value: String)] = []
    var children: [ModelXMLElement] = []
    var line: Int
    var column: Int

    /// The value of the attribute `name`, or nil when the element has none.
    subscript(_ attributeName: String) -> String? {
        attributes.first { $0.name == attributeName }?.value
    }

    /// The value of the attribute `name`, or nil when it is missing or empty (Xcode writes
    /// `representedClassName=""` and `userDefinedModelVersionIdentifier=""` for "none").
    func nonEmpty(_ attributeName: String) -> String? {
        guard let value = self[attributeName], !value.isEmpty else { return nil }
        return value
    }

    /// True when the attribute is `YES`, the way Xcode writes every flag.
    func flag(_ attributeName: String) -> Bool {
        self[attributeName] == "YES"
    }
}

/// Why a model file could not be read as XML: the message and where the parser stopped.
struct ModelXMLError: Error {
    var message: String
    var line: Int
    var column: Int
}

/// Reads the bytes of a model file into a ``ModelXMLElement`` tree with libxml2's SAX2 parser.
///
/// Model files are small (a few kilobytes to a few hundred), so the whole tree is built. Hostile
/// input is refused, not interpreted, exactly as the XML store reader refuses it: no entity
/// substitution (`XML_PARSE_NOENT` unset), no DTD loading (`XML_PARSE_DTDLOAD`/`DTDATTR`/
/// `DTDVALID` unset), no network (`XML_PARSE_NONET`), no `externalSubset`/`resolveEntity`/
/// `getEntity` callbacks, and any `<!DOCTYPE …>` or declaration stops the parse with an error
/// before an entity could be declared. Xcode never writes a document type into a model file.
///
/// Owns its parser context and frees it in `deinit`.
final class ModelXMLDocument: SAXRefusing {
    private let input: MemoryInput
    private var parser: xmlParserCtxtPtr?
    /// The open elements, innermost last.
    private var stack: [ModelXMLElement] = []
    private var root: ModelXMLElement?
    private var failure: ModelXMLError?

    /// Parses `data`; the root element, or the first problem.
    static func parse(_ data: Data) -> Result<ModelXMLElement, ModelXMLError> {
        _ = LibXML2.initialized
        let document = ModelXMLDocument(data)
        return LibXML2.withoutErrorOutput { document.run() }
    }

    private init(_ data: Data) {
        input = MemoryInput(data)
    }

    deinit {
        if let parser { xmlFreeParserCtxt(parser) }
    }

    private func run() -> Result<ModelXMLElement, ModelXMLError> {
        var handler = Self.handler()
        let context = Unmanaged.passUnretained(self).toOpaque()
        let inputContext = Unmanaged.passUnretained(input).toOpaque()
        guard let parser = xmlCreateIOParserCtxt(
            &handler, context, memoryReadCallback, memoryCloseCallback, inputContext, XML_CHAR_ENCODING_NONE)
        else {
            return .failure(ModelXMLError(message: "libxml2 could not create a parser", line: 1, column: 1))
        }
        self.parser = parser
        // No NOENT (entities are not substituted), no DTDLOAD/DTDATTR/DTDVALID (no DTD is
        // loaded), NONET (no network); see xmlParserOption in parser.h.
        xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue))
        let result = xmlParseDocument(parser)
        if let failure { return .failure(failure) }
        guard result == 0, parser.pointee.wellFormed != 0, let root else {
            return .failure(ModelXMLError(
                message: root == nil ? "the file holds no XML element" : "malformed XML",
                line: Int(xmlSAX2GetLineNumber(parser)), column: Int(xmlSAX2GetColumnNumber(parser))))
        }
        return .success(root)
    }

    // MARK: - SAX events

    fileprivate func startElement(
        _ localname: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        guard failure == nil else { return }
        let name = (prefix.map { String(cString: $0) + ":" } ?? "") + String(cString: localname)
        let start = tagStart()
        var element = ModelXMLElement(name: name, line: start.line, column: start.column)
        if let attributes {
            // Five pointers per attribute: localname, prefix, URI, value start, value end.
            for index in 0..<attributeCount {
                let base = attributes + index * 5
                guard let attributeName = base[0], let start = base[3], let end = base[4] else { continue }
                let qualified = (base[1].map { String(cString: $0) + ":" } ?? "") + String(cString: attributeName)
                var value = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                // Without entity substitution, libxml2's SAX2 interface hands over an ampersand
                // in an attribute value (written `&amp;` or `&#38;`) as the text `&#38;`, for a
                // tree builder to decode; every other reference arrives decoded.
                if value.contains("&#38;") { value = value.replacingOccurrences(of: "&#38;", with: "&") }
                element.attributes.append((qualified, value))
            }
        }
        stack.append(element)
    }

    fileprivate func endElement() {
        guard failure == nil, let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    fileprivate func refuse(_ what: String) {
        fail("the file has \(what); Xcode model files have none, and it is refused because entity declarations could expand without bound or read other files")
    }

    func refuseDeclaration(_ kind: String) {
        refuse("\(kind) declaration")
    }

    func parserError(_ message: String, line: Int, column: Int) {
        guard failure == nil else { return }
        failure = ModelXMLError(message: "malformed XML: \(message)", line: line, column: column)
    }

    /// Records the first error and stops the parser.
    private func fail(_ message: String) {
        guard failure == nil else { return }
        failure = ModelXMLError(message: message, line: line, column: column)
        if let parser { xmlStopParser(parser) }
    }

    /// Where the start tag being reported begins (its `<`): libxml2 reports the element when it
    /// has read the tag's attributes, at the tag's end. Attribute values hold no `<` (XML
    /// requires it escaped), so the nearest `<` before the parser's position opens the tag.
    private func tagStart() -> (line: Int, column: Int) {
        guard let input = parser?.pointee.input?.pointee, let base = input.base, var cursor = input.cur else { return (line, column) }
        var line = Int(input.line)
        var charactersBack = 0
        while cursor > base {
            cursor -= 1
            let byte = cursor.pointee
            if byte == UInt8(ascii: "\n") { line -= 1 }
            if byte & 0xC0 != 0x80 { charactersBack += 1 }
            if byte == UInt8(ascii: "<") { break }
        }
        guard cursor.pointee == UInt8(ascii: "<") else { return (self.line, column) }
        if line == Int(input.line) { return (line, max(1, Int(input.col) - charactersBack)) }
        // The tag spans lines: count the characters before it on its own line.
        var column = 1
        var scan = cursor
        while scan > base, (scan - 1).pointee != UInt8(ascii: "\n") {
            scan -= 1
            if scan.pointee & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    private var line: Int { parser.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0 }
    private var column: Int { parser.map { Int(xmlSAX2GetColumnNumber($0)) } ?? 0 }

    /// The SAX2 handler: element and error callbacks; every declaration callback refuses.
    private static func handler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, prefix, _, _, _, attributeCount, _, attributes in
            guard let context, let localname else { return }
            document(context).startElement(localname, prefix: prefix, attributeCount: Int(attributeCount), attributes: attributes)
        }
        handler.endElementNs = { context, _, _, _ in
            guard let context else { return }
            document(context).endElement()
        }
        handler.internalSubset = { context, _, _, _ in
            guard let context else { return }
            document(context).refuse("a document type declaration (<!DOCTYPE …>)")
        }
        handler.externalSubset = { context, _, _, _ in
            guard let context else { return }
            document(context).refuse("a document type declaration (<!DOCTYPE …>)")
        }
        LibXML2.refuseDeclarations(in: &handler)
        return handler
    }
}

/// The document passed as context (it outlives its parser).
private func document(_ context: UnsafeMutableRawPointer) -> ModelXMLDocument {
    Unmanaged<ModelXMLDocument>.fromOpaque(context).takeUnretainedValue()
}

/// The bytes libxml2 reads, handed out as its input callback asks.
private final class MemoryInput {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) {
        bytes = Array(data)
    }

    func read(into destination: UnsafeMutablePointer<CChar>, count: Int) -> Int32 {
        let copied = min(count, bytes.count - offset)
        guard copied > 0 else { return 0 }
        bytes.withUnsafeBufferPointer { source in
            UnsafeMutableRawPointer(destination).copyMemory(from: source.baseAddress! + offset, byteCount: copied)
        }
        offset += copied
        return Int32(copied)
    }
}

private func memoryReadCallback(_ context: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ count: Int32) -> Int32 {
    guard let context, let buffer else { return -1 }
    return Unmanaged<MemoryInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, count: Int(count))
}

private func memoryCloseCallback(_ context: UnsafeMutableRawPointer?) -> Int32 { 0 }
