public import Foundation
internal import Strata

/// A property-list value, as Core Data keeps its store metadata (`NSStoreModelVersionHashes`,
/// `NSStoreUUID`, `NSPersistenceFrameworkVersion`, an app's own keys).
public indirect enum CoreDataPropertyList: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case array([CoreDataPropertyList])
    case dictionary([String: CoreDataPropertyList])

    /// The value as one line of text, for a Strata store's custom metadata (strings): a string
    /// as it is, numbers and booleans as written, a date in ISO 8601, data in base64, and arrays
    /// and dictionaries as JSON with sorted keys (data in them as base64 strings).
    public var text: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .real(let value): value.description
        case .bool(let value): value ? "true" : "false"
        case .date(let value): ISO8601DateFormatter().string(from: value)
        case .data(let value): value.base64EncodedString()
        case .array, .dictionary: json
        }
    }

    /// The value as JSON, for arrays and dictionaries.
    private var json: String {
        JSONWriter(sortKeys: true, pretty: false).string(from: jsonValue)
    }

    private var jsonValue: JSONValue {
        switch self {
        case .array(let values): .array(values.map { JSONNode($0.jsonValue) })
        case .dictionary(let values): .object(values.map { JSONMember(key: $0.key, value: JSONNode($0.value.jsonValue)) })
        case .integer, .real: .number(text)
        case .bool(let value): .bool(value)
        case .string, .date, .data: .string(text)
        }
    }
}
