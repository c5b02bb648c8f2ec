import Foundation
import Testing
@testable import Strata

/// Error codes are values a later version may add to without breaking code that matches on
/// them; an error carries the system's or library's error underneath it.
@Suite struct StrataErrorTests {
    @Test func codesAreTheirNamesAndNewOnesCanBeMade() throws {
        #expect(StrataError.Code.mergeConflict.rawValue == "mergeConflict")
        #expect("\(StrataError.Code.corruptStore)" == "corruptStore")
        let later = StrataError.Code(rawValue: "quotaExceeded")
        #expect(later != .storeIO)
        let encoded = try JSONEncoder().encode([StrataError.Code.storeIO, later])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["storeIO","quotaExceeded"]"#)
        #expect(try JSONDecoder().decode([StrataError.Code].self, from: encoded) == [.storeIO, later])
        // Matching needs a default, as for any value.
        func kind(_ code: StrataError.Code) -> String {
            switch code {
            case .mergeConflict: "conflict"
            case .storeIO, .corruptStore: "file"
            default: "other"
            }
        }
        #expect([kind(.mergeConflict), kind(.storeIO), kind(later)] == ["conflict", "file", "other"])
    }

    @Test func aFailedSystemCallCarriesItsErrno() throws {
        let missing = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/store.xml")
        let error = #expect(throws: StrataError.self) { try FileSync.sync(missing) }
        #expect(error?.code == .storeIO)
        #expect(error?.cause == StrataError.Cause(domain: .posix, code: ENOENT, message: "No such file or directory"))
        #expect(error?.cause?.description == "posix \(ENOENT): No such file or directory")
    }
}
