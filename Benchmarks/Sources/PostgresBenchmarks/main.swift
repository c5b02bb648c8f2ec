import CLibPQRaw
import Foundation
import PostgresBenchmarkRows
import Strata
import StrataPostgres

// Strata's PostgreSQL store, through its own API and through a context, against raw libpq and
// Fluent (fluent-postgres-driver) on the same server, on 100k objects of the SQLite benchmark's
// 10-attribute entity: insert + save, and fetch all + materialise. The server is the one at
// STRATA_POSTGRES_URL (Scripts/postgres-server.sh starts one); without it nothing is measured.
//
//     STRATA_POSTGRES_URL=postgres://… swift run -c release PostgresBenchmarks [count] [--only name]
//
// Times are wall-clock milliseconds (the server's work is part of what a client waits for; the
// client's own CPU time is printed beside it). Each run measures every contender once, in turn,
// on a new table; RUNS runs (default 3); ratios are taken run by run and reported as the median
// and the range.

let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] ?? ""
if url.isEmpty {
    print("PostgresBenchmarks: STRATA_POSTGRES_URL is not set, so the PostgreSQL benchmarks are skipped. Start a server with")
    print("  STRATA_PG_DIR=/tmp/pg-bench STRATA_PG_PORT=54339 Scripts/postgres-server.sh start")
    print("and run again with STRATA_POSTGRES_URL set to the URL it prints.")
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.first.flatMap(Int.init) ?? 100_000
/// `--only store` (or pipeline, multirow, copy, context, fluent): one contender, for a profiler;
/// each Strata operation is a function of its own (`storeInsert`, `storeFetch`, `contextInsert`,
/// `contextFetch`) for `valgrind --tool=callgrind --toggle-collect='*storeInsert*'`.
let only = CommandLine.arguments.firstIndex(of: "--only").map { CommandLine.arguments[$0 + 1] }
let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 3

let rows = (0..<count).map(Row.init)

enum Operation: String, CaseIterable {
    case insert = "insert + save"
    case fetchAll = "fetch all + materialise"
}

nonisolated(unsafe) var sink = 0

// MARK: - Raw libpq

/// A libpq connection for the raw baselines and for setting up and dropping tables.
final class RawConnection {
    let handle: OpaquePointer

    init() {
        guard let handle = PQconnectdb(url), PQstatus(handle) == CONNECTION_OK else {
            fatalError("cannot connect to \(url)")
        }
        self.handle = handle
        exec("SET client_min_messages = warning")
    }

    deinit { PQfinish(handle) }

    func check(_ result: OpaquePointer?, _ what: String) {
        let status = result.map(PQresultStatus)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            fatalError("\(what): \(String(cString: PQerrorMessage(handle)))")
        }
    }

    func exec(_ sql: String) {
        let result = PQexec(handle, sql)
        check(result, sql)
        PQclear(result)
    }
}

/// The raw table, as Strata's (`_version` aside): the same column types and the same index.
let rawColumns = "id, title, category, quantity, rank, price, weight, active, \"createdAt\", notes, code"
func createTable(_ name: String, _ connection: RawConnection) {
    connection.exec("DROP TABLE IF EXISTS \(name)")
    connection.exec("""
        CREATE TABLE \(name) (id bigint PRIMARY KEY, title text, category text, quantity bigint, rank bigint, price double precision,
        weight double precision, active boolean, "createdAt" double precision, notes text, code integer)
        """)
    connection.exec("CREATE INDEX ON \(name) (quantity)")
}

/// Binary parameters of one or more rows: every value's bytes in one buffer.
struct BinaryRows {
    var bytes: [UInt8] = []
    var offsets: [Int] = []
    var lengths: [Int32] = []

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        lengths.removeAll(keepingCapacity: true)
    }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        offsets.append(bytes.count)
        lengths.append(Int32(MemoryLayout<T>.size))
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: Double) { append(value.bitPattern) }
    mutating func append(_ value: Bool) { append(UInt8(value ? 1 : 0)) }

    mutating func append(_ value: String) {
        offsets.append(bytes.count)
        var value = value
        value.withUTF8 { bytes.append(contentsOf: $0) }
        lengths.append(Int32(bytes.count - offsets.last!))
    }

    mutating func append(_ row: Row) {
        append(row.id)
        append(row.title)
        append(row.category)
        append(row.quantity)
        append(row.rank)
        append(row.price)
        append(row.weight)
        append(row.active)
        append(row.createdAt)
        append(row.notes)
        append(row.code)
    }

    /// Calls `body` with libpq's parameter arrays (values, lengths, formats: all binary).
    func withParameters<T>(_ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<Int32>, UnsafePointer<Int32>) -> T) -> T {
        let formats = [Int32](repeating: 1, count: lengths.count)
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return body(values, lengths, formats)
        }
    }
}

/// The row types, for the prepared statements (binary parameters need no cast).
let rowTypes: [Oid] = [20, 25, 25, 20, 20, 701, 701, 16, 701, 25, 23]

/// Insert, the way a careful libpq user writes it, in one transaction. `how`: `pipeline` (one
/// prepared INSERT per row with binary parameters, in libpq's pipeline mode: batches of 1,000
/// sent while the previous batch's results come back), `multirow` (a prepared INSERT of 1,000
/// rows with binary parameters, one round trip a statement) or `copy` (COPY … FROM STDIN in the
/// binary format).
func rawInsert(_ how: String, _ connection: RawConnection, table: String) {
    let handle = connection.handle
    connection.exec("BEGIN")
    switch how {
    case "pipeline":
        let prepared = PQprepare(handle, "insert_row", "INSERT INTO \(table) (\(rawColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)", 11, rowTypes)
        connection.check(prepared, "prepare")
        PQclear(prepared)
        guard PQenterPipelineMode(handle) == 1 else { fatalError("pipeline mode") }
        var parameters = BinaryRows()
        var inFlight = 0
        func collect(_ queries: Int) {
            for _ in 0..<queries {
                let result = PQgetResult(handle)
                connection.check(result, "insert")
                PQclear(result)
                precondition(PQgetResult(handle) == nil)
            }
            let sync = PQgetResult(handle)
            precondition(PQresultStatus(sync) == PGRES_PIPELINE_SYNC)
            PQclear(sync)
        }
        for start in stride(from: 0, to: rows.count, by: 1000) {
            let batch = rows[start..<min(start + 1000, rows.count)]
            for row in batch {
                parameters.removeAll()
                parameters.append(row)
                let sent = parameters.withParameters { PQsendQueryPrepared(handle, "insert_row", 11, $0, $1, $2, 0) }
                precondition(sent == 1)
            }
            PQpipelineSync(handle)
            if inFlight > 0 { collect(inFlight) }
            inFlight = batch.count
        }
        if inFlight > 0 { collect(inFlight) }
        PQexitPipelineMode(handle)
        connection.exec("DEALLOCATE insert_row")
    case "multirow":
        let batchSize = 1000
        func statement(_ rows: Int) -> String {
            "INSERT INTO \(table) (\(rawColumns)) VALUES " + (0..<rows).map { row in
                "(" + (1...11).map { "$\(row * 11 + $0)" }.joined(separator: ", ") + ")"
            }.joined(separator: ", ")
        }
        let types = Array((0..<batchSize).map { _ in rowTypes }.joined())
        let prepared = PQprepare(handle, "insert_rows", statement(batchSize), Int32(types.count), types)
        connection.check(prepared, "prepare")
        PQclear(prepared)
        var parameters = BinaryRows()
        for start in stride(from: 0, to: rows.count, by: batchSize) {
            let batch = rows[start..<min(start + batchSize, rows.count)]
            parameters.removeAll()
            for row in batch { parameters.append(row) }
            let result = parameters.withParameters { values, lengths, formats in
                batch.count == batchSize
                    ? PQexecPrepared(handle, "insert_rows", Int32(batch.count * 11), values, lengths, formats, 0)
                    : PQexecParams(handle, statement(batch.count), Int32(batch.count * 11), Array(types.prefix(batch.count * 11)), values, lengths, formats, 0)
            }
            connection.check(result, "insert")
            PQclear(result)
        }
        connection.exec("DEALLOCATE insert_rows")
    case "copy":
        let started = PQexec(handle, "COPY \(table) (\(rawColumns)) FROM STDIN (FORMAT binary)")
        precondition(PQresultStatus(started) == PGRES_COPY_IN, String(cString: PQerrorMessage(handle)))
        PQclear(started)
        // The binary COPY format: a header, then each row as its field count and each field as
        // its length and bytes, then -1.
        var data: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
        var fields = BinaryRows()
        func flush() {
            let sent = data.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
            }
            precondition(sent == 1)
            data.removeAll(keepingCapacity: true)
        }
        for row in rows {
            fields.removeAll()
            fields.append(row)
            withUnsafeBytes(of: Int16(11).bigEndian) { data.append(contentsOf: $0) }
            for (offset, length) in zip(fields.offsets, fields.lengths) {
                withUnsafeBytes(of: length.bigEndian) { data.append(contentsOf: $0) }
                data.append(contentsOf: fields.bytes[offset..<offset + Int(length)])
            }
            if data.count > 1 << 16 { flush() }
        }
        withUnsafeBytes(of: Int16(-1).bigEndian) { data.append(contentsOf: $0) }
        flush()
        precondition(PQputCopyEnd(handle, nil) == 1)
        let result = PQgetResult(handle)
        connection.check(result, "copy")
        PQclear(result)
        precondition(PQgetResult(handle) == nil)
    default:
        fatalError("unknown raw insert '\(how)'")
    }
    connection.exec("COMMIT")
}

/// Every row read back into `Row`s, with binary results.
func rawFetch(_ connection: RawConnection, table: String) {
    let result = PQexecParams(connection.handle, "SELECT \(rawColumns) FROM \(table)", 0, nil, nil, nil, nil, 1)
    connection.check(result, "select")
    defer { PQclear(result) }
    func bytes(_ row: Int32, _ column: Int32) -> UnsafeRawPointer { UnsafeRawPointer(PQgetvalue(result, row, column)) }
    func integer<T: FixedWidthInteger>(_ row: Int32, _ column: Int32, _ type: T.Type) -> T {
        T(bigEndian: bytes(row, column).loadUnaligned(as: T.self))
    }
    func double(_ row: Int32, _ column: Int32) -> Double { Double(bitPattern: integer(row, column, UInt64.self)) }
    func text(_ row: Int32, _ column: Int32) -> String {
        String(decoding: UnsafeRawBufferPointer(start: bytes(row, column), count: Int(PQgetlength(result, row, column))), as: UTF8.self)
    }
    var fetched: [Row] = []
    let total = PQntuples(result)
    fetched.reserveCapacity(Int(total))
    var value = Row(0)
    for row in 0..<total {
        value.id = integer(row, 0, Int64.self)
        value.title = text(row, 1)
        value.category = text(row, 2)
        value.quantity = integer(row, 3, Int64.self)
        value.rank = integer(row, 4, Int64.self)
        value.price = double(row, 5)
        value.weight = double(row, 6)
        value.active = bytes(row, 7).load(as: UInt8.self) != 0
        value.createdAt = double(row, 8)
        value.notes = text(row, 9)
        value.code = integer(row, 10, Int32.self)
        fetched.append(value)
    }
    sink &+= fetched.count
}

func raw(_ how: String) -> [Operation: Timing] {
    let connection = RawConnection()
    let table = "raw_record"
    createTable(table, connection)
    var results: [Operation: Timing] = [:]
    results[.insert] = measure { rawInsert(how, connection, table: table) }
    results[.fetchAll] = measure { rawFetch(connection, table: table) }
    connection.exec("DROP TABLE \(table)")
    return results
}

// MARK: - Strata

let schema = try Schema(data: Data("""
    { "name": "Bench", "entities": [ { "name": "Record", "attributes": [
      { "name": "title", "type": "string" }, { "name": "category", "type": "string" },
      { "name": "quantity", "type": "int64", "indexed": true }, { "name": "rank", "type": "int64" },
      { "name": "price", "type": "double" }, { "name": "weight", "type": "double" },
      { "name": "active", "type": "bool" }, { "name": "createdAt", "type": "date" },
      { "name": "notes", "type": "string" }, { "name": "code", "type": "int32" } ] } ] }
    """.utf8))

let recordLayout = schema.entity(named: "Record")!.attributeLayout
let positions = ["title", "category", "quantity", "rank", "price", "weight", "active", "createdAt", "notes", "code"].map { recordLayout.position(of: $0)! }

/// A record's values, filled by position (the store API's fast path, as in the SQLite benchmark).
func attributes(_ row: Row) -> AttributeValues {
    var values = [AttributeValue?](repeating: nil, count: recordLayout.count)
    values[positions[0]] = .string(row.title)
    values[positions[1]] = .string(row.category)
    values[positions[2]] = .integer(row.quantity)
    values[positions[3]] = .integer(row.rank)
    values[positions[4]] = .double(row.price)
    values[positions[5]] = .double(row.weight)
    values[positions[6]] = .bool(row.active)
    values[positions[7]] = .date(Date(timeIntervalSinceReferenceDate: row.createdAt))
    values[positions[8]] = .string(row.notes)
    values[positions[9]] = .integer(Int64(row.code))
    return AttributeValues(layout: recordLayout, values: values)
}

/// A coordinator on a new store in the PostgreSQL schema `name` (dropped first).
@MainActor func coordinator(schema name: String) throws -> PersistentStoreCoordinator {
    RawConnection().exec("DROP SCHEMA IF EXISTS \(name) CASCADE")
    let coordinator = PersistentStoreCoordinator(schema: schema, storeTypes: StoreTypeRegistry([PostgresStoreFactory()]))
    var components = URLComponents(string: url)!
    components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: name)]
    try coordinator.addStore(StoreDescription(type: .postgres, url: components.url!))
    // A fetch opens the store's first reader connection, as in a running app (the raw baseline
    // is connected too).
    _ = try coordinator.stores[0].fetch(StoreFetchRequest(entityNames: ["Record"]))
    return coordinator
}

@MainActor @inline(never) func storeInsert(_ coordinator: PersistentStoreCoordinator) throws {
    let store = coordinator.stores[0]
    let keys = try store.allocatePrimaryKeys(rootEntity: "Record", count: count)
    var records: [StoreRecord] = []
    records.reserveCapacity(count)
    for (key, row) in zip(keys, rows) {
        records.append(StoreRecord(objectID: try coordinator.objectID(entityName: "Record", primaryKey: key), attributes: attributes(row)))
    }
    _ = try store.save(StoreChangeset(inserted: records))
}

@MainActor @inline(never) func storeFetch(_ coordinator: PersistentStoreCoordinator) throws {
    sink &+= try coordinator.stores[0].fetch(StoreFetchRequest(entityNames: ["Record"])).count
}

/// The store's own API: records in, records out.
@MainActor func strataStore() throws -> [Operation: Timing] {
    let coordinator = try coordinator(schema: "bench_store")
    var results: [Operation: Timing] = [:]
    results[.insert] = try measure { try storeInsert(coordinator) }
    results[.fetchAll] = try measure { try storeFetch(coordinator) }
    RawConnection().exec("DROP SCHEMA bench_store CASCADE")
    return results
}

/// Sets an object's values by name, as an app does.
func fill(_ object: ManagedObject, with row: Row) {
    object["title"] = row.title
    object["category"] = row.category
    object["quantity"] = row.quantity
    object["rank"] = row.rank
    object["price"] = row.price
    object["weight"] = row.weight
    object["active"] = row.active
    object["createdAt"] = Date(timeIntervalSinceReferenceDate: row.createdAt)
    object["notes"] = row.notes
    object["code"] = Int64(row.code)
}

@MainActor @inline(never) func contextInsert(_ coordinator: PersistentStoreCoordinator) throws {
    let context = ManagedObjectContext(coordinator: coordinator)
    for row in rows { fill(try context.insertObject(entityName: "Record"), with: row) }
    try context.save()
}

@MainActor @inline(never) func contextFetch(_ coordinator: PersistentStoreCoordinator) throws {
    let context = ManagedObjectContext(coordinator: coordinator)
    let objects = try context.fetch(FetchRequest(entityName: "Record"))
    for object in objects { if object["quantity"] != nil { sink &+= 1 } }
}

/// Through a coordinator and a managed object context, as an app uses it.
@MainActor func strataContext() throws -> [Operation: Timing] {
    let coordinator = try coordinator(schema: "bench_context")
    var results: [Operation: Timing] = [:]
    results[.insert] = try measure { try contextInsert(coordinator) }
    results[.fetchAll] = try measure { try contextFetch(coordinator) }
    RawConnection().exec("DROP SCHEMA bench_context CASCADE")
    return results
}

// MARK: - Fluent

/// The FluentPostgresBenchmark executable, when it is built beside this one.
let fluentExecutable: URL? = {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("FluentPostgresBenchmark")
    return FileManager.default.isExecutableFile(atPath: executable.path) ? executable : nil
}()

/// Fluent, measured by FluentPostgresBenchmark on a table made here; nil when it is not built.
func fluent() throws -> [Operation: Timing]? {
    guard let executable = fluentExecutable else { return nil }
    let connection = RawConnection()
    createTable("fluent_record", connection)
    defer { connection.exec("DROP TABLE fluent_record") }
    let process = Process()
    process.executableURL = executable
    process.arguments = [String(count)]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { fatalError("FluentPostgresBenchmark failed (status \(process.terminationStatus))") }
    // "insert <wall> <cpu>" and "fetch <wall> <cpu>".
    var results: [Operation: Timing] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count == 3, let wall = Double(fields[1]), let cpu = Double(fields[2]) else { continue }
        results[fields[0] == "insert" ? .insert : .fetchAll] = Timing(wall: wall, cpu: cpu)
    }
    return results
}

// MARK: - Report

func ms(_ value: Double) -> String { String(format: "%.1f", value) }

let contenders = ["pipeline", "multirow", "copy", "store", "context", "fluent"]
let names = [
    "pipeline": "raw libpq, prepared INSERT a row, pipelined", "multirow": "raw libpq, INSERT of 1,000 rows",
    "copy": "raw libpq, COPY (binary)", "store": "Strata store", "context": "Strata context", "fluent": "Fluent",
]

let withFluent = fluentExecutable != nil
if !withFluent {
    print("Fluent: not measured, FluentPostgresBenchmark is not built (swift build -c release --product FluentPostgresBenchmark).")
}

@MainActor func run(_ contender: String) throws -> [Operation: Timing]? {
    switch contender {
    case "pipeline", "multirow", "copy": raw(contender)
    case "store": try strataStore()
    case "context": try strataContext()
    case "fluent": try fluent()
    default: fatalError("unknown contender '\(contender)'")
    }
}

print("\(count) objects of a 10-attribute entity on \(url); wall-clock ms (client CPU ms), \(runs) runs")
var timings: [String: [[Operation: Timing]]] = [:]
let chosen = only.map { [$0] } ?? contenders
for round in 1...runs {
    for contender in chosen {
        guard let result = try run(contender) else { continue }
        timings[contender, default: []].append(result)
        print("run \(round) \(contender): " + Operation.allCases.map { "\($0.rawValue) \(ms(result[$0]!.wall)) (\(ms(result[$0]!.cpu)))" }.joined(separator: ", "))
    }
}
if only != nil { exit(0) }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
/// The raw baseline of a run: for insert, the multi-row INSERT (the faster of the two ways
/// without COPY, which is its own line); for fetch-all, which the three raw contenders do alike,
/// the median of their three times.
@MainActor func rawBase(_ run: Int, _ operation: Operation) -> Double {
    switch operation {
    case .insert: timings["multirow"]![run][operation]!.wall
    case .fetchAll: median(["pipeline", "multirow", "copy"].map { timings[$0]![run][operation]!.wall })
    }
}
print("")
print("| operation | contender | wall ms, median (range) | client CPU ms, median | ÷ raw, median (range) |")
print("| --- | --- | ---: | ---: | ---: |")
for operation in Operation.allCases {
    for contender in contenders where timings[contender] != nil {
        let walls = timings[contender]!.map { $0[operation]!.wall }
        let cpus = timings[contender]!.map { $0[operation]!.cpu }
        let ratios = walls.indices.map { walls[$0] / rawBase($0, operation) }
        print("| \(operation.rawValue) | \(names[contender]!) | \(ms(median(walls))) (\(ms(walls.min()!))–\(ms(walls.max()!))) | \(ms(median(cpus))) | "
            + String(format: "%.2f× (%.2f–%.2f)", median(ratios), ratios.min()!, ratios.max()!) + " |")
    }
}
let contextOverFluent = !withFluent ? [] : (0..<runs).map { run in
    Operation.allCases.map { timings["context"]![run][$0]!.wall / timings["fluent"]![run][$0]!.wall }
}
for (index, operation) in Operation.allCases.enumerated() where withFluent {
    let ratios = contextOverFluent.map { $0[index] }
    print(String(format: "context ÷ Fluent, \(operation.rawValue): %.2f× (%.2f–%.2f)", median(ratios), ratios.min()!, ratios.max()!))
}
if sink == 42 { print("") }
