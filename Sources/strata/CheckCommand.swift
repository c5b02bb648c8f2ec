import ArgumentParser
import Foundation
import Strata

/// `strata check`: the store file's own integrity and Strata's invariants, without changing it.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a store: the file's integrity and Strata's invariants (references, inverses, types, uniqueness, keys).",
        discussion: """
            Example: strata check todo.sqlite
            Checks that every reference leads to an existing object of the right entity, that \
            relationships and their inverses agree, that values decode to their attribute's types, \
            that required values are present, that uniqueness constraints hold, and that every \
            primary key is at most its hierarchy's key counter; for SQLite also PRAGMA \
            integrity_check, join rows without objects and rows naming unknown entities. The store \
            is not changed.
            Text output has one line per problem, `<file>: <Entity>/p<key>.<property>: message`, \
            then a summary line; --format json prints a JSON array of problems (objects with code, \
            entity, primaryKey, property, message), [] when the store is sound.
            Exit status: 0 when the store is sound, 1 when problems were found, 2 when the file \
            cannot be checked at all (missing, not a regular file, not a store, its header or \
            model unreadable).
            """
    )

    @Option(help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @Option(help: "The store type (sqlite, xml, binary); by default from the file.")
    var type: String?

    @Argument(help: "The store file.")
    var store: String

    func run() throws {
        try runReportingErrors {
            let report: StoreChecker.Report
            do throws(StrataError) {
                report = try StoreChecker.check(
                    storeAt: URL(fileURLWithPath: store), type: type.map { StoreType(rawValue: $0) },
                    storeTypes: StoreAccess.registry)
            } catch {
                // Nothing could be checked: exit 2, whatever the kind of error.
                throw CLIError.unreadable("cannot check '\(Echo.value(store))': \(error.description)")
            }
            switch format {
            case .text:
                for problem in report.problems {
                    Console.print("\(store): \(Echo.line(problem.description))")
                }
                let count = report.problems.count
                Console.print(report.isSound
                    ? "\(store): sound (\(report.type) store, \(report.objectCount) object\(report.objectCount == 1 ? "" : "s") checked)"
                    : "\(store): \(count) problem\(count == 1 ? "" : "s") found")
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                Console.print(report.isSound ? "[]" : String(decoding: try encoder.encode(report.problems), as: UTF8.self))
            }
            if !report.isSound { throw ExitCode(ExitStatus.invalid.rawValue) }
        }
    }
}
