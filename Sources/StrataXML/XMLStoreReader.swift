internal import CLibXML2
internal import Foundation
internal import Strata

/// Reads an XML store with libxml2's SAX2 parser, streaming: the file is never held in memory
/// as a tree, only the records it describes.
///
/// Hostile input is refused, not interpreted: the parser runs without `XML_PARSE_NOENT` (no
/// entity substitution), without `XML_PARSE_DTDLOAD`/`DTDVALID`/`DTDATTR` (no DTD is loaded)
/// and with `XML_PARSE_NONET` (no network access), and the handler has no `externalSubset`,
/// `resolveEntity` or `getEntity` callbacks. On top of that any `<!DOCTYPE …>` stops the parse
/// with an error before its internal subset is read, so entity declarations (billion laughs,
/// external entities) are never even parsed.
///
/// The reader checks the whole layout: element and attribute names, each value against the
/// type the stored model gives it, object IDs, and every reference (`idrefs`) against the
/// objects in the file. Every error names the element and its line and column.
///
/// Owns its parser context and frees it in `deinit`.
final class XMLStoreReader: SAXRefusing {
    typealias Element = XMLStoreLayout.Element
    typealias Attribute = XMLStoreLayout.Attribute

    enum Scope {
        case everything
        /// Stops after `<databaseInfo>`.
        case metadataOnly
    }

    // Properties marked `@exclusivity(unchecked)` are the parse state the SAX callbacks touch for
    // every element. The callbacks run one at a time, on the thread that called `parse()`, and
    // no access to one of these properties is held across a call that could touch it again, so
    // the runtime's dynamic exclusivity checks (a tenth of the load time) prove nothing here.

    private let path: String
    private let scope: Scope
    private let input: XMLFileInput
    @exclusivity(unchecked) private var parser: xmlParserCtxtPtr?

    /// The layout's names as the parser interns them (set when parsing starts).
    @exclusivity(unchecked) private var names: XMLNameTables?
    private let repeatable = XMLStoreReader.repeatable

    private var failure: StrataError? {
        didSet { failed = failure != nil }
    }
    /// `failure != nil`, kept apart because the callbacks test it for every event.
    @exclusivity(unchecked) private var failed = false
    private var stoppedAfterMetadata = false

    // MARK: Parse state

    private struct Frame {
        var element: Element
        var line: Int
        var column: Int
        /// A bit per child element seen (by raw value), for the ones that may occur once.
        var seen: UInt64 = 0
    }

    /// The open elements, innermost last.
    @exclusivity(unchecked) private var stack = XMLFrameStack<Frame>()
    /// The innermost open element holds text (its text goes into `text`).
    @exclusivity(unchecked) private var inText = false
    @exclusivity(unchecked) private var text = XMLTextBuffer()
    @exclusivity(unchecked) private var textIsBase64 = false
    /// The values of the current start tag's attributes, by ``XMLStoreLayout/Attribute`` raw value.
    private let attributeValues = UnsafeMutableBufferPointer<UnsafeBufferPointer<UInt8>?>.allocate(capacity: Attribute.allCases.count)
    /// A bit for each of `attributeValues` that is not nil.
    @exclusivity(unchecked) private var setAttributeValues = 0

    // Database info.
    private var formatVersion: Int64?
    private var storeIdentifier: String?
    private var storeType: String?
    private var modelName: String?
    private var modelVersionHash: String?
    private var entityVersionHashes: [String: String] = [:]
    private var keySequences: [String: Int64] = [:]
    private var custom: [String: String] = [:]
    private var schemaJSON: String?
    private var entryKey: String?
    private var entryValue: String?
    private var currentEntityName = ""

    private(set) var metadata: StoreMetadata?

    // Objects.

    private typealias EntityInfo = XMLReaderEntity

    private enum Reference {
        case key(Int64)
        /// `Entity.p12`: an object that is not in the store any more.
        case missing(entityIndex: Int, key: Int64)
    }

    private struct PendingRelationship {
        var slot: Int
        var references: [Reference]
        var line: Int
        var column: Int
    }

    private struct PendingObject {
        var entityIndex: Int
        var key: Int64
        var line: Int
        /// Nil once taken for its record.
        var attributes: AttributeValues?
        var relationships: [PendingRelationship]
    }

    /// Set once `<databaseInfo>` gave the store's model (a flag: testing an optional `Schema`
    /// copies it).
    @exclusivity(unchecked) private var hasModel = false
    @exclusivity(unchecked) private var entityInfos: [EntityInfo] = []
    private var entityIndex: [String: Int] = [:]
    @exclusivity(unchecked) private var objects: [PendingObject] = []
    /// The entity of each of `objects`, apart: resolving a reference reads it for a random
    /// object, and this small array stays in the cache where `objects` does not.
    @exclusivity(unchecked) private var objectEntities: [Int32] = []
    /// Object index by root entity index, then primary key.
    @exclusivity(unchecked) private var keyIndex: [XMLKeyIndex] = []

    // The object being read.
    /// The entity of the object being read (an index in `entityInfos`), -1 between objects.
    @exclusivity(unchecked) private var currentEntityIndex = -1
    /// Its attribute table, owned by its ``XMLReaderEntity``.
    @exclusivity(unchecked) private var currentSlots = UnsafeBufferPointer<XMLReaderEntity.Slot>(start: nil, count: 0)
    /// The entity of the previous object; unowned: `entityInfos` holds every entity for as long
    /// as the reader lives (checked: a reader used twice would trap, not read freed memory).
    @exclusivity(unchecked) private unowned var previousEntity: EntityInfo?
    @exclusivity(unchecked) private var currentKey: Int64 = 0
    @exclusivity(unchecked) private var currentLine = 0
    /// The current object's values, by position in its entity's `AttributeValues.Layout`: the
    /// storage of its record's `AttributeValues`.
    @exclusivity(unchecked) private var values: [AttributeValue?] = []
    @exclusivity(unchecked) private var currentRelationships: [PendingRelationship] = []
    /// Bits of the attribute and relationship slots seen in the current object.
    @exclusivity(unchecked) private var seenAttributes = XMLSlotSet()
    @exclusivity(unchecked) private var seenRelationships = XMLSlotSet()
    @exclusivity(unchecked) private var nextAttributeSlot = 0
    @exclusivity(unchecked) private var currentAttributeSlot = -1

    // MARK: - Reading

    /// Opens the file first: a class whose initializer throws never runs `deinit`, so nothing
    /// that `deinit` frees may be allocated before the last thing that can fail.
    convenience init(path: String, scope: Scope) throws(StrataError) {
        let input = try XMLFileInput(path: path)
        self.init(path: path, scope: scope, input: input)
    }

    private init(path: String, scope: Scope, input: XMLFileInput) {
        _ = LibXML2.initialized
        self.path = path
        self.scope = scope
        self.input = input
        attributeValues.initialize(repeating: nil)
    }

    deinit {
        if let parser { xmlFreeParserCtxt(parser) }
        stack.deallocate()
        names?.deallocate()
        text.deallocate()
        attributeValues.deallocate()
    }

    /// Reads the whole store.
    func read() throws(StrataError) -> AtomicStoreContents {
        try parse()
        guard let metadata else { throw corrupt("the file has no <databaseInfo>", line: 1, column: 1) }
        return try AtomicStoreContents(metadata: metadata, records: resolveRecords(), keySequences: keySequences)
    }

    /// Reads `<databaseInfo>` only.
    func readMetadata() throws(StrataError) -> StoreMetadata {
        try parse()
        guard let metadata else { throw corrupt("the file has no <databaseInfo>", line: 1, column: 1) }
        return metadata
    }

    private func parse() throws(StrataError) {
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
        names = XMLNameTables(parser.pointee.dict)

        let result = xmlParseDocument(parser)
        // A read error comes first: the parser's own report of it ("Document is empty") would mislead.
        if let inputFailure = input.failure { throw inputFailure }
        if let failure { throw failure }
        if stoppedAfterMetadata { return }
        if result != 0 || parser.pointee.wellFormed == 0 {
            var error = corrupt("malformed XML", line: Int(xmlSAX2GetLineNumber(parser)), column: Int(xmlSAX2GetColumnNumber(parser)))
            let last = parser.pointee.lastError
            error.cause = StrataError.Cause(
                domain: .libxml2, code: last.code,
                message: last.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "")
            throw error
        }
    }

    // MARK: - SAX events

    fileprivate func startElement(
        _ localname: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, namespace: UnsafePointer<xmlChar>?, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        guard !failed, let names else { return }
        guard let parent = stack.last else {
            guard namespace == nil, localname == names.database else {
                return fail("the root element is <\(qualifiedName(localname, prefix))>, expected <database>: this is not a Strata XML store")
            }
            stack.push(Frame(element: .database, line: line, column: column))
            return readAttributes(of: .database, count: attributeCount, attributes)
        }
        if let namespace {
            return fail("element <\(qualifiedName(localname, prefix))> is in namespace '\(String(cString: namespace))'; the elements of Strata XML stores are in no namespace")
        }
        guard let element = names.child(named: localname, of: parent.element) else {
            let name = String(cString: localname)
            if parent.element.holdsText || parent.element == .relationship {
                return fail("unexpected element <\(name)> inside <\(parent.element.name)>, which holds \(parent.element == .relationship ? "nothing" : "text only")")
            }
            let expected = parent.element.children.map { "\($0.name)" }
            return fail("unknown element <\(name)> in <\(parent.element.name)>\(Suggestion.didYouMean(name, in: expected)); expected \(expected.map { "<\($0)>" }.joined(separator: ", "))")
        }
        let bit: UInt64 = 1 << UInt64(element.rawValue)
        if repeatable & bit == 0 {
            guard parent.seen & bit == 0 else {
                return fail("<\(parent.element.name)> holds a second <\(element.name)>")
            }
            stack.top.seen |= bit
        }
        stack.push(Frame(element: element, line: line, column: column))
        inText = element.holdsText
        readAttributes(of: element, count: attributeCount, attributes)
        guard !failed else { return }

        if element.holdsText {
            text.removeAll()
            textIsBase64 = false
            if let encoding = attributeValues[Attribute.encoding.rawValue] {
                guard XMLValueCoding.equals(encoding, XMLStoreLayout.base64Encoding) else {
                    return fail("<\(element.name)> has encoding=\(XMLValueCoding.quoted(encoding)); the only encoding is \"base64\"")
                }
                textIsBase64 = true
            }
        }
        switch element {
        case .entityVersionHash, .keySequence:
            guard let entity = required(.entity, of: element) else { return }
            currentEntityName = String(decoding: entity, as: UTF8.self)
        case .entry:
            entryKey = nil
            entryValue = nil
        case .object:
            startObject()
        case .attribute:
            startAttribute()
        case .relationship:
            startRelationship()
        default:
            break
        }
    }

    fileprivate func endElement() {
        guard !failed, let frame = stack.popLast() else { return }
        inText = false
        if frame.element.holdsText {
            endTextElement(frame, text.bytes)
            return
        }
        switch frame.element {
        case .database:
            if metadata == nil { fail("the file has no <databaseInfo>", at: frame) }
        case .databaseInfo:
            endDatabaseInfo(frame)
        case .metadata:
            for required: Element in [.storeType, .modelName, .modelVersionHash, .entityVersionHashes, .schema]
            where frame.seen & (1 << UInt64(required.rawValue)) == 0 {
                return fail("<metadata> has no <\(required.name)>", at: frame)
            }
        case .entry:
            guard let key = entryKey, let value = entryValue else {
                return fail("<entry> needs a <key> and a <value>", at: frame)
            }
            guard custom.updateValue(value, forKey: key) == nil else {
                return fail("<custom> holds the key \(String(reflecting: key)) twice", at: frame)
            }
        case .object:
            endObject()
        default:
            break
        }
    }

    fileprivate func characters(_ bytes: UnsafePointer<xmlChar>, _ count: Int) {
        guard !failed else { return }
        if inText {
            text.append(bytes, count: count)
            return
        }
        guard let top = stack.last else { return }
        for index in 0..<count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default:
                let sample = String(decoding: UnsafeBufferPointer(start: bytes + index, count: min(count - index, 40)), as: UTF8.self)
                return fail("unexpected text \(String(reflecting: sample)) in <\(top.element.name)>, which holds \(top.element == .relationship ? "nothing" : "elements only")")
            }
        }
    }

    fileprivate func refuseDocumentType(name: UnsafePointer<xmlChar>?, publicID: UnsafePointer<xmlChar>?, systemID: UnsafePointer<xmlChar>?) {
        if CoreDataDocumentType.matches(
            name: name.map { String(cString: $0) }, publicIdentifier: publicID.map { String(cString: $0) },
            systemIdentifier: systemID.map { String(cString: $0) }) {
            return fail("the file has a document type declaration (<!DOCTYPE …>) naming Core Data's DTD: it is a Core Data XML store, not a Strata one; read it as store type coredata-xml (strata --type coredata-xml, or convert it to an xml store)")
        }
        fail("the file has a document type declaration (<!DOCTYPE …>); Strata XML stores have none, and they are refused because their entity declarations could expand without bound or read other files")
    }

    func refuseDeclaration(_ kind: String) {
        fail("the file declares \(kind); Strata XML stores declare none")
    }

    func parserError(_ message: String, line: Int, column: Int) {
        guard !failed else { return }
        failure = corrupt("malformed XML: \(message)", line: line, column: column)
        failure?.cause = StrataError.Cause(domain: .libxml2, code: parser?.pointee.lastError.code ?? 0, message: message)
    }

    // MARK: - Elements

    private func qualifiedName(_ localname: UnsafePointer<xmlChar>, _ prefix: UnsafePointer<xmlChar>?) -> String {
        (prefix.map { String(cString: $0) + ":" } ?? "") + String(cString: localname)
    }

    private func readAttributes(of element: Element, count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        // Only the values the previous start tag set need clearing.
        while setAttributeValues != 0 {
            attributeValues[setAttributeValues.trailingZeroBitCount] = nil
            setAttributeValues &= setAttributeValues - 1
        }
        guard count > 0, let attributes, let names else { return }
        // Five pointers per attribute: localname, prefix, URI, value start, value end.
        for index in 0..<count {
            let base = attributes + index * 5
            let name = base[0]!
            guard base[2] == nil, let attribute = names.attribute(named: name, of: element) else {
                let known = element.attributes.map { "\($0.name)" }
                let spelled = String(cString: name)
                return fail("<\(element.name)> has an unknown attribute '\(spelled)'\(Suggestion.didYouMean(spelled, in: known))\(known.isEmpty ? "; it takes none" : "; it takes \(known.joined(separator: ", "))")")
            }
            let start = base[3]!
            attributeValues[attribute.rawValue] = UnsafeBufferPointer(start: start, count: base[4]! - start)
            setAttributeValues |= 1 << attribute.rawValue
        }
    }

    @inline(__always)
    private func required(_ attribute: Attribute, of element: Element) -> UnsafeBufferPointer<UInt8>? {
        guard let value = attributeValues[attribute.rawValue] else {
            missing(attribute, of: element)
            return nil
        }
        return value
    }

    private func missing(_ attribute: Attribute, of element: Element) {
        fail("<\(element.name)> has no \(attribute.name) attribute")
    }

    private func endTextElement(_ frame: Frame, _ text: UnsafeBufferPointer<UInt8>) {
        let string: String
        do {
            if frame.element == .attribute {
                return endAttribute(frame, text)
            }
            string = try XMLValueCoding.string(from: text, base64: textIsBase64)
        } catch {
            return fail("<\(frame.element.name)>: \(error.message)", at: frame)
        }
        switch frame.element {
        case .version:
            guard let version = XMLValueCoding.parseInteger(text) else {
                return fail("<version> must be a whole number, found \(XMLValueCoding.quoted(text))", at: frame)
            }
            guard version == XMLStoreLayout.version else {
                return fail("the file is in version \(version) of the Strata XML layout; this Strata reads version \(XMLStoreLayout.version)\(version > XMLStoreLayout.version ? ": open it with a newer Strata" : "")", at: frame)
            }
            formatVersion = version
        case .uuid:
            guard !string.isEmpty, !string.contains(where: { $0.isWhitespace || $0 == "/" }) else {
                return fail("<UUID> must be the store's identifier, found \(String(reflecting: string))", at: frame)
            }
            storeIdentifier = string
        case .nextObjectID:
            guard let next = XMLValueCoding.parseInteger(text), next > 0 else {
                return fail("<nextObjectID> must be a positive whole number, found \(XMLValueCoding.quoted(text))", at: frame)
            }
        case .storeType: storeType = string
        case .modelName: modelName = string
        case .modelVersionHash: modelVersionHash = string
        case .schema: schemaJSON = string
        case .key: entryKey = string
        case .value: entryValue = string
        case .entityVersionHash:
            guard entityVersionHashes.updateValue(string, forKey: currentEntityName) == nil else {
                return fail("<entityVersionHashes> names entity '\(currentEntityName)' twice", at: frame)
            }
        case .keySequence:
            guard let key = XMLValueCoding.parseInteger(text), key >= 0 else {
                return fail("<keySequence entity=\"\(currentEntityName)\"> must be a whole number of at least 0, found \(XMLValueCoding.quoted(text))", at: frame)
            }
            guard keySequences.updateValue(key, forKey: currentEntityName) == nil else {
                return fail("<keySequences> names entity '\(currentEntityName)' twice", at: frame)
            }
        default:
            break
        }
    }

    private func endDatabaseInfo(_ frame: Frame) {
        for required: Element in [.version, .uuid, .nextObjectID, .metadata]
        where frame.seen & (1 << UInt64(required.rawValue)) == 0 {
            return fail("<databaseInfo> has no <\(required.name)>", at: frame)
        }
        let metadata = StoreMetadata(
            storeIdentifier: storeIdentifier!, storeType: StoreType(rawValue: storeType!), modelName: modelName!,
            modelVersionHash: modelVersionHash!, entityVersionHashes: entityVersionHashes, schemaJSON: schemaJSON!,
            custom: custom)
        self.metadata = metadata
        if scope == .metadataOnly {
            stoppedAfterMetadata = true
            if let parser { xmlStopParser(parser) }
            return
        }
        let schema: Schema
        do {
            schema = try metadata.schema()
        } catch {
            return fail("<schema> does not hold a valid model: \(error.message)", at: frame)
        }
        guard schema.versionHash == metadata.modelVersionHash else {
            return fail("the model in <schema> has version hash \(schema.versionHash), but <modelVersionHash> says \(metadata.modelVersionHash): the file was edited by hand", at: frame)
        }
        hasModel = true
        prepareEntities(schema)
        for root in keySequences.keys where entityIndex[root] == nil {
            return fail("<keySequences> names entity '\(root)', which the model does not have", at: frame)
        }
    }

    private func prepareEntities(_ schema: Schema) {
        for (index, entity) in schema.entities.enumerated() { entityIndex[entity.name] = index }
        entityInfos = XMLReaderEntity.entities(of: schema)
        keyIndex = Array(repeating: XMLKeyIndex(), count: entityInfos.count)
    }

    // MARK: - Objects

    private func startObject() {
        guard hasModel else { return fail("<object> before <databaseInfo>: the store's model must come first") }
        guard let type = required(.type, of: .object), let id = required(.id, of: .object) else { return }
        // Objects of one entity come together: try the previous object's entity first.
        let info: EntityInfo
        if let previous = previousEntity, previous.nameBytes.count == type.count,
           previous.nameBytes.withUnsafeBufferPointer({ XMLValueCoding.bytesEqual($0.baseAddress!, type.baseAddress!, count: type.count) }) {
            info = previous
        } else {
            let entityName = String(decoding: type, as: UTF8.self)
            guard let index = entityIndex[entityName] else {
                return fail("<object type=\"\(entityName)\">: the store's model has no entity '\(entityName)'\(Suggestion.didYouMean(entityName, in: entityInfos.map(\.name)))")
            }
            info = entityInfos[index]
            guard !info.description.isAbstract else {
                return fail("<object type=\"\(entityName)\">: entity '\(entityName)' is abstract and has no objects of its own")
            }
            previousEntity = info
        }
        guard id.count > 1, id[0] == UInt8(ascii: "p"),
              let key = XMLValueCoding.parseInteger(UnsafeBufferPointer(rebasing: id[1...]))
        else {
            return fail("<object type=\"\(info.name)\" id=\"\(String(decoding: id, as: UTF8.self))\">: an object ID is p and a primary key, like p12")
        }
        if let existing = keyIndex[info.rootIndex].insert(key, object: objects.count) {
            let other = objects[existing]
            return fail("<object type=\"\(info.name)\" id=\"p\(key)\">: the '\(entityInfos[info.rootIndex].name)' hierarchy already has an object with that ID (<object type=\"\(entityInfos[other.entityIndex].name)\"> at line \(other.line))")
        }
        currentEntityIndex = info.index
        currentSlots = UnsafeBufferPointer(info.slots)
        currentKey = key
        currentLine = line
        // A new array for each record (the previous one went to its record), filled in order
        // (``store(_:at:)``): making it full of nils first, or copying a shared one, costs more
        // than the values.
        values = []
        values.reserveCapacity(info.layout.count)
        currentRelationships = []
        seenAttributes.removeAll()
        seenRelationships.removeAll()
        nextAttributeSlot = 0
    }

    /// Puts the current object's value at `position` of its layout, appending nils up to it
    /// (files list attributes in layout order, so this is mostly an append).
    @inline(__always)
    private func store(_ value: AttributeValue, at position: Int) {
        if position < values.count {
            values[position] = value
            return
        }
        while values.count < position { values.append(nil) }
        values.append(value)
    }

    private static func padded(_ values: [AttributeValue?], to count: Int) -> [AttributeValue?] {
        var values = values
        while values.count < count { values.append(nil) }
        return values
    }

    private func endObject() {
        guard currentEntityIndex >= 0 else { return }
        let info = entityInfos[currentEntityIndex]
        objectEntities.append(Int32(currentEntityIndex))
        objects.append(PendingObject(
            entityIndex: currentEntityIndex, key: currentKey, line: currentLine,
            attributes: AttributeValues(layout: info.layout, values: Self.padded(values, to: info.layout.count)),
            relationships: currentRelationships))
        values = []
        currentEntityIndex = -1
        currentSlots = UnsafeBufferPointer(start: nil, count: 0)
        currentRelationships = []
    }

    private var objectDescription: String {
        guard currentEntityIndex >= 0 else { return "<object>" }
        return "<object type=\"\(entityInfos[currentEntityIndex].name)\" id=\"\(XMLStoreLayout.idref(currentKey))\">"
    }

    // The attribute elements of objects, a million in a large store, touch only plain memory
    // (the current entity's slots) and report their errors through `attributeProblem`.

    private func startAttribute() {
        guard currentEntityIndex >= 0 else { return }
        guard let name = required(.name, of: .attribute), let type = required(.type, of: .attribute) else { return }
        guard !name.isEmpty,
              let slot = XMLReaderEntity.slot(named: name, in: currentSlots, from: nextAttributeSlot)
                ?? entityInfos[currentEntityIndex].slot(named: name)
        else { return attributeProblem(.unknown(String(decoding: name, as: UTF8.self))) }
        let attribute = currentSlots[slot]
        guard XMLValueCoding.equals(type, attribute.typeName) else { return attributeProblem(.type(slot, XMLValueCoding.quoted(type))) }
        guard seenAttributes.insert(slot) else { return attributeProblem(.twice(slot)) }
        if textIsBase64 && attribute.type != .string { return attributeProblem(.base64(slot)) }
        nextAttributeSlot = slot + 1
        currentAttributeSlot = slot
    }

    private func endAttribute(_ frame: Frame, _ text: UnsafeBufferPointer<UInt8>) {
        guard currentEntityIndex >= 0, currentAttributeSlot >= 0 else { return }
        let slot = currentAttributeSlot
        let type = currentSlots[slot].type
        currentAttributeSlot = -1
        do {
            store(try XMLValueCoding.value(from: text, type: type, base64: textIsBase64), at: currentSlots[slot].position)
        } catch {
            attributeProblem(.value(slot, error.message), at: frame)
        }
    }

    private enum AttributeProblem {
        case unknown(String)
        case type(Int, String)
        case twice(Int)
        case base64(Int)
        case value(Int, String)
    }

    private func attributeProblem(_ problem: AttributeProblem, at frame: Frame? = nil) {
        let info = entityInfos[currentEntityIndex]
        switch problem {
        case .unknown(let attributeName):
            fail("\(objectDescription) has an attribute '\(attributeName)' that entity '\(info.name)' does not have\(Suggestion.didYouMean(attributeName, in: info.attributeNames))")
        case .type(let slot, let quotedType):
            fail("<attribute name=\"\(info.attributeNames[slot])\"> of \(objectDescription) has type=\(quotedType), but the model says \(info.slots[slot].type.rawValue)")
        case .twice(let slot):
            fail("\(objectDescription) has attribute '\(info.attributeNames[slot])' twice")
        case .base64(let slot):
            fail("<attribute name=\"\(info.attributeNames[slot])\"> of \(objectDescription) has encoding=\"base64\", which only string attributes take")
        case .value(let slot, let message):
            fail("<attribute name=\"\(info.attributeNames[slot])\" type=\"\(info.slots[slot].type.rawValue)\"> of \(objectDescription): \(message)", at: frame)
        }
    }

    private func startRelationship() {
        guard currentEntityIndex >= 0 else { return }
        let info = entityInfos[currentEntityIndex]
        guard let name = required(.name, of: .relationship), let type = required(.type, of: .relationship),
              let destination = required(.destination, of: .relationship)
        else { return }
        let relationshipName = String(decoding: name, as: UTF8.self)
        guard let slot = info.relationshipIndex[relationshipName] else {
            return fail("\(objectDescription) has a relationship '\(relationshipName)' that entity '\(info.name)' does not have\(Suggestion.didYouMean(relationshipName, in: info.relationships.map(\.name)))")
        }
        let relationship = info.relationships[slot]
        // Built only for an error: this runs for every relationship of the file.
        var element: String { "<relationship name=\"\(relationshipName)\"> of \(objectDescription)" }
        guard String(decoding: type, as: UTF8.self) == relationship.type else {
            return fail("\(element) has type=\(XMLValueCoding.quoted(type)), but the model gives it \"\(relationship.type)\" (min/max count)")
        }
        guard String(decoding: destination, as: UTF8.self) == relationship.destination else {
            return fail("\(element) has destination=\(XMLValueCoding.quoted(destination)), but the model says \(relationship.destination)")
        }
        guard seenRelationships.insert(slot) else {
            return fail("\(objectDescription) has relationship '\(relationshipName)' twice")
        }
        var references: [Reference] = []
        if let idrefs = attributeValues[Attribute.idrefs.rawValue] {
            guard let parsed = parseReferences(idrefs, element: element) else { return }
            references = parsed
        }
        if !relationship.isToMany && references.count > 1 {
            return fail("\(element) is to-one but names \(references.count) objects")
        }
        if !references.isEmpty {
            currentRelationships.append(PendingRelationship(slot: slot, references: references, line: line, column: column))
        }
    }

    /// Splits `idrefs` at whitespace into `p12` and `Entity.p12` tokens.
    private func parseReferences(_ text: UnsafeBufferPointer<UInt8>, element: @autoclosure () -> String) -> [Reference]? {
        var references: [Reference] = []
        var index = 0
        while index < text.count {
            if text[index] == 0x20 || text[index] == 0x09 || text[index] == 0x0A || text[index] == 0x0D {
                index += 1
                continue
            }
            let start = index
            var dot: Int?
            while index < text.count, text[index] != 0x20, text[index] != 0x09, text[index] != 0x0A, text[index] != 0x0D {
                if text[index] == UInt8(ascii: ".") && dot == nil { dot = index }
                index += 1
            }
            let token = UnsafeBufferPointer(rebasing: text[start..<index])
            let keyStart = (dot ?? (start - 1)) + 1
            guard keyStart < index, text[keyStart] == UInt8(ascii: "p"),
                  let key = XMLValueCoding.parseInteger(UnsafeBufferPointer(rebasing: text[(keyStart + 1)..<index]))
            else {
                fail("\(element()) has idrefs token \(XMLValueCoding.quoted(token)); a reference is p and a primary key (p12), or Entity.p12 for an object no longer in the store")
                return nil
            }
            if let dot {
                let entityName = String(decoding: UnsafeBufferPointer(rebasing: text[start..<dot]), as: UTF8.self)
                guard let entity = entityIndex[entityName] else {
                    fail("\(element()) has idrefs token \(XMLValueCoding.quoted(token)), but the model has no entity '\(entityName)'")
                    return nil
                }
                references.append(.missing(entityIndex: entity, key: key))
            } else {
                references.append(.key(key))
            }
        }
        return references
    }

    /// Turns the objects read into records, resolving every reference.
    private func resolveRecords() throws(StrataError) -> [String: [ObjectID: StoreRecord]] {
        guard let storeIdentifier else { return [:] }
        let entityNames = entityInfos.map(\.name)
        var counts = Array(repeating: 0, count: entityInfos.count)
        for object in objects { counts[object.entityIndex] += 1 }
        var byEntity: [[ObjectID: StoreRecord]] = counts.map { [ObjectID: StoreRecord](minimumCapacity: $0) }
        var keys = Set<Int64>()
        for index in objects.indices {
            let entityIndex = objects[index].entityIndex
            let id = ObjectID(entityName: entityNames[entityIndex], storeIdentifier: storeIdentifier, primaryKey: objects[index].key)
            // Taken, not copied: the record is the only owner of its values.
            var record = StoreRecord(objectID: id, attributes: objects[index].attributes.take() ?? [:])
            let owner = entityInfos[entityIndex]
            for relationship in objects[index].relationships {
                let info = owner.relationships[relationship.slot]
                let destination = entityInfos[info.destinationIndex]
                let destinationKeys = keyIndex[destination.rootIndex]
                func failure(_ problem: String) -> StrataError {
                    referenceError(info, relationship, entityIndex: entityIndex, key: objects[index].key, problem)
                }
                var members: [ObjectID] = []
                members.reserveCapacity(relationship.references.count)
                keys.removeAll(keepingCapacity: true)
                for reference in relationship.references {
                    let member: ObjectID
                    let key: Int64
                    switch reference {
                    case .key(let referenced):
                        key = referenced
                        guard let target = destinationKeys.object(withKey: referenced) else {
                            throw failure("refers to p\(referenced), but there is no \(destination.name) with that ID in the file")
                        }
                        let targetEntity = Int(objectEntities[target])
                        guard targetEntity == destination.index || destination.family.contains(targetEntity) else {
                            throw failure("refers to p\(referenced), which is a \(entityNames[targetEntity]), not a \(destination.name)")
                        }
                        member = ObjectID(entityName: entityNames[targetEntity], storeIdentifier: storeIdentifier, primaryKey: referenced)
                    case .missing(let entity, let referenced):
                        key = referenced
                        let name = entityNames[entity]
                        guard destination.family.contains(entity), !entityInfos[entity].description.isAbstract else {
                            throw failure("refers to \(name).p\(referenced), but a \(name) cannot be a member (the destination is \(destination.name))")
                        }
                        if destinationKeys.object(withKey: referenced) != nil {
                            throw failure("refers to \(name).p\(referenced) as an object no longer in the store, but the file has an object with ID p\(referenced): write p\(referenced)")
                        }
                        member = ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: referenced)
                    }
                    // A few members are compared with each other, more through a set.
                    if relationship.references.count > 16 {
                        guard keys.insert(key).inserted else {
                            throw failure("names p\(key) twice")
                        }
                    } else if members.contains(where: { $0.primaryKey == key }) {
                        throw failure("names p\(key) twice")
                    }
                    members.append(member)
                }
                // Only relationships with members are pending: a missing key means nil or an
                // empty to-many (StoreRecord).
                if info.isToMany {
                    record.toMany[info.name] = members
                } else {
                    record.toOne[info.name] = members[0]
                }
            }
            byEntity[entityIndex].updateValue(consume record, forKey: consume id)
        }
        var records: [String: [ObjectID: StoreRecord]] = [:]
        for (index, entityRecords) in byEntity.enumerated() where !entityRecords.isEmpty {
            records[entityNames[index]] = entityRecords
        }
        return records
    }

    private func referenceError(
        _ info: XMLReaderEntity.Relationship, _ relationship: PendingRelationship, entityIndex: Int, key: Int64, _ problem: String
    ) -> StrataError {
        let owner = "<object type=\"\(entityInfos[entityIndex].name)\" id=\"\(XMLStoreLayout.idref(key))\">"
        return corrupt("<relationship name=\"\(info.name)\"> of \(owner) \(problem)", line: relationship.line, column: relationship.column)
    }

    // MARK: - Errors and positions

    // What xmlSAX2GetLineNumber and xmlSAX2GetColumnNumber return, read without a call for
    // every element.
    private var line: Int { parser?.pointee.input.map { Int($0.pointee.line) } ?? 0 }
    private var column: Int { parser?.pointee.input.map { Int($0.pointee.col) } ?? 0 }

    private func corrupt(_ message: String, line: Int, column: Int) -> StrataError {
        StrataError(.corruptStore, message, file: path, location: SourceLocation(line: line, column: column))
    }

    /// Records the first error and stops the parser.
    private func fail(_ message: String, at frame: Frame? = nil) {
        guard !failed else { return }
        failure = corrupt(message, line: frame?.line ?? line, column: frame?.column ?? column)
        if let parser { xmlStopParser(parser) }
    }

    // MARK: - Tables

    /// Bits (by raw value) of the elements that may occur more than once in their parent.
    private static let repeatable: UInt64 = [Element.object, .entityVersionHash, .keySequence, .entry, .attribute, .relationship]
        .reduce(0) { $0 | 1 << UInt64($1.rawValue) }

    /// The SAX2 handler: element, text and error callbacks; every declaration callback refuses.
    private static func handler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, prefix, namespace, _, _, attributeCount, _, attributes in
            guard let context, let localname else { return }
            withReader(context) {
                $0.startElement(localname, prefix: prefix, namespace: namespace, attributeCount: Int(attributeCount), attributes: attributes)
            }
        }
        handler.endElementNs = { context, _, _, _ in
            guard let context else { return }
            withReader(context) { $0.endElement() }
        }
        handler.characters = { context, bytes, count in
            guard let context, let bytes else { return }
            withReader(context) { $0.characters(bytes, Int(count)) }
        }
        handler.cdataBlock = handler.characters
        handler.ignorableWhitespace = handler.characters
        handler.internalSubset = { context, name, publicID, systemID in
            guard let context else { return }
            withReader(context) { $0.refuseDocumentType(name: name, publicID: publicID, systemID: systemID) }
        }
        handler.externalSubset = { context, name, publicID, systemID in
            guard let context else { return }
            withReader(context) { $0.refuseDocumentType(name: name, publicID: publicID, systemID: systemID) }
        }
        LibXML2.refuseDeclarations(in: &handler)
        return handler
    }
}

/// The reader passed as context, borrowed for `body` without a retain (the reader outlives
/// its parser).
@inline(__always)
private func withReader<T>(_ context: UnsafeMutableRawPointer, _ body: (XMLStoreReader) -> T) -> T {
    Unmanaged<XMLStoreReader>.fromOpaque(context)._withUnsafeGuaranteedRef(body)
}


extension AttributeType {
    /// The type's name as a C string, to compare with the bytes of a `type` attribute.
    var name: StaticString {
        switch self {
        case .string: "string"
        case .int16: "int16"
        case .int32: "int32"
        case .int64: "int64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .bool: "bool"
        case .date: "date"
        case .binary: "binary"
        case .uuid: "uuid"
        case .uri: "uri"
        case .transformable: "transformable"
        }
    }
}
