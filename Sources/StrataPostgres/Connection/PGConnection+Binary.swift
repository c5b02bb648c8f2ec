internal import CLibPQ
internal import Foundation
internal import Strata

/// Parameters of one statement, each in PostgreSQL's text or binary format, in one buffer: what
/// a save sends for many rows at once (one array per column, ``PGArrayWriter``).
struct PGParameters {
    /// Every parameter's bytes, one after the other.
    private let buffer = ByteBuffer()
    /// Each parameter's start in ``buffer``; -1 for NULL.
    private(set) var offsets: [Int] = []
    private(set) var lengths: [Int32] = []
    /// 0 text, 1 binary.
    private(set) var formats: [Int32] = []

    var count: Int { offsets.count }

    init() {}

    /// Text parameters (nil for NULL), as ``PGConnection/query(_:_:)`` takes them.
    init(_ texts: [String?]) {
        for text in texts { append(text: text) }
    }

    /// A text parameter (the statement's cast types it); nil for NULL.
    mutating func append(text: String?) {
        guard var text else {
            offsets.append(-1)
            lengths.append(0)
            formats.append(0)
            return
        }
        offsets.append(buffer.count)
        text.withUTF8 { buffer.append(UnsafeRawBufferPointer($0)) }
        lengths.append(Int32(buffer.count - offsets.last!))
        // libpq reads a text parameter up to its NUL.
        buffer.append(UInt8(0))
        formats.append(0)
    }

    /// A one-dimensional array in the binary format, of elements of type `element` (an OID: the
    /// statement's `$n::type[]` must name the same type), written by `body`.
    mutating func appendArray<Failure: Error>(of element: PGType, _ body: (inout PGArrayWriter) throws(Failure) -> Void) throws(Failure) {
        let start = buffer.count
        var writer = PGArrayWriter(buffer, element: element)
        try body(&writer)
        writer.finish()
        offsets.append(start)
        lengths.append(Int32(buffer.count - start))
        formats.append(1)
    }

    /// Calls `body` with libpq's parameter arrays: values, lengths and formats.
    func withParameters<T>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T) -> T {
        let base = UnsafePointer<CChar>(buffer.base.assumingMemoryBound(to: CChar.self))
        let values: [UnsafePointer<CChar>?] = offsets.map { $0 < 0 ? nil : base + $0 }
        return values.withUnsafeBufferPointer { values in
            lengths.withUnsafeBufferPointer { lengths in
                formats.withUnsafeBufferPointer { formats in
                    body(values.baseAddress, lengths.baseAddress, formats.baseAddress)
                }
            }
        }
    }
}

/// Bytes appended without an array's checks and generic paths: a save's values, by the
/// megabyte. Numbers are written big-endian, as PostgreSQL's binary formats want them.
final class ByteBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private func grow(to needed: Int) {
        while capacity < needed { capacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
    }

    func append<T: FixedWidthInteger>(_ value: T) {
        reserve(MemoryLayout<T>.size)
        (base + count).storeBytes(of: value.bigEndian, as: T.self)
        count += MemoryLayout<T>.size
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        if let source = bytes.baseAddress { (base + count).copyMemory(from: source, byteCount: bytes.count) }
        count += bytes.count
    }

    /// Overwrites the bytes at `offset` with `value`, big-endian.
    func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        (base + offset).storeBytes(of: value.bigEndian, as: T.self)
    }
}

/// A PostgreSQL type by its OID (`pg_type`), as the binary format names element types.
struct PGType: RawRepresentable, Hashable {
    let rawValue: UInt32

    static let bool = PGType(rawValue: 16)
    static let bytea = PGType(rawValue: 17)
    static let int8 = PGType(rawValue: 20)
    static let int2 = PGType(rawValue: 21)
    static let int4 = PGType(rawValue: 23)
    static let text = PGType(rawValue: 25)
    static let float4 = PGType(rawValue: 700)
    static let float8 = PGType(rawValue: 701)
    static let numeric = PGType(rawValue: 1700)
    static let uuid = PGType(rawValue: 2950)
}

/// Writes a one-dimensional array in PostgreSQL's binary format (`array_recv`): a header (one
/// dimension, whether any element is NULL, the element type, the length, lower bound 1), then
/// each element as its length (-1 for NULL) and its bytes.
struct PGArrayWriter {
    private let buffer: ByteBuffer
    private let start: Int
    private var count: Int32 = 0
    private var hasNull = false

    fileprivate init(_ buffer: ByteBuffer, element: PGType) {
        self.buffer = buffer
        start = buffer.count
        for word in [1, 0, Int32(bitPattern: element.rawValue), 0, 1] as [Int32] { buffer.append(word) }
    }

    fileprivate func finish() {
        buffer.store(Int32(hasNull ? 1 : 0), at: start + 4)
        buffer.store(count, at: start + 12)
    }

    mutating func appendNull() {
        buffer.append(Int32(-1))
        hasNull = true
        count += 1
    }

    /// An element of a fixed-width integer type (`int2`, `int4`, `int8`; `float8` and `float4`
    /// as their bit patterns; `bool` as a byte).
    mutating func append<T: FixedWidthInteger>(element value: T) {
        buffer.append(Int32(MemoryLayout<T>.size))
        buffer.append(value)
        count += 1
    }

    /// An element of raw bytes (`text` in UTF-8, `bytea`, `uuid`'s 16 bytes).
    mutating func append(element value: UnsafeRawBufferPointer) {
        buffer.append(Int32(value.count))
        buffer.append(value)
        count += 1
    }

    /// A `text` element.
    mutating func append(element text: String) {
        var text = text
        text.withUTF8 { append(element: UnsafeRawBufferPointer($0)) }
    }

    /// A `text` element naming an object as `strata_history` does, `Entity/key`, written
    /// without making the string.
    mutating func append(element entity: String, key: Int64) {
        var entity = entity
        // The key's decimal digits, last first.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let length = withUnsafeMutableBytes(of: &digits) { digits in
            var magnitude = key.magnitude
            var length = 0
            repeat {
                digits[23 - length] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                length += 1
            } while magnitude > 0
            if key < 0 {
                digits[23 - length] = UInt8(ascii: "-")
                length += 1
            }
            return length
        }
        entity.withUTF8 { name in
            buffer.append(Int32(name.count + 1 + length))
            buffer.append(UnsafeRawBufferPointer(name))
        }
        buffer.append(UInt8(ascii: "/"))
        withUnsafeBytes(of: &digits) { buffer.append(UnsafeRawBufferPointer(rebasing: $0[(24 - length)...])) }
        count += 1
    }
}

extension PGConnection {
    /// Statements sent one after the other without waiting for each answer (libpq's pipeline
    /// mode), then every result read: one round trip for all of them. ``send(_:_:binaryResults:)``
    /// queues a statement; ``finish()`` sends the queue's end and reads the results. On the
    /// server the statements run one after the other, as sent; the first one that fails skips
    /// the rest. With a libpq older than 14 (no pipeline mode) each statement is a round trip of
    /// its own, with the same results.
    final class Pipeline {
        private let connection: PGConnection
        private var pq: LibPQ { connection.pq }
        private var sent = 0
        private var open = true
        /// Without pipeline mode: the results so far, and the first failure (after which
        /// nothing more runs, as on the server).
        private var results: [PGResult] = []
        private var failure: PGError?
        /// The position of the statement that failed, after ``finish()`` threw its error.
        private(set) var failedStatement: Int?

        fileprivate init(_ connection: PGConnection) throws(PGError) {
            self.connection = connection
            if let mode = connection.pq.pipelineMode {
                guard mode.enter(connection.handle) == 1 else { throw connection.lastError() }
            }
        }

        /// Queues one statement with its parameters; `binaryResults` asks for its rows in the
        /// binary format.
        func send(_ sql: String, _ parameters: PGParameters, binaryResults: Bool = false) throws(PGError) {
            guard pq.pipelineMode != nil else {
                guard failure == nil else { return }
                do throws(PGError) {
                    results.append(try connection.query(sql, parameters, binaryResults: binaryResults))
                } catch {
                    failure = error
                    failedStatement = results.count
                }
                return
            }
            let queued = parameters.withParameters { values, lengths, formats in
                pq.sendQueryParams(connection.handle, sql, Int32(parameters.count), nil, values, lengths, formats, binaryResults ? 1 : 0)
            }
            guard queued == 1 else {
                abandon()
                throw connection.lastError()
            }
            sent += 1
        }

        /// Ends the pipeline and returns each statement's result, in order.
        /// - Throws: ``PGError`` of the first statement that failed (the server skipped the
        ///   ones after it), or of the connection.
        func finish() throws(PGError) -> [PGResult] {
            open = false
            guard let mode = pq.pipelineMode else {
                if let failure { throw failure }
                return results
            }
            guard mode.sync(connection.handle) == 1 else {
                open = true
                abandon()
                throw connection.lastError()
            }
            // Each statement's result is followed by a NULL; the end is the sync's result.
            while true {
                guard let result = pq.getResult(connection.handle) else {
                    if pq.status(connection.handle) != CONNECTION_OK {
                        failure = failure ?? connection.lastError()
                        break
                    }
                    continue
                }
                let status = pq.resultStatus(result)
                if status == PGRES_PIPELINE_SYNC {
                    pq.clear(result)
                    break
                }
                if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
                    results.append(PGResult(result, pq))
                } else {
                    if failure == nil && status != PGRES_PIPELINE_ABORTED {
                        failure = connection.error(of: result)
                        failedStatement = results.count
                    }
                    pq.clear(result)
                }
            }
            _ = mode.exit(connection.handle)
            if let failure { throw failure }
            return results
        }

        /// Ends the pipeline after a failure of the client's: whatever was queued is sent and
        /// its results dropped.
        func abandon() {
            guard open else { return }
            open = false
            guard let mode = pq.pipelineMode else { return }
            if sent > 0, mode.sync(connection.handle) == 1 {
                while true {
                    guard let result = pq.getResult(connection.handle) else {
                        if pq.status(connection.handle) != CONNECTION_OK { break }
                        continue
                    }
                    let status = pq.resultStatus(result)
                    pq.clear(result)
                    if status == PGRES_PIPELINE_SYNC { break }
                }
            }
            _ = mode.exit(connection.handle)
        }
    }

    /// Runs `body` with a pipeline of this connection (``Pipeline``); a pipeline `body` leaves
    /// unfinished (it threw) is abandoned.
    func pipeline<T>(_ body: (Pipeline) throws(StrataError) -> T) throws(StrataError) -> T {
        let pipeline: Pipeline
        do throws(PGError) { pipeline = try Pipeline(self) } catch { throw error.strataError(location: location) }
        defer { pipeline.abandon() }
        return try body(pipeline)
    }

    /// Runs one statement with `parameters` (text or binary each), its rows in the binary
    /// format when `binaryResults`.
    func query(_ sql: String, _ parameters: PGParameters, binaryResults: Bool) throws(PGError) -> PGResult {
        let result = parameters.withParameters { values, lengths, formats in
            pq.execParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, binaryResults ? 1 : 0)
        }
        guard let result else { throw lastError() }
        let status = pq.resultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let error = error(of: result)
            pq.clear(result)
            throw error
        }
        return PGResult(result, pq)
    }

    /// The connection's last error (libpq's message).
    fileprivate func lastError() -> PGError {
        PGError(state: "", message: pq.errorMessage(handle).map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error")
    }

    /// The error a failed result carries: SQLSTATE, message and detail.
    fileprivate func error(of result: OpaquePointer) -> PGError {
        func field(_ code: Character) -> String {
            pq.resultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) } ?? ""
        }
        let message = pq.resultErrorMessage(result).map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var error = PGError(state: field("C"), message: message.isEmpty ? lastError().message : message)
        error.detail = field("D")
        return error
    }
}

extension PGResult {
    /// The bytes of a value (binary results: in the format of the column's type); nil for NULL.
    func bytes(_ row: Int32, _ column: Int32) -> UnsafeRawBufferPointer? {
        // A NULL has length 0: only then is it told from an empty value.
        let length = pq.getlength(result, row, column)
        guard length > 0 || pq.getisnull(result, row, column) == 0 else { return nil }
        return UnsafeRawBufferPointer(start: pq.getvalue(result, row, column), count: Int(length))
    }

    /// The type of a column.
    func type(_ column: Int32) -> PGType { PGType(rawValue: pq.ftype(result, column)) }

    /// How many columns the rows have.
    var columns: Int32 { pq.nfields(result) }
}
