import ArgumentParser
import Foundation
import Strata

/// The `strata` command-line tool: thin wrappers that parse arguments, call the library and print.
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Validate Strata models and work with Strata stores.",
        discussion: """
            Exit status: 0 on success, 1 when the input is invalid, 2 for a usage error or a \
            file that cannot be read.
            """,
        subcommands: [ValidateCommand.self, LoadCommand.self, DumpCommand.self, QueryCommand.self, UpdateCommand.self, DeleteCommand.self, ConvertCommand.self, InspectCommand.self, CheckCommand.self, DiffCommand.self, MigrateCommand.self, ImportXCDataModelCommand.self, GenerateCommand.self, WatchCommand.self]
    )
}

/// Runs `strata` with the documented exit codes: argument-parser reports usage errors with 64
/// (EX_USAGE); Strata promises 2, as most Unix tools do.
@main
enum StrataMain {
    static func main() {
        do {
            var command = try StrataCommand.parseAsRoot()
            try command.run()
        } catch {
            if StrataCommand.exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((StrataCommand.fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            StrataCommand.exit(withError: error)
        }
    }
}

/// The exit statuses every `strata` command keeps to.
enum ExitStatus: Int32 {
    case success = 0
    /// The input was read but is invalid (a model with errors, a bad predicate, a failed save).
    case invalid = 1
    /// A usage error or an unreadable file.
    case usage = 2
}

/// `--format text|json`, for the commands that print a report either way.
enum TextOrJSON: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Output helpers shared by the commands.
enum Console {
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Prints a line on standard error as it is: for remarks beside output that must stay
    /// parseable (a JSON report).
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A report as the commands print JSON: pretty, keys sorted, slashes as they are.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Prints an error message; control characters in it are escaped and very long lines cut
    /// (`Echo.message(_:)`), as it may echo user data.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("strata: error: " + Echo.message(text) + "\n").utf8))
    }
}
