package import Foundation

/// The one document type declaration Core Data's XML stores carry,
/// `<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">`: recognised by its
/// exact name and system identifier, never loaded (the DTD is not on Linux, and no reader of
/// Strata fetches one).
package enum CoreDataDocumentType {
    package static let name = "database"
    package static let systemIdentifier = "file:///System/Library/DTDs/CoreData.dtd"

    /// True for exactly Core Data's declaration: name `database`, no public identifier, and
    /// Core Data's system identifier.
    package static func matches(name: String?, publicIdentifier: String?, systemIdentifier: String?) -> Bool {
        name == Self.name && publicIdentifier == nil && systemIdentifier == Self.systemIdentifier
    }

    /// True when a file's first bytes are (after an optional byte-order mark, whitespace and the
    /// XML declaration) Core Data's document type declaration: how a Core Data XML store is told
    /// from a Strata one, whose files have none.
    package static func isDeclared(inHeader header: Data) -> Bool {
        var bytes = Array(header)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        func skipSpace() { bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } }
        skipSpace()
        if bytes.starts(with: Array("<?xml".utf8)) {
            guard let end = bytes.firstRange(of: Array("?>".utf8)) else { return false }
            bytes = bytes[end.upperBound...]
            skipSpace()
        }
        for (index, word) in ["<!DOCTYPE", name, "SYSTEM"].enumerated() {
            guard bytes.starts(with: Array(word.utf8)) else { return false }
            bytes = bytes.dropFirst(word.utf8.count)
            let before = bytes.count
            skipSpace()
            if index < 2 && bytes.count == before { return false }
        }
        guard let quote = bytes.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return false }
        return bytes.dropFirst().starts(with: Array(systemIdentifier.utf8) + [quote])
    }
}
