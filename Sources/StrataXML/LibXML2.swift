internal import CLibXML2

/// One-time libxml2 set-up.
package enum LibXML2 {
    /// `xmlInitParser` must run once before libxml2 is used from several threads ("it should
    /// be called from the main thread before any other thread uses the library" — parser.h);
    /// a static `let` runs it exactly once, whichever thread gets here first.
    package static let initialized: Bool = {
        xmlInitParser()
        return true
    }()
}

extension LibXML2 {
    /// Runs `body` with libxml2's per-thread generic error handler silenced, so that a failed
    /// write or read is reported once, as the error Strata throws, not also printed on stderr.
    package static func withoutErrorOutput<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let previous = strata_xml_silence_generic_errors()
        defer { strata_xml_restore_generic_errors(previous) }
        return try body()
    }
}
