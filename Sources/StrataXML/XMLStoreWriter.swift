internal import CLibXML2
internal import Foundation
internal import Strata

/// Writes a whole store as XML with libxml2's `xmlTextWriter`, streaming through a buffered
/// file (``XMLFileOutput``): nothing but the current element is held in memory.
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
        let storeIdentifier = contents.metadata.storeIdentifier
        for entityName in contents.records.keys.sorted() {
            guard let entity = schema.entity(named: entityName) else {
                throw StrataError(.invalidData, "cannot write objects of entity '\(entityName)': the store's model '\(schema.name)' has no such entity")
            }
            let plan = EntityPlan(entity)
            let records = contents.records[entityName]!
            // Sort positions by key rather than the records themselves (moving records costs).
            var order: [(key: Int64, index: Dictionary<ObjectID, StoreRecord>.Index)] = []
            order.reserveCapacity(records.count)
            for index in records.indices {
                guard let key = records[index].key.primaryKey else {
                    throw StrataError(.invalidData, "cannot write \(records[index].key): its ID is temporary")
                }
                order.append((key, index))
            }
            order.sort { $0.key < $1.key }
            for (key, index) in order {
                try appendObject(records[index].value, key: key, plan: plan, storeIdentifier: storeIdentifier, contents: contents)
                if chunk.count >= Self.chunkSize { try flushChunk() }
            }
        }
        try flushChunk()
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
        try textElement(.nextObjectID, String((contents.keySequences.values.max() ?? 0) + 1))
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

    // Objects are serialized here, a chunk of them at a time, and handed to the xmlTextWriter
    // as raw text: making one libxml2 call per element and attribute cost ten times the plain
    // write of the same bytes. The bytes are the ones the writer's own calls would produce —
    // indentation, escaping, `<relationship …></relationship>` — and the golden files hold
    // them to that.

    /// The fixed parts of the objects of one entity, escaped once.
    private struct EntityPlan {
        struct Attribute {
            var name: String
            var type: AttributeType
            /// `    <attribute name="title" type="string"`
            var open: [UInt8]
        }

        struct Relationship {
            var name: String
            var isToMany: Bool
            var isOrdered: Bool
            /// `    <relationship name="tags" type="0/0" destination="Tag"`
            var open: [UInt8]
        }

        var entity: EntityDescription
        /// `  <object type="Todo" id="p`
        var open: [UInt8]
        var attributes: [Attribute]
        var relationships: [Relationship]

        init(_ entity: EntityDescription) {
            self.entity = entity
            open = Array("  <object type=\"\(escapedAttributeValue(entity.name))\" id=\"p".utf8)
            attributes = entity.attributes.filter { !$0.isTransient }.map { attribute in
                Attribute(
                    name: attribute.name, type: attribute.type,
                    open: Array("    <attribute name=\"\(escapedAttributeValue(attribute.name))\" type=\"\(attribute.type.rawValue)\"".utf8))
            }
            relationships = entity.relationships.map { relationship in
                let type = relationship.isToMany
                    ? "\(relationship.minCount)/\(relationship.maxCount)"
                    : (relationship.isOptional ? "0/1" : "1/1")
                return Relationship(
                    name: relationship.name, isToMany: relationship.isToMany, isOrdered: relationship.isOrdered,
                    open: Array("    <relationship name=\"\(escapedAttributeValue(relationship.name))\" type=\"\(type)\" destination=\"\(escapedAttributeValue(relationship.destination))\"".utf8))
            }
        }
    }

    private static let chunkSize = 1 << 16
    /// Serialized objects not yet handed to libxml2. Only this writer's own methods touch it,
    /// one at a time, never with an access held across a call that appends, so the runtime's
    /// exclusivity checks on every append prove nothing.
    @exclusivity(unchecked) private var chunk: [UInt8] = []

    private func flushChunk() throws(StrataError) {
        guard !chunk.isEmpty else { return }
        let result = chunk.withUnsafeBufferPointer { xmlTextWriterWriteRawLen(writer, $0.baseAddress, Int32($0.count)) }
        try check(result, "objects")
        chunk.removeAll(keepingCapacity: true)
    }

    private func appendObject(
        _ record: StoreRecord, key: Int64, plan: EntityPlan, storeIdentifier: String, contents: AtomicStoreContents
    ) throws(StrataError) {
        let id = record.objectID
        chunk.append(contentsOf: plan.open)
        appendDecimal(key, to: &chunk)
        chunk.append(contentsOf: #"">"#.utf8)
        chunk.append(0x0A)
        var written = 0
        for attribute in plan.attributes {
            guard let value = record.attributes[attribute.name] else { continue }
            written += 1
            let text: String?
            do {
                text = try XMLValueCoding.text(for: value, type: attribute.type)
            } catch {
                throw StrataError(.invalidData, "cannot write \(id).\(attribute.name): \(error.message)")
            }
            guard var text else {
                throw StrataError(.invalidData, "cannot write \(id).\(attribute.name): the model says \(attribute.type.rawValue), but the value is \(value)")
            }
            chunk.append(contentsOf: attribute.open)
            let scan = text.withUTF8 { Self.scan($0) }
            if scan.hasIllegalCharacter {
                guard attribute.type == .string else {
                    throw StrataError(.invalidData, "cannot write \(id).\(attribute.name): \(String(reflecting: text)) holds a character XML 1.0 cannot carry")
                }
                chunk.append(contentsOf: #" encoding="base64">"#.utf8)
                chunk.append(contentsOf: Data(text.utf8).base64EncodedString().utf8)
            } else {
                chunk.append(UInt8(ascii: ">"))
                text.withUTF8 { Self.appendEscapedText($0, needsEscaping: scan.needsEscaping, to: &chunk) }
            }
            chunk.append(contentsOf: "</attribute>\n".utf8)
        }
        if written != record.attributes.count {
            let unknown = record.attributes.keys.filter { plan.entity.attribute(named: $0).map { $0.isTransient } ?? true }.sorted()
            throw StrataError(.invalidData, "cannot write \(id): entity '\(plan.entity.name)' has no stored attribute '\(unknown.joined(separator: "', '"))'")
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
            chunk.append(contentsOf: relationship.open)
            if !members.isEmpty {
                chunk.append(contentsOf: #" idrefs=""#.utf8)
                for (index, member) in members.enumerated() {
                    guard let memberKey = member.primaryKey else {
                        throw StrataError(.invalidData, "cannot write \(id).\(relationship.name): it refers to \(member), whose ID is temporary")
                    }
                    if index > 0 { chunk.append(UInt8(ascii: " ")) }
                    if member.storeIdentifier != storeIdentifier || contents.record(member) == nil {
                        // An object no longer in the store: Entity.p12 (XMLStoreLayout).
                        chunk.append(contentsOf: escapedAttributeValue(member.entityName).utf8)
                        chunk.append(UInt8(ascii: "."))
                    }
                    chunk.append(UInt8(ascii: "p"))
                    appendDecimal(memberKey, to: &chunk)
                }
                chunk.append(UInt8(ascii: "\""))
            }
            chunk.append(contentsOf: "></relationship>\n".utf8)
        }
        if toOne != record.toOne.count || toMany != record.toMany.count {
            let unknownToOne = record.toOne.keys.filter { plan.entity.relationship(named: $0)?.isToMany != false }
            let unknownToMany = record.toMany.keys.filter { plan.entity.relationship(named: $0)?.isToMany != true }
            throw StrataError(.invalidData, "cannot write \(id): entity '\(plan.entity.name)' has no relationship '\((unknownToOne + unknownToMany).sorted().joined(separator: "', '"))' of that kind")
        }
        chunk.append(contentsOf: "  </object>\n".utf8)
    }

    /// Appends text content, escaping `&`, `<`, `>` and carriage returns (which a parser would
    /// turn into line feeds).
    private static func appendEscapedText(_ bytes: UnsafeBufferPointer<UInt8>, needsEscaping: Bool, to output: inout [UInt8]) {
        guard needsEscaping else {
            output.append(contentsOf: bytes)
            return
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case 0x0D: output.append(contentsOf: "&#13;".utf8)
            default: output.append(byte)
            }
        }
    }

    private func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
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
        let scan = text.withUTF8 { Self.scan($0) }
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
            var start = 0
            for index in bytes.indices {
                let escape: StaticString
                switch bytes[index] {
                case UInt8(ascii: "&"): escape = "&amp;"
                case UInt8(ascii: "<"): escape = "&lt;"
                case UInt8(ascii: ">"): escape = "&gt;"
                case 0x0D: escape = "&#13;"
                default: continue
                }
                try raw(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                try raw(UnsafeBufferPointer(start: escape.utf8Start, count: escape.utf8CodeUnitCount))
                start = index + 1
            }
            try raw(UnsafeBufferPointer(rebasing: bytes[start...]))
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

    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (needsEscaping: Bool, hasIllegalCharacter: Bool) {
        var needsEscaping = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0x0D:
                needsEscaping = true
            case 0x09, 0x0A:
                break
            case 0x00..<0x20:
                return (needsEscaping, true)
            case 0xEF:
                // U+FFFE and U+FFFF are EF BF BE and EF BF BF.
                if index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE {
                    return (needsEscaping, true)
                }
            default:
                break
            }
            index += 1
        }
        return (needsEscaping, false)
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
