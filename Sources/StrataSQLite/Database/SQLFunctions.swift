internal import CSQLite
internal import Foundation
internal import Strata
internal import StrataSQL

/// The collations and functions every connection gets, so that SQL compares exactly as the
/// in-memory evaluator does. Each one calls the same Swift code the evaluator calls
/// (`StringMatching`, `PredicateEvaluator.compare`, `PredicateEvaluator.order`).
///
/// They are for queries only: the schema never names them (indexes hold the shadow columns'
/// keys, ``ComparisonKey``), so that tools without them — the `sqlite3` shell — can check,
/// vacuum, reindex and edit a store. Queries use them where no key column is at hand: folded
/// strings (`[c]`, `[d]`), aggregates, string operators and mixed kinds.
///
/// - `COLLATE strata`: Swift `String` order (`StringMatching.compare`, canonical equivalence).
/// - `COLLATE strata_localized`: `StringMatching.localizedStandardCompare`.
/// - `COLLATE strata_decimal`: decimal TEXT by numeric value.
/// - `strata_fold(text, options)`: `StringMatching.fold` (`[c]`, `[d]`).
/// - `strata_compare(op, options, kind, value, kind, value)`: `PredicateEvaluator.compare` on
///   the two values decoded by kind (``ValueKind``); always 0 or 1, never NULL. A `MATCHES`
///   the regex engine cannot decide fails the statement with the evaluator's error (kept in
///   ``Database/functionError``).
/// - `strata_aggregate(op, kind, value)`: `@sum`, `@avg`, `@min`, `@max`, `median:`,
///   `stddev:` and a count as the evaluator computes them (nil members skipped, integers exact
///   while they fit, …); with ``distinctFlag`` added to `op`, over the distinct values only
///   (`@distinctUnionOfObjects`).
/// - `strata_function(function, kind, value, …)`: ``PredicateFunction/apply(_:)`` on the values
///   decoded by kind, the function given by its position in `PredicateFunction.allCases`; the
///   result stored as its kind is (``ValueCodec/encode(_:)``).
enum SQLFunctions {
    static let collation = "strata"
    static let localizedCollation = "strata_localized"
    static let decimalCollation = "strata_decimal"

    /// The operators of `strata_compare`, by position.
    static let operators = ComparisonOperator.allCases

    static func code(_ op: ComparisonOperator) -> Int {
        SQLAggregate.code(op)
    }

    typealias Aggregate = SQLAggregate

    /// Added to an aggregate's code: over distinct values.
    static let distinctFlag = SQLAggregate.distinctFlag

    static func register(on database: Database) throws(StrataError) {
        let db = database.handle
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        var rc = sqlite3_create_collation_v2(db, collation, SQLITE_UTF8, nil, compareStrings, nil)
        if rc == SQLITE_OK {
            rc = sqlite3_create_collation_v2(db, localizedCollation, SQLITE_UTF8, nil, compareLocalized, nil)
        }
        if rc == SQLITE_OK {
            rc = sqlite3_create_collation_v2(db, decimalCollation, SQLITE_UTF8, nil, compareDecimals, nil)
        }
        if rc == SQLITE_OK {
            rc = sqlite3_create_function_v2(db, "strata_fold", 2, flags, nil, fold, nil, nil, nil)
        }
        if rc == SQLITE_OK {
            // The connection is the function's user data, for reporting errors; it outlives
            // the function, which dies with its handle.
            rc = sqlite3_create_function_v2(
                db, "strata_compare", 6, flags, Unmanaged.passUnretained(database).toOpaque(), compare, nil, nil, nil)
        }
        if rc == SQLITE_OK {
            rc = sqlite3_create_function_v2(db, "strata_aggregate", 3, flags, nil, nil, aggregateStep, aggregateFinal, nil)
        }
        if rc == SQLITE_OK {
            rc = sqlite3_create_function_v2(db, "strata_function", -1, flags, nil, function, nil, nil, nil)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: nil) }
    }

    // MARK: - Reading arguments

    static func value(_ argument: OpaquePointer?) -> SQLValue {
        switch sqlite3_value_type(argument) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_value_int64(argument))
        case SQLITE_FLOAT:
            return .real(sqlite3_value_double(argument))
        case SQLITE_TEXT:
            return .text(text(argument))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(argument))
            guard count > 0, let bytes = sqlite3_value_blob(argument) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default:
            return .null
        }
    }

    static func text(_ argument: OpaquePointer?) -> String {
        guard let bytes = sqlite3_value_text(argument) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(argument))), as: UTF8.self)
    }

    static func result(_ context: OpaquePointer?, _ value: SQLValue) {
        switch value {
        case .null: sqlite3_result_null(context)
        case .integer(let v): sqlite3_result_int64(context, v)
        case .real(let v): sqlite3_result_double(context, v)
        case .text(let v): sqlite3_result_text(context, v, -1, sqliteTransient)
        case .blob(let v):
            if v.isEmpty {
                sqlite3_result_zeroblob(context, 0)
            } else {
                v.withUnsafeBytes { sqlite3_result_blob(context, $0.baseAddress, Int32($0.count), sqliteTransient) }
            }
        }
    }

    static func string(_ count: Int32, _ bytes: UnsafeRawPointer?) -> String {
        guard let bytes, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }
}

// MARK: - Collations

/// Swift `String` order. ASCII strings compare byte by byte (the same order, and much faster);
/// anything else goes through `StringMatching.compare` (canonical equivalence).
private func compareStrings(_: UnsafeMutableRawPointer?, _ count1: Int32, _ bytes1: UnsafeRawPointer?, _ count2: Int32, _ bytes2: UnsafeRawPointer?) -> Int32 {
    let a = UnsafeRawBufferPointer(start: bytes1, count: Int(max(count1, 0)))
    let b = UnsafeRawBufferPointer(start: bytes2, count: Int(max(count2, 0)))
    if a.allSatisfy({ $0 < 0x80 }) && b.allSatisfy({ $0 < 0x80 }) {
        let common = min(a.count, b.count)
        if common > 0, let p = a.baseAddress, let q = b.baseAddress {
            let order = memcmp(p, q, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : a.count < b.count ? -1 : 1
    }
    return Int32(StringMatching.compare(SQLFunctions.string(count1, bytes1), SQLFunctions.string(count2, bytes2), []))
}

private func compareLocalized(_: UnsafeMutableRawPointer?, _ count1: Int32, _ bytes1: UnsafeRawPointer?, _ count2: Int32, _ bytes2: UnsafeRawPointer?) -> Int32 {
    Int32(StringMatching.localizedStandardCompare(SQLFunctions.string(count1, bytes1), SQLFunctions.string(count2, bytes2)))
}

private func compareDecimals(_: UnsafeMutableRawPointer?, _ count1: Int32, _ bytes1: UnsafeRawPointer?, _ count2: Int32, _ bytes2: UnsafeRawPointer?) -> Int32 {
    let a = ValueCodec.decimal(SQLFunctions.string(count1, bytes1))
    let b = ValueCodec.decimal(SQLFunctions.string(count2, bytes2))
    switch (a, b) {
    case (let x?, let y?): return x == y ? 0 : x < y ? -1 : 1
    case (nil, nil): return 0
    case (nil, _): return 1
    case (_, nil): return -1
    }
}

// MARK: - Functions

private func fold(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let arguments, sqlite3_value_type(arguments[0]) != SQLITE_NULL else {
        sqlite3_result_null(context)
        return
    }
    let options = ComparisonOptions(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int64(arguments[1])))
    SQLFunctions.result(context, .text(StringMatching.fold(SQLFunctions.text(arguments[0]), options)))
}

private func compare(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let arguments else { return }
    let index = Int(sqlite3_value_int64(arguments[0]))
    let options = ComparisonOptions(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int64(arguments[1])))
    guard SQLFunctions.operators.indices.contains(index),
          let leftKind = ValueKind(rawValue: sqlite3_value_int64(arguments[2])),
          let rightKind = ValueKind(rawValue: sqlite3_value_int64(arguments[4]))
    else {
        sqlite3_result_error(context, "strata_compare: bad operator or kind", -1)
        return
    }
    let left = ValueCodec.decode(SQLFunctions.value(arguments[3]), as: leftKind)
    let right = ValueCodec.decode(SQLFunctions.value(arguments[5]), as: rightKind)
    do {
        let holds = try PredicateEvaluator<Never>.compare(left, SQLFunctions.operators[index], right, options)
        sqlite3_result_int64(context, holds ? 1 : 0)
    } catch {
        if let database = sqlite3_user_data(context) {
            Unmanaged<Database>.fromOpaque(database).takeUnretainedValue().functionError = error
        }
        sqlite3_result_error(context, error.message, -1)
    }
}

/// `strata_function(function, kind, value, …)`: arguments come in pairs after the function.
private func function(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let arguments, count >= 1, count % 2 == 1 else {
        sqlite3_result_error(context, "strata_function: bad arguments", -1)
        return
    }
    let index = Int(sqlite3_value_int64(arguments[0]))
    guard PredicateFunction.allCases.indices.contains(index) else {
        sqlite3_result_error(context, "strata_function: bad function", -1)
        return
    }
    var values: [PredicateValue] = []
    for pair in stride(from: 1, to: Int(count), by: 2) {
        guard let kind = ValueKind(rawValue: sqlite3_value_int64(arguments[pair])) else {
            sqlite3_result_error(context, "strata_function: bad kind", -1)
            return
        }
        values.append(ValueCodec.decode(SQLFunctions.value(arguments[pair + 1]), as: kind))
    }
    SQLFunctions.result(context, ValueCodec.encode(PredicateFunction.allCases[index].apply(values)))
}

/// The state of one `strata_aggregate` call: its operation and the non-nil values seen.
private final class AggregateState {
    var operation: SQLFunctions.Aggregate?
    var distinct = false
    var values: [PredicateValue] = []
}

private func aggregateStep(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let arguments,
          let slot = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size))?
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    else {
        sqlite3_result_error_nomem(context)
        return
    }
    let state: AggregateState
    if let existing = slot.pointee {
        state = Unmanaged<AggregateState>.fromOpaque(existing).takeUnretainedValue()
    } else {
        state = AggregateState()
        slot.pointee = Unmanaged.passRetained(state).toOpaque()
    }
    let code = Int(sqlite3_value_int64(arguments[0]))
    state.operation = SQLFunctions.Aggregate(rawValue: code % SQLFunctions.distinctFlag)
    state.distinct = code >= SQLFunctions.distinctFlag
    guard let kind = ValueKind(rawValue: sqlite3_value_int64(arguments[1])) else { return }
    let value = ValueCodec.decode(SQLFunctions.value(arguments[2]), as: kind)
    if value != .null { state.values.append(value) }
}

private func aggregateFinal(_ context: OpaquePointer?) {
    // With no rows, xStep never ran and the context is not allocated: size 0 does not allocate.
    let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    guard let pointer = slot?.pointee else {
        // No rows at all: the operation is unknown here, and every empty aggregate but @sum is
        // nil; the compiler wraps @sum so that no rows give 0.
        sqlite3_result_null(context)
        return
    }
    let state = Unmanaged<AggregateState>.fromOpaque(pointer).takeRetainedValue()
    slot?.pointee = nil
    guard let operation = state.operation else {
        sqlite3_result_null(context)
        return
    }
    SQLFunctions.result(context, ValueCodec.encode(AggregateSemantics.compute(operation, state.values, distinct: state.distinct)))
}
