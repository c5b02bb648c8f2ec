internal import CLibPQ
internal import Foundation
internal import Strata

/// libpq, loaded the first time a PostgreSQL store connects instead of linked into every program
/// that links Strata's PostgreSQL module.
///
/// Linking libpq loads it and what it needs (OpenSSL, Kerberos, LDAP, GnuTLS: seventeen
/// libraries) when the program starts, about 6 MiB of resident memory and their relocations,
/// whether or not the program ever opens a PostgreSQL store — and `strata` opens SQLite, XML and
/// binary files far more often. Loaded with `dlopen` on first use, a program that never connects
/// pays nothing, and a machine without libpq runs every other store and reports the missing
/// library only when a PostgreSQL store is opened.
///
/// The library is looked up by its ABI name (`libpq.so.5`, stable since PostgreSQL 8.0), or at
/// the path in the `STRATA_LIBPQ` environment variable. Only the C declarations come from
/// `libpq-fe.h` at build time; every function is called through the pointers below.
final class LibPQ: @unchecked Sendable {
    // @unchecked: every property is a C function pointer, set once in `init` and never changed.
    let connectdb: @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    let finish: @convention(c) (OpaquePointer?) -> Void
    let status: @convention(c) (OpaquePointer?) -> ConnStatusType
    let transactionStatus: @convention(c) (OpaquePointer?) -> PGTransactionStatusType
    let errorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let socket: @convention(c) (OpaquePointer?) -> Int32
    let consumeInput: @convention(c) (OpaquePointer?) -> Int32
    let notifies: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<PGnotify>?
    let freemem: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let execParams: @convention(c) (
        OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?,
        UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
    ) -> OpaquePointer?
    let resultStatus: @convention(c) (OpaquePointer?) -> ExecStatusType
    let resultErrorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let resultErrorField: @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
    let clear: @convention(c) (OpaquePointer?) -> Void
    let ntuples: @convention(c) (OpaquePointer?) -> Int32
    let cmdTuples: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
    let getisnull: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    let getvalue: @convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
    // Binary values and pipelines (PGConnection+Binary.swift).
    let getlength: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    let ftype: @convention(c) (OpaquePointer?, Int32) -> Oid
    let nfields: @convention(c) (OpaquePointer?) -> Int32
    let getResult: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let sendQueryParams: @convention(c) (
        OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?,
        UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
    ) -> Int32
    /// Pipeline mode (libpq 14 and later: enter, exit, sync); nil with an older libpq, whose
    /// statements then go one round trip each.
    let pipelineMode: (
        enter: @convention(c) (OpaquePointer?) -> Int32,
        exit: @convention(c) (OpaquePointer?) -> Int32,
        sync: @convention(c) (OpaquePointer?) -> Int32
    )?

    /// The library, loaded once per process; the error says which file could not be loaded and
    /// how to install it.
    static let shared: Result<LibPQ, StrataError> = Result { () throws(StrataError) in try LibPQ() }

    /// The loaded library.
    /// - Throws: `storeIO` when libpq cannot be loaded (not installed, or `STRATA_LIBPQ` names
    ///   something else), naming the files tried.
    static func load(for location: String) throws(StrataError) -> LibPQ {
        switch shared {
        case .success(let library): return library
        case .failure(let error): throw StrataError(error.code, error.message, file: location)
        }
    }

    /// The names tried in order: `STRATA_LIBPQ` alone when it is set.
    static var candidates: [String] {
        if let path = ProcessInfo.processInfo.environment["STRATA_LIBPQ"], !path.isEmpty { return [path] }
        #if canImport(Darwin)
        return ["libpq.5.dylib", "/opt/homebrew/opt/libpq/lib/libpq.5.dylib", "/usr/local/opt/libpq/lib/libpq.5.dylib"]
        #else
        return ["libpq.so.5", "libpq.so"]
        #endif
    }

    private init() throws(StrataError) {
        var failures: [String] = []
        var opened: UnsafeMutableRawPointer?
        for name in Self.candidates {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                opened = handle
                break
            }
            failures.append(dlerror().map { String(cString: $0) } ?? name)
        }
        guard let handle = opened else {
            throw StrataError(
                .storeIO,
                "cannot load the PostgreSQL client library libpq (\(failures.joined(separator: "; "))); "
                    + "install it (Debian and Ubuntu: apt-get install libpq5) or set STRATA_LIBPQ to its path")
        }
        // The handle stays open for the life of the process: the pointers below point into it.
        func symbol<Function>(_ name: String, _: Function.Type = Function.self) throws(StrataError) -> Function {
            guard let pointer = dlsym(handle, name) else {
                throw StrataError(.storeIO, "the PostgreSQL client library libpq has no function \(name): it is older than libpq 10")
            }
            return unsafeBitCast(pointer, to: Function.self)
        }
        connectdb = try symbol("PQconnectdb")
        finish = try symbol("PQfinish")
        status = try symbol("PQstatus")
        transactionStatus = try symbol("PQtransactionStatus")
        errorMessage = try symbol("PQerrorMessage")
        socket = try symbol("PQsocket")
        consumeInput = try symbol("PQconsumeInput")
        notifies = try symbol("PQnotifies")
        freemem = try symbol("PQfreemem")
        execParams = try symbol("PQexecParams")
        resultStatus = try symbol("PQresultStatus")
        resultErrorMessage = try symbol("PQresultErrorMessage")
        resultErrorField = try symbol("PQresultErrorField")
        clear = try symbol("PQclear")
        ntuples = try symbol("PQntuples")
        cmdTuples = try symbol("PQcmdTuples")
        getisnull = try symbol("PQgetisnull")
        getvalue = try symbol("PQgetvalue")
        getlength = try symbol("PQgetlength")
        ftype = try symbol("PQftype")
        nfields = try symbol("PQnfields")
        getResult = try symbol("PQgetResult")
        sendQueryParams = try symbol("PQsendQueryParams")
        if let enter = try? symbol("PQenterPipelineMode", (@convention(c) (OpaquePointer?) -> Int32).self),
           let exit = try? symbol("PQexitPipelineMode", (@convention(c) (OpaquePointer?) -> Int32).self),
           let sync = try? symbol("PQpipelineSync", (@convention(c) (OpaquePointer?) -> Int32).self) {
            pipelineMode = (enter, exit, sync)
        } else {
            pipelineMode = nil
        }
    }
}
