import ArgumentParser
import Foundation
import Strata

/// `strata update`: sets attributes of the objects a predicate matches, as one batch update
/// (`BatchUpdateRequest`): every rule of the model is enforced, and an update that breaks one
/// changes nothing.
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Set attributes of the objects of an entity that match a predicate, in one batch update.",
        discussion: """
            Example: strata update books.sqlite Book --where 'year < 1900' --set price=9.99 --set-null subtitle
            Each value is read as its attribute's type: integers and doubles as numbers (and NaN, \
            Infinity, -Infinity for doubles), decimals exactly as written, booleans as true/false \
            (or yes/no, 1/0), dates in ISO 8601 (2024-05-01T10:00:00Z, with an offset or \
            milliseconds), UUIDs, URIs, binary data in base64; a string is taken as it is: \
            --set name= sets the empty string, --set name=null the text "null". --set-null KEY \
            removes the value. --set-expr KEY=EXPRESSION sets an attribute to an expression of \
            each object's own values in the predicate language (--set-expr 'price=price * 1.1', \
            --set-expr 'name=lowercase:(name)', --set-expr 'total=sum:(items.amount)'), computed \
            by the store (in SQL on SQLite), converted to the attribute's type (a whole number for \
            an integer) and checked as a value is. A value that breaks a rule of the model (a required value, a \
            range, a length, a pattern, a uniqueness constraint) refuses the whole update: it \
            exits 1, lists each object and rule, and leaves the store unchanged.
            """
    )

    @Option(help: "The store type (sqlite, xml, binary); by default from the file.")
    var type: String?

    @Argument(help: "The store file.")
    var store: String

    @Argument(help: "The entity whose objects to update; its subentities are included.")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in the NSPredicate format language (required; use TRUEPREDICATE to update all).")
    var predicate: String

    @Option(name: .customLong("set"), help: ArgumentHelp("An attribute and its new value, as KEY=VALUE (repeatable).", valueName: "key=value"))
    var assignments: [String] = []

    @Option(name: .customLong("set-null"), help: ArgumentHelp("An attribute whose value to remove (repeatable).", valueName: "key"))
    var nullified: [String] = []

    @Option(name: .customLong("set-expr"), help: ArgumentHelp("An attribute and an expression of each object's values, as KEY=EXPRESSION (repeatable).", valueName: "key=expression"))
    var expressions: [String] = []

    func validate() throws {
        guard !assignments.isEmpty || !nullified.isEmpty || !expressions.isEmpty else {
            throw ValidationError("give at least one --set KEY=VALUE or --set-null KEY")
        }
        for assignment in expressions where !assignment.contains("=") {
            throw ValidationError("--set-expr '\(assignment)' has no '='; write --set-expr KEY=EXPRESSION, such as --set-expr 'price=price * 1.1'")
        }
        for assignment in assignments where !assignment.contains("=") {
            throw ValidationError("--set '\(assignment)' has no '='; write --set KEY=VALUE (--set KEY= for the empty string, --set-null KEY for no value)")
        }
    }

    func run() throws {
        try runReportingErrors {
            try StoreAccess.refuseReadOnlyStore(store, type: type, command: "update")
            let coordinator = try StoreAccess.openExisting(store, type: type)
            let description = coordinator.schema.entity(named: entity)
            var values: [String: Any?] = [:]
            for assignment in assignments {
                let (key, text) = Self.split(assignment)
                guard values[key] == nil else { throw CLIError.invalid("'\(key)' is set twice") }
                // A key the entity has no attribute for goes to the library as it is, which
                // names it and suggests one.
                values[key] = try description?.attribute(named: key).map { try Self.value(text, for: $0, assignment: assignment) } ?? text
            }
            for assignment in expressions {
                let (key, text) = Self.split(assignment)
                guard values[key] == nil else { throw CLIError.invalid("'\(key)' is set twice") }
                do {
                    values[key] = try FetchExpression(format: text)
                } catch let error as PredicateSyntaxError {
                    throw CLIError.invalid("--set-expr \(Echo.value(String(reflecting: assignment))): invalid expression: \(error.message)")
                }
            }
            for key in nullified {
                guard values[key] == nil else { throw CLIError.invalid("'\(key)' is set twice") }
                values[key] = .some(nil)
            }
            let request = BatchUpdateRequest(entityName: entity, predicate: try parsePredicate(predicate), propertiesToUpdate: values)
            let result = try coordinator.execute(request)
            Console.print("updated \(result.count) \(entity) object\(result.count == 1 ? "" : "s")")
        }
    }

    /// `KEY=VALUE` split at its first `=`.
    static func split(_ assignment: String) -> (key: String, value: String) {
        let equals = assignment.firstIndex(of: "=")!
        return (String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...]))
    }

    /// The text of `--set` as a value of the attribute's type.
    static func value(_ text: String, for attribute: AttributeDescription, assignment: String) throws -> AttributeValue {
        let json: JSONValue
        switch attribute.type {
        case .int16, .int32, .int64, .double, .float:
            if [.double, .float].contains(attribute.type), ["NaN", "Infinity", "-Infinity"].contains(text) {
                json = .string(text)
            } else if isNumber(text) {
                json = .number(text)
            } else {
                json = .string(text)
            }
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": json = .bool(true)
            case "false", "no", "0": json = .bool(false)
            default: json = .string(text)
            }
        case .string, .decimal, .date, .binary, .transformable, .uuid, .uri:
            json = .string(text)
        }
        do {
            return try AttributeValue(json: json, as: attribute.type)
        } catch {
            // The text is what was found, whichever JSON kind it was read as.
            var message = error.message
            for kind in [", found a string", ", found true", ", found false"] where message.hasSuffix(kind) {
                message = String(message.dropLast(kind.count)) + ", found \(String(reflecting: text))"
            }
            throw CLIError.invalid("--set \(Echo.value(String(reflecting: assignment))): '\(attribute.name)' is \(attribute.type.rawValue.first.map { "aeio".contains($0) } == true ? "an" : "a") \(attribute.type.rawValue) attribute; \(message)")
        }
    }

    /// Whether `text` is a JSON number (`-12`, `3.5`, `1e9`): what the value readers take.
    static func isNumber(_ text: String) -> Bool {
        text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil
    }
}
