import Foundation
import Strata

/// The rows of `strata query --select` (a dictionary fetch), in the order of its columns.
struct Rows {
    let columns: [String]
    let rows: [DictionaryRow]

    /// Each row's cells in column order: escaped for a terminal, or as they are (nil empty).
    func cells(escaped: Bool) -> [[String]] {
        rows.map { row in columns.map { Table.cell(row[$0] ?? .attribute(nil), escaped: escaped) } }
    }

    var table: String {
        rows.isEmpty ? "(no rows)" : Table.aligned(columns.map { Echo.value($0) }, cells(escaped: true))
    }

    /// An array of objects, each with the columns in order: values as the data format writes
    /// them, to-one relationships as the @id, to-many ones as an array of @ids.
    var json: JSONValue {
        .array(rows.map { row in
            JSONNode(.object(columns.map { column in
                let value: JSONValue
                switch row[column] ?? .attribute(nil) {
                case .attribute(let attribute): value = attribute?.jsonValue ?? .null
                case .toOne(let id): value = id.map { .number(String($0.primaryKey ?? 0)) } ?? .null
                case .toMany(let ids): value = .array(ids.map { JSONNode(.number(String($0.primaryKey ?? 0))) })
                }
                return JSONMember(key: column, value: JSONNode(value))
            }))
        })
    }
}

/// Comma-separated values as RFC 4180 has them: CRLF line ends, and a field that holds a
/// comma, a double quote, a CR or an LF in double quotes, its double quotes doubled.
enum CSV {
    static func render(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") + "\r\n" }.joined()
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
