import Foundation
// Internal access for one thing only: building permanent `ObjectID`s while reading a file.
@testable import Strata

/// A file format for `AtomicStore` that exists only for the conformance suite: a marker line,
/// then JSON. Every value is written exactly (doubles, floats and dates by bit pattern), so
/// the format itself never explains away a failed round trip.
struct TestJSONFormat: AtomicStoreFormat {
    static let fileExtension = "stratatest"
    private static let marker = Data("STRATA-TEST-JSON\n".utf8)

    var type: StoreType { "test-json" }
    var fileExtensions: [String] { [Self.fileExtension] }

    func recognizes(header: Data) -> Bool {
        header.starts(with: Self.marker)
    }

    func read(from url: URL) throws(StrataError) -> AtomicStoreContents {
        let file = try decode(url)
        let storeID = file.metadata.storeIdentifier
        var records: [String: [ObjectID: StoreRecord]] = [:]
        for entry in file.records {
            func id(_ reference: FileID) -> ObjectID {
                ObjectID(entityName: reference.entity, storeIdentifier: storeID, primaryKey: reference.key)
            }
            var attributes: AttributeValues = [:]
            for (key, value) in entry.attributes { attributes[key] = try value.attributeValue() }
            let record = StoreRecord(
                objectID: id(entry.id), attributes: attributes, toOne: entry.toOne.mapValues(id),
                toMany: entry.toMany.mapValues { $0.map(id) }, version: entry.version)
            records[entry.id.entity, default: [:]][record.objectID] = record
        }
        return AtomicStoreContents(metadata: file.metadata, records: records, keySequences: file.keySequences)
    }

    func readMetadata(from url: URL) throws(StrataError) -> StoreMetadata {
        try decode(url).metadata
    }

    func write(_ contents: AtomicStoreContents, to url: URL) throws(StrataError) {
        func reference(_ id: ObjectID) -> FileID { FileID(entity: id.entityName, key: id.primaryKey ?? -1) }
        let file = File(
            metadata: contents.metadata, keySequences: contents.keySequences,
            records: contents.orderedRecords.map { record in
                FileRecord(
                    id: reference(record.objectID), version: record.version,
                    attributes: record.attributes.dictionary.mapValues(FileValue.init),
                    toOne: record.toOne.mapValues(reference), toMany: record.toMany.mapValues { $0.map(reference) })
            })
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try (Self.marker + encoder.encode(file)).write(to: url)
        } catch {
            throw StrataError(.storeIO, "cannot write \(url.path): \(error)")
        }
    }

    private func decode(_ url: URL) throws(StrataError) -> File {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw StrataError(.storeIO, "cannot read \(url.path): \(error)")
        }
        guard data.starts(with: Self.marker) else {
            throw StrataError(.corruptStore, "\(url.path) is not a test-json store")
        }
        do {
            return try JSONDecoder().decode(File.self, from: data.dropFirst(Self.marker.count))
        } catch {
            throw StrataError(.corruptStore, "\(url.path): \(error)")
        }
    }

    private struct File: Codable {
        var metadata: StoreMetadata
        var keySequences: [String: Int64]
        var records: [FileRecord]
    }

    private struct FileID: Codable {
        var entity: String
        var key: Int64
    }

    private struct FileRecord: Codable {
        var id: FileID
        var version: Int64
        var attributes: [String: FileValue]
        var toOne: [String: FileID]
        var toMany: [String: [FileID]]
    }

    /// A value as a kind and an exact text.
    private struct FileValue: Codable {
        var kind: String
        var text: String

        init(_ value: AttributeValue) {
            switch value {
            case .string(let v): (kind, text) = ("string", v)
            case .integer(let v): (kind, text) = ("integer", String(v))
            case .decimal(let v): (kind, text) = ("decimal", v.description)
            case .double(let v): (kind, text) = ("double", String(v.bitPattern))
            case .float(let v): (kind, text) = ("float", String(v.bitPattern))
            case .bool(let v): (kind, text) = ("bool", String(v))
            case .date(let v): (kind, text) = ("date", String(v.timeIntervalSinceReferenceDate.bitPattern))
            case .binary(let v): (kind, text) = ("binary", v.base64EncodedString())
            case .uuid(let v): (kind, text) = ("uuid", v.uuidString)
            case .uri(let v): (kind, text) = ("uri", v.absoluteString)
            }
        }

        func attributeValue() throws(StrataError) -> AttributeValue {
            let value: AttributeValue? = switch kind {
            case "string": .string(text)
            case "integer": Int64(text).map { .integer($0) }
            case "decimal": Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) }
            case "double": UInt64(text).map { .double(Double(bitPattern: $0)) }
            case "float": UInt32(text).map { .float(Float(bitPattern: $0)) }
            case "bool": Bool(text).map { .bool($0) }
            case "date": UInt64(text).map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
            case "binary": Data(base64Encoded: text).map { .binary($0) }
            case "uuid": UUID(uuidString: text).map { .uuid($0) }
            case "uri": URL(string: text).map { .uri($0) }
            default: nil
            }
            guard let value else { throw StrataError(.corruptStore, "bad \(kind) value \(String(reflecting: text))") }
            return value
        }
    }
}
