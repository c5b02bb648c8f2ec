import ArgumentParser
import Foundation
import Strata

/// `strata query`: fetch objects with the predicate language, print them as JSON, a table or IDs.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Fetch objects of an entity (and its subentities) with a predicate, sort, limit and offset.",
        discussion: """
            Examples:
              strata query todo.sqlite Todo --where 'done == NO AND ANY tags.name ==[c] "home"' --sort -priority,title
              strata query todo.sqlite Todo --where 'title BEGINSWITH[cd] "buy"' --format ids
              strata query moody.sqlite GeographicRegion --count
              strata query library.sqlite Book --select 'publisher.name,@count,@avg.price' --group-by publisher.name --sort -@count --format csv
              strata query library.sqlite Book --select author.country --distinct --where 'year > 2000'

            --select fetches columns instead of objects: key paths (title, publisher.name, books.@count) \
            and aggregates over the objects of each group (@count, @count.price, @sum.pages, @avg.price, \
            @min.year, @max.published); --group-by makes one row per group of equal keys (one row in \
            all with aggregates and no --group-by), --having keeps the groups a predicate of column \
            names holds for, --sort then names columns, and --distinct drops repeated rows.

            --format json prints the data format ({"objects": {...}}, each entity's objects in result \
            order), which `strata load` reads back, or with --select an array of rows; table prints \
            aligned columns; csv a header row and one row per result (RFC 4180: CRLF line ends, fields \
            with commas, quotes or line breaks quoted, an empty field for nil); ids one @id per line. \
            An invalid predicate exits 1 and shows where it went wrong.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, table, ids, csv
    }

    @Option(help: "The store type (sqlite, xml, binary, coredata); by default from the file.")
    var type: String?

    @Argument(help: "The store file.")
    var store: String

    @Option(help: "The model to open the store with (needed for a Core Data store); by default the one stored in the store.")
    var schema: String?

    @Argument(help: "The entity to fetch; its subentities are included.")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in the NSPredicate format language.")
    var predicate: String?

    @Option(parsing: .unconditional, help: "Sort keys, comma-separated; a leading '-' sorts descending (for example -priority,title).")
    var sort: String?

    @Option(help: "Return at most this many objects; 0 means no limit (as Core Data's fetchLimit). A negative limit is refused.")
    var limit: Int?

    @Option(help: "Skip this many objects first (0, the default, skips none). A negative offset is refused.")
    var offset: Int?

    @Flag(help: "Print only how many objects match.")
    var count = false

    @Option(help: "Columns to fetch instead of objects, comma-separated: key paths and aggregates (for example 'publisher.name,@count,@avg.price'), or name=expression (for example 'revenue=sum:(price)').")
    var select: String?

    @Option(name: .customLong("group-by"), help: "Group keys, comma-separated: one row per group of objects with equal keys.")
    var groupBy: String?

    @Option(help: "A predicate the groups must hold, naming columns and group keys (for example '@count > 1').")
    var having: String?

    @Flag(help: "Drop repeated rows (with --select or --group-by).")
    var distinct = false

    @Option(help: "Output format: json, table, ids or csv.")
    var format: Format = .json

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 (no limit) or more, not \(limit)") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, not \(offset)") }
        if selectsRows && count { throw ValidationError("--count counts objects; it does not go with --select, --group-by, --having or --distinct") }
        if selectsRows && format == .ids { throw ValidationError("--format ids lists objects; use json, table or csv with --select, --group-by, --having or --distinct") }
    }

    /// Whether the query fetches rows of columns rather than objects.
    var selectsRows: Bool { select != nil || groupBy != nil || having != nil || distinct }

    func run() throws {
        try runReportingErrors {
            let coordinator = try StoreAccess.openExisting(store, type: type, schema: schema.map(StoreAccess.loadSchema))
            let context = ManagedObjectContext(coordinator: coordinator)
            var request = FetchRequest(entityName: entity)
            request.predicate = try parsePredicate(predicate)
            request.sortDescriptors = try parseSort(sort)
            request.fetchLimit = limit ?? 0
            request.fetchOffset = offset ?? 0
            if count {
                Console.print(String(try context.count(for: request)))
                return
            }
            if selectsRows {
                request.resultType = .dictionaries
                request.expressionsToFetch = try select.map(parseColumns)
                request.propertiesToGroupBy = try groupBy.map { try parseKeys($0, option: "--group-by") } ?? []
                request.havingPredicate = try parsePredicate(having)
                request.returnsDistinctResults = distinct
                let rows = try context.fetchDictionaries(request)
                let columns = request.expressionsToFetch?.map(\.name) ?? request.propertiesToGroupBy.nilIfEmpty
                    ?? (coordinator.schema.entity(named: entity)?.attributes ?? []).filter { !$0.isTransient }.map(\.name)
                print(Rows(columns: columns, rows: rows))
                return
            }
            let objects = try context.fetch(request)
            switch format {
            case .ids:
                for object in objects { Console.print(String(object.objectID.primaryKey ?? 0)) }
            case .json:
                FileHandle.standardOutput.write(Data(try DataExporter.dump(coordinator, objectIDs: objects.map(\.objectID)).utf8))
            case .table:
                Console.print(Table.render(objects))
            case .csv:
                let (columns, cells) = Table.cells(objects, escaped: false)
                FileHandle.standardOutput.write(Data(CSV.render(header: columns, rows: cells).utf8))
            }
        }
    }
}

extension QueryCommand {
    /// Prints rows of columns in the chosen format.
    func print(_ rows: Rows) {
        switch format {
        case .json, .ids:
            FileHandle.standardOutput.write(Data(JSONWriter().string(from: rows.json).utf8))
        case .table:
            Console.print(rows.table)
        case .csv:
            FileHandle.standardOutput.write(Data(CSV.render(header: rows.columns, rows: rows.cells(escaped: false)).utf8))
        }
    }
}

/// Parses `--select`: comma-separated columns, each a key path or aggregate (`publisher.name`,
/// `@avg.price`), or `name=expression` with an expression of the predicate language
/// (`revenue=sum:(price)`, `margin=@sum.price - @sum.cost`; commas inside parentheses and quotes
/// belong to the expression).
func parseColumns(_ text: String) throws -> [ExpressionDescription] {
    var columns: [ExpressionDescription] = []
    var part = ""
    var depth = 0
    var quote: Character?
    for character in text + "," {
        if let open = quote {
            if character == open { quote = nil }
        } else if character == "\"" || character == "'" {
            quote = character
        } else if character == "(" || character == "{" || character == "[" {
            depth += 1
        } else if character == ")" || character == "}" || character == "]" {
            depth -= 1
        } else if character == "," && depth == 0 {
            columns.append(try parseColumn(part.trimmingCharacters(in: .whitespaces), in: text))
            part = ""
            continue
        }
        part.append(character)
    }
    // An unclosed parenthesis or quote: the rest is one column, which the parser refuses.
    if !part.isEmpty { columns.append(try parseColumn(String(part.dropLast()).trimmingCharacters(in: .whitespaces), in: text)) }
    return columns
}

private func parseColumn(_ part: String, in text: String) throws -> ExpressionDescription {
    guard !part.isEmpty else { throw CLIError.invalid("--select has an empty key in '\(Echo.value(text))'") }
    guard let equals = part.firstIndex(of: "=") else { return ExpressionDescription(keyPath: part) }
    let name = part[..<equals].trimmingCharacters(in: .whitespaces)
    let source = part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty, !source.isEmpty else {
        throw CLIError.invalid("--select has '\(Echo.value(part))'; a named column is name=expression, such as revenue=sum:(price)")
    }
    // The parser of predicates reads the expression as the left side of a comparison.
    let predicate: FetchPredicate
    do {
        predicate = try FetchPredicate(format: "(\(source)) == nil")
    } catch {
        throw CLIError.invalid("--select: invalid expression '\(Echo.value(source))' for column '\(Echo.value(name))': \(error.message)")
    }
    guard case .comparison(let comparison) = predicate, comparison.right == .constant(.null) else {
        throw CLIError.invalid("--select: '\(Echo.value(source))' is not an expression (column '\(Echo.value(name))')")
    }
    return ExpressionDescription(name: name, expression: comparison.left)
}

/// Parses a comma-separated list of keys (`--select`, `--group-by`).
func parseKeys(_ text: String, option: String) throws -> [String] {
    try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
        let key = part.trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { throw CLIError.invalid("\(option) has an empty key in '\(Echo.value(text))'") }
        return key
    }
}

extension Array {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}

/// Parses `--where`; a syntax error exits 1 with the message and a caret under the column.
func parsePredicate(_ text: String?) throws -> FetchPredicate? {
    guard let text else { return nil }
    do {
        return try FetchPredicate(format: text)
    } catch {
        throw CLIError.invalid(error.description)
    }
}

/// Parses `--sort key,-key`.
func parseSort(_ text: String?) throws -> [FetchSortDescriptor] {
    guard let text else { return [] }
    return try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
        let key = part.trimmingCharacters(in: .whitespaces)
        let descending = key.hasPrefix("-")
        let path = descending ? String(key.dropFirst()) : key
        guard !path.isEmpty else { throw CLIError.invalid("--sort has an empty key in '\(Echo.value(text))'") }
        return FetchSortDescriptor(path, ascending: !descending)
    }
}

/// Aligned columns for a terminal: @id, the entity when the result mixes entities, every stored
/// attribute, and to-one relationships as the destination's @id.
enum Table {
    static func render(_ objects: [ManagedObject]) -> String {
        guard !objects.isEmpty else { return "(no objects)" }
        let (columns, rows) = cells(objects, escaped: true)
        return aligned(columns, rows)
    }

    /// The columns and cells of objects: escaped for a terminal (nil as `nil`), or as they are
    /// (nil as the empty string).
    static func cells(_ objects: [ManagedObject], escaped: Bool) -> (columns: [String], rows: [[String]]) {
        let mixed = Set(objects.map(\.entity.name)).count > 1
        var columns = ["@id"] + (mixed ? ["entity"] : [])
        var keys: [String] = []
        for object in objects {
            for attribute in object.entity.attributes where !attribute.isTransient && !keys.contains(attribute.name) {
                keys.append(attribute.name)
            }
            for relationship in object.entity.relationships where !relationship.isToMany && !keys.contains(relationship.name) {
                keys.append(relationship.name)
            }
        }
        columns += keys
        var rows: [[String]] = []
        for object in objects {
            var row = [String(object.objectID.primaryKey ?? 0)] + (mixed ? [object.entity.name] : [])
            for key in keys {
                guard object.entity.property(named: key) != nil else {
                    row.append("")
                    continue
                }
                row.append(cell(object.propertyValue(forKey: key), escaped: escaped))
            }
            rows.append(row)
        }
        return (columns, rows)
    }

    /// A header, a rule and the rows, in columns as wide as their widest cell.
    static func aligned(_ columns: [String], _ rows: [[String]]) -> String {
        let widths = columns.indices.map { index in
            ([columns[index]] + rows.map { $0[index] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        var lines = [line(columns), line(widths.map { String(repeating: "-", count: $0) })]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }

    /// A property value as a cell: escaped and cut for a terminal, with nil as `nil`, binary
    /// values by their size and to-many relationships by their count; or, unescaped, as the
    /// data format writes it (binary in base64, to-many as the @ids separated by spaces), nil
    /// as the empty string.
    static func cell(_ value: PropertyValue, escaped: Bool) -> String {
        switch value {
        case .attribute(let value?):
            guard escaped else {
                switch value.jsonValue {
                case .string(let text), .number(let text): return text
                case .bool(let flag): return flag ? "true" : "false"
                default: return ""
                }
            }
            switch value {
            case .string(let string): return Echo.value(string)
            case .binary(let data): return "<\(data.count) bytes>"
            default: return Echo.value(value.description)
            }
        case .attribute(nil), .toOne(nil): return escaped ? "nil" : ""
        case .toOne(let id?): return String(id.primaryKey ?? 0)
        case .toMany(let ids): return escaped ? "\(ids.count)" : ids.map { String($0.primaryKey ?? 0) }.joined(separator: " ")
        }
    }
}
