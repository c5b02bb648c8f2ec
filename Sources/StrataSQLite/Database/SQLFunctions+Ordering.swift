internal import CSQLite
internal import Foundation
internal import Strata

/// A function and a collation that order and compare any value exactly as the evaluator's sort
/// order does (``FetchSortDescriptor``, ascending, default string comparison), whatever mix of
/// storage classes it comes in: the results of `@sum` (integers, reals, `'NaN'`, decimal
/// text), of `@avg`, `@min` and `@max`, which no native collation orders as the evaluator does.
///
/// - `strata_key(kind, value)`: a text standing for the value and its ``ValueKind``; NULL for NULL.
/// - `COLLATE strata_value`: orders those texts by the values they stand for; two values the
///   evaluator finds equal are equal (GROUP BY and DISTINCT put them together).
///
/// `ORDER BY strata_key(k, x) COLLATE strata_value` sorts like the evaluator (NULL first).
extension SQLFunctions {
    static let valueCollation = "strata_value"

    static func registerOrdering(on database: Database) throws(StrataError) {
        let db = database.handle
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        var rc = sqlite3_create_function_v2(db, "strata_key", 2, flags, nil, sortKey, nil, nil, nil)
        if rc == SQLITE_OK {
            rc = sqlite3_create_collation_v2(db, valueCollation, SQLITE_UTF8, nil, compareKeys, nil)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: nil) }
    }

    /// The text `strata_key` makes: the kind, a storage tag and the value, losslessly.
    static func key(kind: Int64, _ value: SQLValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let v): return "\(kind)|i\(v)"
        case .real(let v): return "\(kind)|r\(String(v.bitPattern, radix: 16))"
        case .text(let v): return "\(kind)|t\(v)"
        case .blob(let v): return "\(kind)|b\(v.map { String(format: "%02x", $0) }.joined())"
        }
    }

    /// The predicate value a `strata_key` text stands for.
    static func value(ofKey key: String) -> PredicateValue {
        guard let bar = key.firstIndex(of: "|"), let raw = Int64(key[..<bar]), let kind = ValueKind(rawValue: raw) else { return .null }
        let rest = key[key.index(after: bar)...]
        guard let tag = rest.first else { return .null }
        let payload = String(rest.dropFirst())
        let stored: SQLValue
        switch tag {
        case "i": stored = Int64(payload).map { .integer($0) } ?? .null
        case "r": stored = UInt64(payload, radix: 16).map { .real(Double(bitPattern: $0)) } ?? .null
        case "t": stored = .text(payload)
        case "b":
            var bytes: [UInt8] = []
            var index = payload.startIndex
            while index < payload.endIndex, let next = payload.index(index, offsetBy: 2, limitedBy: payload.endIndex) {
                bytes.append(UInt8(payload[index..<next], radix: 16) ?? 0)
                index = next
            }
            stored = .blob(Data(bytes))
        default: stored = .null
        }
        return ValueCodec.decode(stored, as: kind)
    }

    static let ascending = FetchSortDescriptor("")
}

private func sortKey(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let arguments else { return }
    let kind = sqlite3_value_int64(arguments[0])
    guard let key = SQLFunctions.key(kind: kind, SQLFunctions.value(arguments[1])) else {
        sqlite3_result_null(context)
        return
    }
    SQLFunctions.result(context, .text(key))
}

private func compareKeys(_: UnsafeMutableRawPointer?, _ count1: Int32, _ bytes1: UnsafeRawPointer?, _ count2: Int32, _ bytes2: UnsafeRawPointer?) -> Int32 {
    let a = SQLFunctions.value(ofKey: SQLFunctions.string(count1, bytes1))
    let b = SQLFunctions.value(ofKey: SQLFunctions.string(count2, bytes2))
    return Int32(SQLFunctions.ascending.compare(a, b))
}
