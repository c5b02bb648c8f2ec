import ArgumentParser
import Foundation
import Strata
import StrataSQLite

/// `strata check`: the store file's own integrity and Strata's invariants, without changing it
/// (`--repair` first rewrites a SQLite store's stale comparison keys).
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
            integrity_check, join rows without objects, rows naming unknown entities, and shadow \
            columns (comparison keys) that no longer match their values. The store is not changed \
            unless --repair is given.
            Text output has one line per problem, `<file>: <Entity>/p<key>.<property>: message`, \
            then a summary line; --format json prints a JSON array of problems (objects with code, \
            entity, primaryKey, property, message), [] when the store is sound.
            With --repair (SQLite stores only) the shadow columns that let SQL compare strings, \
            URIs and decimals like Strata (`_<attribute>_nfc`, `_<attribute>_key`) are first \
            rewritten where they no longer match their value (a row edited by hand in the sqlite3 \
            shell), in one transaction, and `<file>: repaired <n> comparison keys` is printed (on standard \
            error with --format json); the \
            check then runs on the repaired store. Other problems are never repaired; other store \
            types keep no such columns, so there is nothing to repair.
            Exit status: 0 when the store is sound, 1 when problems were found, 2 when the file \
            cannot be checked at all (missing, not a regular file, not a store, its header or \
            model unreadable).
            """
    )

    @Option(help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @Option(help: "The store type (sqlite, xml, binary); by default from the file.")
    var type: String?

    @Flag(help: "First rewrite stale comparison keys of a SQLite store (after hand edits), then check.")
    var repair = false

    @Argument(help: "The store file.")
    var store: String

    func run() throws {
        try runReportingErrors {
            try refuseStoreWithoutModel()
            if repair { try repairComparisonKeys() }
            let report: StoreChecker.Report
            do throws(StrataError) {
                report = try StoreChecker.check(
                    storeAt: StoreAccess.location(store), type: type.map { StoreType(rawValue: $0) },
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
                Console.print(report.isSound ? "[]" : try Console.json(report.problems))
            }
            if !report.isSound { throw ExitCode(ExitStatus.invalid.rawValue) }
        }
    }

    /// A Core Data SQLite store keeps no model Strata can read, and `check` takes none: the
    /// error says how to check one (a copy converted with its model), not to give `--schema`.
    private func refuseStoreWithoutModel() throws {
        guard FileManager.default.fileExists(atPath: store),
              (try? StoreAccess.type(of: store, given: type)) == .coreDataSQLite
        else { return }
        throw CLIError.unreadable("cannot check '\(Echo.value(store))': it is a Core Data store, which keeps no model Strata can read, and `strata check` takes none; convert it with its model and check the copy: strata convert --schema <model> '\(Echo.value(store))' copy.sqlite, then strata check copy.sqlite")
    }

    /// `--repair`: rewrites the stale comparison keys of a SQLite store and says how many; says
    /// there is nothing to repair for other store types. On standard error with --format json,
    /// whose output is the JSON array alone.
    private func repairComparisonKeys() throws {
        let json = format == .json
        func say(_ line: String) { json ? Console.note(line) : Console.print(line) }
        // A missing file is the check's to report, with its message.
        guard FileManager.default.fileExists(atPath: store) else { return }
        let repaired: Int
        do {
            let coordinator = try StoreAccess.openExisting(store, type: type)
            guard let sqlite = coordinator.stores.first as? SQLiteStore else {
                say("\(store): nothing to repair: only SQLite stores keep comparison keys")
                return
            }
            repaired = try sqlite.refreshComparisonKeys()
        } catch let error as StrataError {
            throw CLIError.unreadable("cannot repair '\(Echo.value(store))': \(error.description)")
        }
        say("\(store): repaired \(repaired) comparison key\(repaired == 1 ? "" : "s")")
    }
}
