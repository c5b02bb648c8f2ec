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
            --format json prints the data format ({"objects": {...}}, each entity's objects in result \
            order), which `strata load` reads back; table prints aligned columns; ids one @id per line. \
            An invalid predicate exits 1 and shows where it went wrong.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, table, ids
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

    @Option(help: "Output format: json, table or ids.")
    var format: Format = .json

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 (no limit) or more, not \(limit)") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, not \(offset)") }
    }

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
            let objects = try context.fetch(request)
            switch format {
            case .ids:
                for object in objects { Console.print(String(object.objectID.primaryKey ?? 0)) }
            case .json:
                FileHandle.standardOutput.write(Data(try DataExporter.dump(coordinator, objectIDs: objects.map(\.objectID)).utf8))
            case .table:
                Console.print(Table.render(objects))
            }
        }
    }
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
                switch object.propertyValue(forKey: key) {
                case .attribute(let value): row.append(value.map(cell) ?? "nil")
                case .toOne(let id): row.append(id.map { String($0.primaryKey ?? 0) } ?? "nil")
                case .toMany(let ids): row.append("\(ids.count)")
                }
            }
            rows.append(row)
        }
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

    private static func cell(_ value: AttributeValue) -> String {
        switch value {
        case .string(let string):
            Echo.value(string)
        case .binary(let data):
            "<\(data.count) bytes>"
        default:
            Echo.value(value.description)
        }
    }
}
