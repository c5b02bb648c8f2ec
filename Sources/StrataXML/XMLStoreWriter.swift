internal import CLibXML2
internal import Foundation
internal import Strata

/// Writes a whole store as XML: the header with libxml2's `xmlTextWriter`, the objects
/// serialized straight into a buffer (``XMLByteSink``) in the bytes `xmlTextWriter` would write,
/// both streaming to a buffered file (``XMLFileOutput``): the text is never held in memory as a
/// whole.
///
/// Objects come in a fixed order (entity name, then primary key), attributes and relationships
/// in model order, unordered to-many members by key, so that the same contents always give the
/// same bytes. The writer refuses what its reader would refuse (a value of the wrong kind, an
/// int16 out of range), so a save never produces a file that cannot be opened.
///
/// Owns its `xmlTextWriterPtr` and frees it in `deinit`.
final class XMLStoreWriter {
    private let output: XMLFileOutput
    private let writer: OpaquePointer
    private let path: String

    init(path: String) throws(StrataError) {
        _ = LibXML2.initialized
        self.path = path
        output = try XMLFileOutput(creating: path)
        let context = Unmanaged.passUnretained(output).toOpaque()
        guard let buffer = xmlOutputBufferCreateIO(outputWriteCallback, outputCloseCallback, context, nil) else {
            throw StrataError(.storeIO, "libxml2 could not create an output buffer for '\(path)'")
        }
        guard let writer = xmlNewTextWriter(buffer) else {
            xmlOutputBufferClose(buffer)
            throw StrataError(.storeIO, "libxml2 could not create a writer for '\(path)'")
        }
        self.writer = writer
        xmlTextWriterSetIndent(writer, 1)
        xmlTextWriterSetIndentString(writer, "  ")
    }

    deinit {
        // Flushes into `output` (still alive here) and closes the output buffer.
        xmlFreeTextWriter(writer)
    }

    /// Writes the whole document and closes the file.
    func write(_ contents: AtomicStoreContents) throws(StrataError) {
        let schema = try contents.metadata.schema()
        try check(xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil), "the XML declaration")
        try start(.database)
        try writeDatabaseInfo(contents)
        // Everything so far goes to `output`; the objects follow it there straight from a
        // buffer of their own (see `appendObject`).
        try check(xmlTextWriterFlush(writer), "the document")
        let storeIdentifier = contents.metadata.storeIdentifier
        let (drained, wroteObjects) = try XMLByteSink.with(capacity: Self.bufferSize, drain: { [output] in output.writeThrough($0) }) {
            (sink: inout XMLByteSink) throws(StrataError) -> Bool in
            var wroteObjects = false
            // The keys of each destination's records, made once per entity.
            var recordKeys: [String: RecordKeySet] = [:]
            func keys(of entityName: String) -> RecordKeySet {
                if let keys = recordKeys[entityName] { return keys }
                let keys = RecordKeySet(contents.records[entityName], storeIdentifier: storeIdentifier)
                recordKeys[entityName] = keys
                return keys
            }
            for entityName in contents.records.keys.sorted() {
                guard let entity = schema.entity(named: entityName) else {
                    throw StrataError(.invalidData, "cannot write objects of entity '\(entityName)': the store's model '\(schema.name)' has no such entity")
                }
                let plan = EntityPlan(entity, destinationKeys: keys(of:))
                let records = contents.records[entityName]!
                let order = try AtomicStoreContents.keyOrder(records) { StrataError(.invalidData, "cannot write \($0): its ID is temporary") }
                for (key, index) in order {
                    try appendObject(records.values[index], key: key, plan: plan, storeIdentifier: storeIdentifier, contents: contents, to: &sink)
                    wroteObjects = true
                    // The file cannot be written: stop serializing (the caller throws).
                    if sink.failed { return wroteObjects }
                }
            }
            return wroteObjects
        }
        if !drained { throw output.failure ?? StrataError(.storeIO, "cannot write '\(path)'") }
        if wroteObjects {
            // What the writer's own raw write of the objects did to its state (no indentation
            // before the next end tag), so that the bytes stay the same.
            try check(xmlTextWriterWriteRawLen(writer, "", 0), "objects")
        }
        try end() // database
        try check(xmlTextWriterEndDocument(writer), "the end of the document")
        try check(xmlTextWriterFlush(writer), "the document")
        try output.finish()
    }

    // MARK: - Database info and metadata

    private func writeDatabaseInfo(_ contents: AtomicStoreContents) throws(StrataError) {
        let metadata = contents.metadata
        try start(.databaseInfo)
        try textElement(.version, String(XMLStoreLayout.version))
        try textElement(.uuid, metadata.storeIdentifier)
        // One more than the last key handed out (which cannot pass Int64.max).
        let lastKey = contents.keySequences.values.max() ?? 0
        try textElement(.nextObjectID, String(lastKey == .max ? lastKey : lastKey + 1))
        try start(.metadata)
        try textElement(.storeType, metadata.storeType.rawValue)
        try textElement(.modelName, metadata.modelName)
        try textElement(.modelVersionHash, metadata.modelVersionHash)
        try start(.entityVersionHashes)
        for entity in metadata.entityVersionHashes.keys.sorted() {
            try textElement(.entityVersionHash, metadata.entityVersionHashes[entity]!, entity: entity)
        }
        try end()
        if !contents.keySequences.isEmpty {
            try start(.keySequences)
            for root in contents.keySequences.keys.sorted() {
                try textElement(.keySequence, String(contents.keySequences[root]!), entity: root)
            }
            try end()
        }
        if !metadata.custom.isEmpty {
            try start(.custom)
            for key in metadata.custom.keys.sorted() {
                try start(.entry)
                try textElement(.key, key)
                try textElement(.value, metadata.custom[key]!)
                try end()
            }
            try end()
        }
        try textElement(.schema, metadata.schemaJSON)
        try end() // metadata
        try end() // databaseInfo
    }

    // MARK: - Objects

    // Objects are serialized straight into a buffer of their own (XMLByteSink) that goes to
    // the file after everything libxml2's writer produced so far: one libxml2 call per element
    // and attribute cost ten times the plain write of the same bytes, and passing the text
    // through libxml2's buffers copied it twice more. The bytes are the ones the writer's own
    // calls would produce — indentation, escaping, `<relationship …></relationship>` — and the
    // golden files hold them to that.

    /// The fixed parts of the objects of one entity, escaped once, in one block of bytes that
    /// serializing an object reads without reference counting.
    private final class EntityPlan {
        struct Attribute {
            var type: AttributeType
            /// `    <attribute name="title" type="string"`, followed in ``text`` by `>`.
            var open: Range<Int>
            /// `open` and `>`.
            var openTag: Range<Int> { open.lowerBound..<(open.upperBound + 1) }
        }

        struct Relationship {
            var name: String
            var isToMany: Bool
            var isOrdered: Bool
            var destination: String
            /// The keys of the destination's records in the file.
            var destinationKeys: RecordKeySet
            /// `    <relationship name="tags" type="0/0" destination="Tag"`
            var open: Range<Int>
        }

        let entity: EntityDescription
        /// `  <object type="Todo" id="p`
        let open: Range<Int>
        /// The stored attributes in model order.
        let attributes: [Attribute]
        let attributeNames: [String]
        /// The position of each attribute in `attributes`, by name.
        let attributeSlots: NameSlotTable
        let relationships: [Relationship]
        private let text: UnsafeMutableRawBufferPointer

        /// The entity's `AttributeValues.Layout` (records from stores and contexts have it), the
        /// position in it of each of `attributes`, and the positions of transient attributes.
        let layout: AttributeValues.Layout
        let positions: [Int]
        let transientPositions: [Int]
        /// The same for the last record of another layout (one built from a dictionary):
        /// `mappedPositions` has -1 for an attribute the layout lacks, and `mappedUnknown` the
        /// positions of names that are no stored attribute. Only ``map(_:)`` changes them.
        @exclusivity(unchecked) private(set) var mappedLayout: AttributeValues.Layout?
        @exclusivity(unchecked) private(set) var mappedPositions: [Int] = []
        @exclusivity(unchecked) private(set) var mappedUnknown: [Int] = []

        init(_ entity: EntityDescription, destinationKeys: (String) -> RecordKeySet) {
            self.entity = entity
            var text: [UInt8] = []
            func add(_ piece: String) -> Range<Int> {
                let start = text.count
                text += piece.utf8
                return start..<text.count
            }
            open = add("  <object type=\"\(escapedAttributeValue(entity.name))\" id=\"p")
            let stored = entity.attributes.filter { !$0.isTransient }
            attributes = stored.map { attribute in
                let open = add("    <attribute name=\"\(escapedAttributeValue(attribute.name))\" type=\"\(attribute.type.rawValue)\"")
                _ = add(">")
                return Attribute(type: attribute.type, open: open)
            }
            attributeNames = stored.map(\.name)
            attributeSlots = NameSlotTable(attributeNames)
            layout = entity.attributeLayout
            positions = attributeNames.map { entity.attributeLayout.position(of: $0)! }
            transientPositions = entity.transientAttributePositions
            relationships = entity.relationships.map { relationship in
                let type = relationship.isToMany
                    ? "\(relationship.minCount)/\(relationship.maxCount)"
                    : (relationship.isOptional ? "0/1" : "1/1")
                return Relationship(
                    name: relationship.name, isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                    destination: relationship.destination, destinationKeys: destinationKeys(relationship.destination),
                    open: add("    <relationship name=\"\(escapedAttributeValue(relationship.name))\" type=\"\(type)\" destination=\"\(escapedAttributeValue(relationship.destination))\""))
            }
            self.text = .allocate(byteCount: text.count, alignment: 1)
            self.text.copyBytes(from: text)
        }

        deinit { text.deallocate() }

        func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: text[range])
        }

        /// Whether `layout` is the entity's (use `positions` and `transientPositions`);
        /// otherwise `mappedPositions` and `mappedUnknown` are set for it, each name found
        /// without hashing (``NameSlotTable``) and kept for the next record of that layout.
        func map(_ layout: AttributeValues.Layout) -> Bool {
            if layout === self.layout { return true }
            if layout === mappedLayout { return false }
            if mappedPositions.count != attributes.count { mappedPositions = Array(repeating: -1, count: attributes.count) }
            for slot in mappedPositions.indices { mappedPositions[slot] = -1 }
            mappedUnknown.removeAll(keepingCapacity: true)
            for (position, name) in layout.names.enumerated() {
                if let slot = attributeSlots.slot(of: name) {
                    mappedPositions[slot] = position
                } else {
                    mappedUnknown.append(position)
                }
            }
            mappedLayout = layout
            return false
        }
    }

    /// The buffer objects are serialized into, as large as the file's own.
    private static let bufferSize = 1 << 20

    /// Appends one `<object>`.
    private func appendObject(
        _ record: StoreRecord, key: Int64, plan: EntityPlan, storeIdentifier: String, contents: AtomicStoreContents,
        to sink: inout XMLByteSink
    ) throws(StrataError) {
        sink.append(plan.bytes(plan.open))
        sink.appendDecimal(key)
        sink.append("\">\n")
        // The values by position, in model order: no name is looked up (hashing each name cost
        // a quarter of a save).
        let attributes = record.attributes
        let isEntityLayout = plan.map(attributes.layout)
        let positions = isEntityLayout ? plan.positions : plan.mappedPositions
        for slot in positions.indices {
            let position = positions[slot]
            guard position >= 0, let value = attributes[position: position] else { continue }
            try appendAttribute(value, slot, of: plan, record: record, to: &sink)
        }
        for position in isEntityLayout ? plan.transientPositions : plan.mappedUnknown where attributes[position: position] != nil {
            let unknown = attributes.keys.filter { plan.entity.attribute(named: $0).map { $0.isTransient } ?? true }.sorted()
            throw StrataError(.invalidData, "cannot write \(record.objectID): entity '\(plan.entity.name)' has no stored attribute '\(unknown.joined(separator: "', '"))'")
        }
        var toOne = 0
        var toMany = 0
        for relationship in plan.relationships {
            let members: [ObjectID]
            if relationship.isToMany {
                let stored = record.toMany[relationship.name]
                if stored != nil { toMany += 1 }
                members = relationship.isOrdered ? stored ?? [] : (stored ?? []).sorted()
            } else {
                members = record.toOne[relationship.name].map { [$0] } ?? []
                if !members.isEmpty { toOne += 1 }
            }
            sink.append(plan.bytes(relationship.open))
            if !members.isEmpty {
                sink.append(" idrefs=\"")
                for (index, member) in members.enumerated() {
                    guard let memberKey = member.primaryKey else {
                        throw StrataError(.invalidData, "cannot write \(record.objectID).\(relationship.name): it refers to \(member), whose ID is temporary")
                    }
                    if index > 0 { sink.append(UInt8(ascii: " ")) }
                    let held = member.entityName == relationship.destination
                        ? relationship.destinationKeys.contains(memberKey) : contents.contains(member)
                    if member.storeIdentifier != storeIdentifier || !held {
                        // An object no longer in the store: Entity.p12 (XMLStoreLayout).
                        sink.write(escapedAttributeValue(member.entityName))
                        sink.append(UInt8(ascii: "."))
                    }
                    sink.append(UInt8(ascii: "p"))
                    sink.appendDecimal(memberKey)
                }
                sink.append(UInt8(ascii: "\""))
            }
            sink.append("></relationship>\n")
        }
        if toOne != record.toOne.count || toMany != record.toMany.count {
            let unknownToOne = record.toOne.keys.filter { plan.entity.relationship(named: $0)?.isToMany != false }
            let unknownToMany = record.toMany.keys.filter { plan.entity.relationship(named: $0)?.isToMany != true }
            throw StrataError(.invalidData, "cannot write \(record.objectID): entity '\(plan.entity.name)' has no relationship '\((unknownToOne + unknownToMany).sorted().joined(separator: "', '"))' of that kind")
        }
        sink.append("  </object>\n")
    }

    /// `<attribute name="…" type="…">text</attribute>` and a line feed, for the attribute in
    /// `slot` of the plan.
    private func appendAttribute(
        _ value: AttributeValue, _ slot: Int, of plan: EntityPlan, record: StoreRecord, to sink: inout XMLByteSink
    ) throws(StrataError) {
        let attribute = plan.attributes[slot]
        switch (attribute.type, value) {
        case (.string, .string(let text)):
            try appendText(text, slot, of: plan, record: record, to: &sink)
        case (.uri, .uri(let url)):
            try appendText(url.absoluteString, slot, of: plan, record: record, to: &sink)
        default:
            sink.append(plan.bytes(attribute.openTag))
            let matches: Bool
            do {
                matches = try XMLValueCoding.append(value, type: attribute.type, to: &sink)
            } catch {
                throw StrataError(.invalidData, "cannot write \(record.objectID).\(plan.attributeNames[slot]): \(error.message)")
            }
            guard matches else {
                throw StrataError(.invalidData, "cannot write \(record.objectID).\(plan.attributeNames[slot]): the model says \(attribute.type.rawValue), but the value is \(value)")
            }
        }
        sink.append("</attribute>\n")
    }

    /// The content of a `string` or `uri` attribute: escaped, or base64 with
    /// `encoding="base64"` when it holds a character XML 1.0 cannot carry (strings only).
    private func appendText(
        _ text: String, _ slot: Int, of plan: EntityPlan, record: StoreRecord, to sink: inout XMLByteSink
    ) throws(StrataError) {
        let attribute = plan.attributes[slot]
        var text = text
        let illegal = text.withUTF8 { bytes in
            let scan = XMLByteSink.scan(bytes)
            if scan.hasIllegalCharacter {
                guard attribute.type == .string else { return true }
                sink.append(plan.bytes(attribute.open))
                sink.append(#" encoding="base64">"#)
                sink.appendBase64(UnsafeRawBufferPointer(bytes))
            } else {
                sink.append(plan.bytes(attribute.openTag))
                sink.appendText(bytes, scan)
            }
            return false
        }
        if illegal {
            throw StrataError(.invalidData, "cannot write \(record.objectID).\(plan.attributeNames[slot]): \(String(reflecting: text)) holds a character XML 1.0 cannot carry")
        }
    }

    // MARK: - libxml2 calls

    private func start(_ element: XMLStoreLayout.Element) throws(StrataError) {
        try check(xmlTextWriterStartElement(writer, element.name.utf8Start), "<\(element.name)>")
    }

    private func end() throws(StrataError) {
        try check(xmlTextWriterEndElement(writer), "an end tag")
    }

    private func attribute(_ attribute: XMLStoreLayout.Attribute, _ value: String) throws(StrataError) {
        try check(xmlTextWriterWriteAttribute(writer, attribute.name.utf8Start, value), "the attribute \(attribute.name)")
    }


    /// An element holding text, with an optional `entity` attribute.
    private func textElement(_ element: XMLStoreLayout.Element, _ text: String, entity: String? = nil) throws(StrataError) {
        try start(element)
        if let entity { try attribute(.entity, entity) }
        try content(text, base64Attribute: element.allowsEncoding)
        try end()
    }

    /// Writes text content, escaping `&`, `<`, `>` and carriage returns (which a parser would
    /// turn into line feeds). Text holding a character XML 1.0 cannot carry is written as
    /// base64 with `encoding="base64"` where the element allows it.
    private func content(_ text: String, base64Attribute: Bool) throws(StrataError) {
        var text = text
        let scan = text.withUTF8 { XMLByteSink.scan($0) }
        if scan.hasIllegalCharacter {
            guard base64Attribute else {
                throw StrataError(.invalidData, "cannot write \(String(reflecting: text)) to an XML store: it holds a character XML 1.0 cannot carry")
            }
            try attribute(.encoding, "base64")
            var encoded = Data(text.utf8).base64EncodedString()
            try Self.withBytes(of: &encoded) { bytes throws(StrataError) in try raw(bytes) }
            return
        }
        if text.isEmpty {
            // Closes the start tag so that the element is written `<a></a>`, not `<a/>`.
            try check(xmlTextWriterWriteRawLen(writer, "", 0), "text")
            return
        }
        try Self.withBytes(of: &text) { bytes throws(StrataError) in
            guard scan.needsEscaping else { return try raw(bytes) }
            var escaped: [UInt8] = []
            _ = XMLByteSink.with(capacity: 1 << 16, drain: { escaped.append(contentsOf: $0); return true }) { sink in
                sink.appendText(bytes, scan)
            }
            try escaped.withUnsafeBufferPointer { escaped throws(StrataError) in try raw(escaped) }
        }
    }

    /// `String.withUTF8` for a body with a typed throw (`withUTF8` only rethrows `any Error`).
    private static func withBytes(
        of text: inout String, _ body: (UnsafeBufferPointer<UInt8>) throws(StrataError) -> Void
    ) throws(StrataError) {
        var failure: StrataError?
        text.withUTF8 { bytes in
            do throws(StrataError) { try body(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func raw(_ bytes: UnsafeBufferPointer<UInt8>) throws(StrataError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        try check(xmlTextWriterWriteRawLen(writer, base, Int32(bytes.count)), "text")
    }

    private func check(_ result: Int32, _ what: @autoclosure () -> String) throws(StrataError) {
        guard result >= 0 else {
            throw output.failure ?? StrataError(.storeIO, "libxml2 could not write \(what()) to '\(path)'")
        }
    }
}

/// An XML attribute value escaped as libxml2's writer escapes one (`xmlBufAttrSerializeTxtContent`):
/// names never need it, but a written file must not depend on that.
private func escapedAttributeValue(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "\t": result += "&#9;"
        case "\n": result += "&#10;"
        case "\r": result += "&#13;"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

/// libxml2's output callback: appends to the ``XMLFileOutput`` passed as context.
private func outputWriteCallback(_ context: UnsafeMutableRawPointer?, _ bytes: UnsafePointer<CChar>?, _ count: Int32) -> Int32 {
    guard let context, let bytes else { return -1 }
    let output = Unmanaged<XMLFileOutput>.fromOpaque(context).takeUnretainedValue()
    return output.append(UnsafeRawBufferPointer(start: bytes, count: Int(count))) ? count : -1
}

/// libxml2's close callback: the ``XMLFileOutput`` closes its file itself.
private func outputCloseCallback(_ context: UnsafeMutableRawPointer?) -> Int32 { 0 }
