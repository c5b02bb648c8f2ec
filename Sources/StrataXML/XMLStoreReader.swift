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
final class XMLStoreReader {
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

    /// Element and attribute names interned in the parser's dictionary: SAX2 hands out names
    /// from that dictionary, so a name matches when its pointer does.
    @exclusivity(unchecked) private var elementNames: [UnsafePointer<xmlChar>] = []
    @exclusivity(unchecked) private var attributeNames: [UnsafePointer<xmlChar>] = []
    /// The interned names of each element's children and attributes, by raw value.
    @exclusivity(unchecked) private var childNames: [[(name: UnsafePointer<xmlChar>, element: Element)]] = []
    @exclusivity(unchecked) private var attributeNamesByElement: [[(name: UnsafePointer<xmlChar>, attribute: Attribute)]] = []
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

    @exclusivity(unchecked) private var stack: [Frame] = []
    @exclusivity(unchecked) private var text: [UInt8] = []
    @exclusivity(unchecked) private var textIsBase64 = false
    /// The values of the current start tag's attributes, by ``XMLStoreLayout/Attribute`` raw value.
    @exclusivity(unchecked) private var attributeValues: [UnsafeBufferPointer<UInt8>?] = Array(repeating: nil, count: Attribute.allCases.count)

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

    /// What the reader needs of one entity of the stored model. A class, so that looking one
    /// up for every element costs a retain, not a copy.
    private final class EntityInfo {
        let description: EntityDescription
        let index: Int
        let nameBytes: [UInt8]
        var rootIndex = 0
        /// Stored attributes in model order: files list them in that order, so the reader tries
        /// the slot after the last one first and compares bytes, not hashes.
        var attributes: [AttributeSlot] = []
        var attributeIndex: [String: Int] = [:]
        var relationships: [RelationshipInfo] = []
        var relationshipIndex: [String: Int] = [:]
        /// Indices of this entity and every entity below it.
        var family: Set<Int> = []

        init(description: EntityDescription, index: Int) {
            self.description = description
            self.index = index
            nameBytes = Array(description.name.utf8)
        }

        var name: String { description.name }
    }

    private struct AttributeSlot {
        var name: String
        var bytes: [UInt8]
        var type: AttributeType
        var typeName: StaticString
        /// The attribute's position in the entity's `AttributeValues.Layout`.
        var position: Int
    }

    private struct RelationshipInfo {
        var name: String
        var bytes: [UInt8]
        var isToMany: Bool
        var type: String
        var destination: String
        var destinationIndex: Int
    }

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
        var attributes: AttributeValues
        var relationships: [PendingRelationship]
    }

    private var schema: Schema?
    @exclusivity(unchecked) private var entityInfos: [EntityInfo] = []
    private var entityIndex: [String: Int] = [:]
    @exclusivity(unchecked) private var objects: [PendingObject] = []
    /// Object index by root entity index, then primary key.
    @exclusivity(unchecked) private var keyIndex: [[Int64: Int]] = []

    // The object being read.
    @exclusivity(unchecked) private var currentEntity: EntityInfo?
    @exclusivity(unchecked) private var previousEntity: EntityInfo?
    @exclusivity(unchecked) private var currentKey: Int64 = 0
    @exclusivity(unchecked) private var currentLine = 0
    @exclusivity(unchecked) private var currentAttributes = AttributeValues(layout: .empty)
    @exclusivity(unchecked) private var currentRelationships: [PendingRelationship] = []
    /// Bits of the attribute and relationship slots seen in the current object.
    @exclusivity(unchecked) private var seenAttributes: [UInt64] = []
    @exclusivity(unchecked) private var seenRelationships: [UInt64] = []
    @exclusivity(unchecked) private var nextAttributeSlot = 0
    @exclusivity(unchecked) private var currentAttributeSlot = -1

    // MARK: - Reading

    init(path: String, scope: Scope) throws(StrataError) {
        _ = LibXML2.initialized
        self.path = path
        self.scope = scope
        input = try XMLFileInput(path: path)
    }

    deinit {
        if let parser { xmlFreeParserCtxt(parser) }
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
            &handler, context, inputReadCallback, inputCloseCallback, inputContext, XML_CHAR_ENCODING_NONE)
        else {
            throw StrataError(.storeIO, "libxml2 could not create a parser for '\(path)'")
        }
        self.parser = parser
        // No NOENT (entities are not substituted), no DTDLOAD/DTDATTR/DTDVALID (no DTD is
        // loaded), NONET (no network); see xmlParserOption in parser.h.
        xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue))
        let dictionary = parser.pointee.dict
        elementNames = Element.allCases.map { xmlDictLookup(dictionary, $0.name.utf8Start, -1)! }
        attributeNames = Attribute.allCases.map { xmlDictLookup(dictionary, $0.name.utf8Start, -1)! }
        childNames = Self.childTable.map { $0.map { (elementNames[$0.rawValue], $0) } }
        attributeNamesByElement = Self.attributeTable.map { $0.map { (attributeNames[$0.rawValue], $0) } }

        let result = xmlParseDocument(parser)
        // A read error comes first: the parser's own report of it ("Document is empty") would mislead.
        if let inputFailure = input.failure { throw inputFailure }
        if let failure { throw failure }
        if stoppedAfterMetadata { return }
        if result != 0 || parser.pointee.wellFormed == 0 {
            throw corrupt("malformed XML", line: Int(xmlSAX2GetLineNumber(parser)), column: Int(xmlSAX2GetColumnNumber(parser)))
        }
    }

    // MARK: - SAX events

    fileprivate func startElement(
        _ localname: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, namespace: UnsafePointer<xmlChar>?, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        guard !failed else { return }
        guard let parent = stack.last else {
            guard namespace == nil, localname == elementNames[Element.database.rawValue] else {
                return fail("the root element is <\(qualifiedName(localname, prefix))>, expected <database>: this is not a Strata XML store")
            }
            stack.append(Frame(element: .database, line: line, column: column))
            return readAttributes(of: .database, count: attributeCount, attributes)
        }
        if let namespace {
            return fail("element <\(qualifiedName(localname, prefix))> is in namespace '\(String(cString: namespace))'; the elements of Strata XML stores are in no namespace")
        }
        guard let element = child(named: localname, of: parent.element) else {
            let name = String(cString: localname)
            if parent.element.holdsText || parent.element == .relationship {
                return fail("unexpected element <\(name)> inside <\(parent.element.name)>, which holds \(parent.element == .relationship ? "nothing" : "text only")")
            }
            let expected = Self.childTable[parent.element.rawValue].map { "\($0.name)" }
            return fail("unknown element <\(name)> in <\(parent.element.name)>\(Suggestion.didYouMean(name, in: expected)); expected \(expected.map { "<\($0)>" }.joined(separator: ", "))")
        }
        let bit: UInt64 = 1 << UInt64(element.rawValue)
        if repeatable & bit == 0 {
            guard stack[stack.count - 1].seen & bit == 0 else {
                return fail("<\(parent.element.name)> holds a second <\(element.name)>")
            }
            stack[stack.count - 1].seen |= bit
        }
        stack.append(Frame(element: element, line: line, column: column))
        readAttributes(of: element, count: attributeCount, attributes)
        guard !failed else { return }

        if element.holdsText {
            text.removeAll(keepingCapacity: true)
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
        if frame.element.holdsText {
            text.withUnsafeBufferPointer { endTextElement(frame, $0) }
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
        guard !failed, let top = stack.last else { return }
        if top.element.holdsText {
            text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
            return
        }
        for index in 0..<count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default:
                let sample = String(decoding: UnsafeBufferPointer(start: bytes + index, count: min(count - index, 40)), as: UTF8.self)
                return fail("unexpected text \(String(reflecting: sample)) in <\(top.element.name)>, which holds \(top.element == .relationship ? "nothing" : "elements only")")
            }
        }
    }

    fileprivate func refuseDocumentType() {
        fail("the file has a document type declaration (<!DOCTYPE …>); Strata XML stores have none, and they are refused because their entity declarations could expand without bound or read other files")
    }

    fileprivate func refuseDeclaration(_ kind: String) {
        fail("the file declares \(kind); Strata XML stores declare none")
    }

    fileprivate func parserError(_ error: UnsafePointer<xmlError>) {
        guard !failed, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        while message.last?.isWhitespace == true { message.removeLast() }
        failure = corrupt("malformed XML: \(message)", line: Int(error.pointee.line), column: Int(error.pointee.int2))
    }

    // MARK: - Elements

    private func qualifiedName(_ localname: UnsafePointer<xmlChar>, _ prefix: UnsafePointer<xmlChar>?) -> String {
        (prefix.map { String(cString: $0) + ":" } ?? "") + String(cString: localname)
    }

    private func child(named name: UnsafePointer<xmlChar>, of parent: Element) -> Element? {
        for candidate in childNames[parent.rawValue] where candidate.name == name {
            return candidate.element
        }
        return nil
    }

    private func readAttributes(of element: Element, count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        for index in attributeValues.indices { attributeValues[index] = nil }
        guard count > 0, let attributes else { return }
        let allowed = attributeNamesByElement[element.rawValue]
        // Five pointers per attribute: localname, prefix, URI, value start, value end.
        for index in 0..<count {
            let base = attributes + index * 5
            let name = base[0]!
            guard base[2] == nil, let attribute = allowed.first(where: { $0.name == name })?.attribute else {
                let known = allowed.map { "\($0.attribute.name)" }
                let spelled = String(cString: name)
                return fail("<\(element.name)> has an unknown attribute '\(spelled)'\(Suggestion.didYouMean(spelled, in: known))\(known.isEmpty ? "; it takes none" : "; it takes \(known.joined(separator: ", "))")")
            }
            let start = base[3]!
            attributeValues[attribute.rawValue] = UnsafeBufferPointer(start: start, count: base[4]! - start)
        }
    }

    private func required(_ attribute: Attribute, of element: Element) -> UnsafeBufferPointer<UInt8>? {
        guard let value = attributeValues[attribute.rawValue] else {
            fail("<\(element.name)> has no \(attribute.name) attribute")
            return nil
        }
        return value
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
        self.schema = schema
        prepareEntities(schema)
        for root in keySequences.keys where entityIndex[root] == nil {
            return fail("<keySequences> names entity '\(root)', which the model does not have", at: frame)
        }
    }

    private func prepareEntities(_ schema: Schema) {
        for (index, entity) in schema.entities.enumerated() { entityIndex[entity.name] = index }
        entityInfos = schema.entities.enumerated().map { EntityInfo(description: $1, index: $0) }
        for info in entityInfos {
            let entity = info.description
            info.rootIndex = entityIndex[entity.rootName]!
            for attribute in entity.attributes where !attribute.isTransient {
                info.attributeIndex[attribute.name] = info.attributes.count
                info.attributes.append(AttributeSlot(
                    name: attribute.name, bytes: Array(attribute.name.utf8), type: attribute.type, typeName: attribute.type.name,
                    position: entity.attributeLayout.position(of: attribute.name)!))
            }
            for relationship in entity.relationships {
                info.relationshipIndex[relationship.name] = info.relationships.count
                info.relationships.append(RelationshipInfo(
                    name: relationship.name, bytes: Array(relationship.name.utf8), isToMany: relationship.isToMany,
                    type: relationship.isToMany
                        ? "\(relationship.minCount)/\(relationship.maxCount)"
                        : (relationship.isOptional ? "0/1" : "1/1"),
                    destination: relationship.destination,
                    destinationIndex: entityIndex[relationship.destination]!))
            }
            // Every entity belongs to its own family and to each ancestor's.
            info.family.insert(info.index)
            for ancestor in entity.ancestorNames { entityInfos[entityIndex[ancestor]!].family.insert(info.index) }
        }
        keyIndex = Array(repeating: [:], count: entityInfos.count)
    }

    // MARK: - Objects

    private func startObject() {
        guard schema != nil else { return fail("<object> before <databaseInfo>: the store's model must come first") }
        guard let type = required(.type, of: .object), let id = required(.id, of: .object) else { return }
        // Objects of one entity come together: try the previous object's entity first.
        let info: EntityInfo
        if let previous = previousEntity, previous.nameBytes.elementsEqual(type) {
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
        if let existing = keyIndex[info.rootIndex].updateValue(objects.count, forKey: key) {
            let other = objects[existing]
            return fail("<object type=\"\(info.name)\" id=\"p\(key)\">: the '\(entityInfos[info.rootIndex].name)' hierarchy already has an object with that ID (<object type=\"\(entityInfos[other.entityIndex].name)\"> at line \(other.line))")
        }
        currentEntity = info
        currentKey = key
        currentLine = line
        currentAttributes = AttributeValues(layout: info.description.attributeLayout)
        currentRelationships = []
        Self.clear(&seenAttributes, count: (info.attributes.count + 63) / 64)
        Self.clear(&seenRelationships, count: (info.relationships.count + 63) / 64)
        nextAttributeSlot = 0
    }

    private static func clear(_ bits: inout [UInt64], count: Int) {
        if bits.count != count { bits = Array(repeating: 0, count: count) }
        for index in bits.indices { bits[index] = 0 }
    }

    private func endObject() {
        guard let info = currentEntity else { return }
        objects.append(PendingObject(
            entityIndex: info.index, key: currentKey, line: currentLine,
            attributes: currentAttributes, relationships: currentRelationships))
        currentEntity = nil
        currentAttributes = AttributeValues(layout: .empty)
        currentRelationships = []
    }

    private var objectDescription: String {
        guard let currentEntity else { return "<object>" }
        return "<object type=\"\(currentEntity.name)\" id=\"\(XMLStoreLayout.idref(currentKey))\">"
    }

    /// The slot of an attribute of the current object: the one after the previous attribute
    /// when the bytes match (files list attributes in model order), else by name.
    private func attributeSlot(_ info: EntityInfo, named name: UnsafeBufferPointer<UInt8>) -> Int? {
        let slots = info.attributes
        var index = nextAttributeSlot
        while index < slots.count {
            let matches = slots[index].bytes.withUnsafeBufferPointer { bytes in
                bytes.count == name.count && memcmp(bytes.baseAddress!, name.baseAddress!, name.count) == 0
            }
            if matches { return index }
            index += 1
        }
        return info.attributeIndex[String(decoding: name, as: UTF8.self)]
    }

    private func startAttribute() {
        guard let info = currentEntity else { return }
        guard let name = required(.name, of: .attribute), let type = required(.type, of: .attribute) else { return }
        guard !name.isEmpty, let slot = attributeSlot(info, named: name) else {
            let attributeName = String(decoding: name, as: UTF8.self)
            return fail("\(objectDescription) has an attribute '\(attributeName)' that entity '\(info.name)' does not have\(Suggestion.didYouMean(attributeName, in: info.attributes.map(\.name)))")
        }
        let attribute = info.attributes[slot]
        guard XMLValueCoding.equals(type, attribute.typeName) else {
            return fail("<attribute name=\"\(attribute.name)\"> of \(objectDescription) has type=\(XMLValueCoding.quoted(type)), but the model says \(attribute.type.rawValue)")
        }
        let bit: UInt64 = 1 << UInt64(slot % 64)
        guard seenAttributes[slot / 64] & bit == 0 else {
            return fail("\(objectDescription) has attribute '\(attribute.name)' twice")
        }
        seenAttributes[slot / 64] |= bit
        if textIsBase64 && attribute.type != .string {
            return fail("<attribute name=\"\(attribute.name)\"> of \(objectDescription) has encoding=\"base64\", which only string attributes take")
        }
        nextAttributeSlot = slot + 1
        currentAttributeSlot = slot
    }

    private func endAttribute(_ frame: Frame, _ text: UnsafeBufferPointer<UInt8>) {
        guard let info = currentEntity, currentAttributeSlot >= 0 else { return }
        let attribute = info.attributes[currentAttributeSlot]
        currentAttributeSlot = -1
        do {
            currentAttributes[position: attribute.position] = try XMLValueCoding.value(from: text, type: attribute.type, base64: textIsBase64)
        } catch {
            fail("<attribute name=\"\(attribute.name)\" type=\"\(attribute.type.rawValue)\"> of \(objectDescription): \(error.message)", at: frame)
        }
    }

    private func startRelationship() {
        guard let info = currentEntity else { return }
        guard let name = required(.name, of: .relationship), let type = required(.type, of: .relationship),
              let destination = required(.destination, of: .relationship)
        else { return }
        let relationshipName = String(decoding: name, as: UTF8.self)
        guard let slot = info.relationshipIndex[relationshipName] else {
            return fail("\(objectDescription) has a relationship '\(relationshipName)' that entity '\(info.name)' does not have\(Suggestion.didYouMean(relationshipName, in: info.relationships.map(\.name)))")
        }
        let relationship = info.relationships[slot]
        let element = "<relationship name=\"\(relationshipName)\"> of \(objectDescription)"
        guard String(decoding: type, as: UTF8.self) == relationship.type else {
            return fail("\(element) has type=\(XMLValueCoding.quoted(type)), but the model gives it \"\(relationship.type)\" (min/max count)")
        }
        guard String(decoding: destination, as: UTF8.self) == relationship.destination else {
            return fail("\(element) has destination=\(XMLValueCoding.quoted(destination)), but the model says \(relationship.destination)")
        }
        let bit: UInt64 = 1 << UInt64(slot % 64)
        guard seenRelationships[slot / 64] & bit == 0 else {
            return fail("\(objectDescription) has relationship '\(relationshipName)' twice")
        }
        seenRelationships[slot / 64] |= bit
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
    private func parseReferences(_ text: UnsafeBufferPointer<UInt8>, element: String) -> [Reference]? {
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
                fail("\(element) has idrefs token \(XMLValueCoding.quoted(token)); a reference is p and a primary key (p12), or Entity.p12 for an object no longer in the store")
                return nil
            }
            if let dot {
                let entityName = String(decoding: UnsafeBufferPointer(rebasing: text[start..<dot]), as: UTF8.self)
                guard let entity = entityIndex[entityName] else {
                    fail("\(element) has idrefs token \(XMLValueCoding.quoted(token)), but the model has no entity '\(entityName)'")
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
        let ids = objects.map { object in
            ObjectID(entityName: entityInfos[object.entityIndex].name, storeIdentifier: storeIdentifier, primaryKey: object.key)
        }
        var counts = Array(repeating: 0, count: entityInfos.count)
        for object in objects { counts[object.entityIndex] += 1 }
        var byEntity: [[ObjectID: StoreRecord]] = counts.map { [ObjectID: StoreRecord](minimumCapacity: $0) }
        var keys = Set<Int64>()
        for (index, object) in objects.enumerated() {
            var record = StoreRecord(objectID: ids[index], attributes: object.attributes)
            let owner = entityInfos[object.entityIndex]
            for relationship in object.relationships {
                let info = owner.relationships[relationship.slot]
                let destination = entityInfos[info.destinationIndex]
                var members: [ObjectID] = []
                members.reserveCapacity(relationship.references.count)
                keys.removeAll(keepingCapacity: true)
                for reference in relationship.references {
                    let member: ObjectID
                    let key: Int64
                    switch reference {
                    case .key(let referenced):
                        key = referenced
                        guard let target = keyIndex[destination.rootIndex][referenced] else {
                            throw referenceError(info, relationship, object, "refers to p\(referenced), but there is no \(destination.name) with that ID in the file")
                        }
                        guard destination.family.contains(objects[target].entityIndex) else {
                            throw referenceError(info, relationship, object, "refers to p\(referenced), which is a \(entityInfos[objects[target].entityIndex].name), not a \(destination.name)")
                        }
                        member = ids[target]
                    case .missing(let entity, let referenced):
                        key = referenced
                        let name = entityInfos[entity].name
                        guard destination.family.contains(entity), !entityInfos[entity].description.isAbstract else {
                            throw referenceError(info, relationship, object, "refers to \(name).p\(referenced), but a \(name) cannot be a member (the destination is \(destination.name))")
                        }
                        if keyIndex[destination.rootIndex][referenced] != nil {
                            throw referenceError(info, relationship, object, "refers to \(name).p\(referenced) as an object no longer in the store, but the file has an object with ID p\(referenced): write p\(referenced)")
                        }
                        member = ObjectID(entityName: name, storeIdentifier: storeIdentifier, primaryKey: referenced)
                    }
                    if relationship.references.count > 1 {
                        guard keys.insert(key).inserted else {
                            throw referenceError(info, relationship, object, "names p\(key) twice")
                        }
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
            byEntity[object.entityIndex][ids[index]] = record
        }
        var records: [String: [ObjectID: StoreRecord]] = [:]
        for (index, entityRecords) in byEntity.enumerated() where !entityRecords.isEmpty {
            records[entityInfos[index].name] = entityRecords
        }
        return records
    }

    private func referenceError(
        _ info: RelationshipInfo, _ relationship: PendingRelationship, _ object: PendingObject, _ problem: String
    ) -> StrataError {
        let owner = "<object type=\"\(entityInfos[object.entityIndex].name)\" id=\"\(XMLStoreLayout.idref(object.key))\">"
        return corrupt("<relationship name=\"\(info.name)\"> of \(owner) \(problem)", line: relationship.line, column: relationship.column)
    }

    // MARK: - Errors and positions

    private var line: Int { parser.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0 }
    private var column: Int { parser.map { Int(xmlSAX2GetColumnNumber($0)) } ?? 0 }

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

    private static let childTable: [[Element]] = Element.allCases.map(\.children)
    private static let attributeTable: [[Attribute]] = Element.allCases.map(\.attributes)
    /// Bits (by raw value) of the elements that may occur more than once in their parent.
    private static let repeatable: UInt64 = [Element.object, .entityVersionHash, .keySequence, .entry, .attribute, .relationship]
        .reduce(0) { $0 | 1 << UInt64($1.rawValue) }

    /// The SAX2 handler: element, text and error callbacks; every declaration callback refuses.
    private static func handler() -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, prefix, namespace, _, _, attributeCount, _, attributes in
            guard let context, let localname else { return }
            reader(context).startElement(
                localname, prefix: prefix, namespace: namespace, attributeCount: Int(attributeCount), attributes: attributes)
        }
        handler.endElementNs = { context, _, _, _ in
            guard let context else { return }
            reader(context).endElement()
        }
        handler.characters = { context, bytes, count in
            guard let context, let bytes else { return }
            reader(context).characters(bytes, Int(count))
        }
        handler.cdataBlock = handler.characters
        handler.ignorableWhitespace = handler.characters
        handler.internalSubset = { context, _, _, _ in
            guard let context else { return }
            reader(context).refuseDocumentType()
        }
        handler.externalSubset = { context, _, _, _ in
            guard let context else { return }
            reader(context).refuseDocumentType()
        }
        handler.entityDecl = { context, _, _, _, _, _ in
            guard let context else { return }
            reader(context).refuseDeclaration("an entity")
        }
        handler.unparsedEntityDecl = { context, _, _, _, _ in
            guard let context else { return }
            reader(context).refuseDeclaration("an entity")
        }
        handler.notationDecl = { context, _, _, _ in
            guard let context else { return }
            reader(context).refuseDeclaration("a notation")
        }
        handler.serror = { context, error in
            guard let context, let error else { return }
            reader(context).parserError(error)
        }
        return handler
    }
}

private func reader(_ context: UnsafeMutableRawPointer) -> XMLStoreReader {
    Unmanaged<XMLStoreReader>.fromOpaque(context).takeUnretainedValue()
}

/// libxml2's input callback: reads from the ``XMLFileInput`` passed as context.
private func inputReadCallback(_ context: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<CChar>?, _ count: Int32) -> Int32 {
    guard let context, let buffer else { return -1 }
    return Unmanaged<XMLFileInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, count: Int(count))
}

/// libxml2's close callback: the ``XMLFileInput`` closes its file itself.
private func inputCloseCallback(_ context: UnsafeMutableRawPointer?) -> Int32 { 0 }

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
