import Foundation
import Strata
import StrataTestKit
import Testing
@testable import StrataSQLite

/// A SQLite failure carries SQLite's extended result code and message as the error's cause.
@Suite struct DatabaseErrorCauseTests {
    @Test func aFailedStatementCarriesSQLitesCode() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let database = try Database(path: directory.file("cause.sqlite").path, mode: .init(readOnly: false, create: true))
        try database.execute("CREATE TABLE t (x INTEGER NOT NULL)")
        let error = #expect(throws: StrataError.self) { try database.execute("INSERT INTO t (x) VALUES (NULL)") }
        // SQLITE_CONSTRAINT_NOTNULL: 19 | (5 << 8).
        #expect(error?.cause == StrataError.Cause(domain: .sqlite, code: 1299, message: "NOT NULL constraint failed: t.x"))
    }
}
