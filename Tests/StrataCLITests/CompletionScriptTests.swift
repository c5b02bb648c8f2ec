import Foundation
import Testing

/// `strata --generate-completion-script <shell>` (swift-argument-parser's), as the README tells
/// users to install it: every subcommand of `StrataCommand` is offered, the bash script is valid
/// bash and completes, and each shell's script has the shape that shell loads.
@Suite("strata --generate-completion-script")
struct CompletionScriptTests {
    /// The subcommands `strata` has today, in `StrataCommand`'s order; the scripts must offer
    /// each (a later command may be added anywhere in the list).
    static let knownSubcommands = [
        "validate", "load", "dump", "query", "update", "delete", "convert", "inspect", "check", "diff", "migrate",
        "import-xcdatamodel",
    ]

    /// Every subcommand of the built `strata`, from its own description of itself
    /// (`--experimental-dump-help`), with argument-parser's `help` last.
    static func subcommands(in workspace: Workspace) throws -> [String] {
        let run = try workspace.run("--experimental-dump-help")
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let command = try #require(json["command"] as? [String: Any])
        #expect(command["commandName"] as? String == "strata")
        let subcommands = try #require(command["subcommands"] as? [[String: Any]])
        return subcommands.compactMap { $0["commandName"] as? String }
    }

    @Test func theCommandListsEverySubcommand() throws {
        let names = try Self.subcommands(in: Workspace())
        #expect(names.filter(Self.knownSubcommands.contains) == Self.knownSubcommands)
        #expect(names.last == "help")
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func theScriptOffersEverySubcommand(shell: String) throws {
        let workspace = try Workspace()
        let names = try Self.subcommands(in: workspace)
        let run = try workspace.run("--generate-completion-script", shell)
        #expect(run.status == 0)
        #expect(run.stderr == "")
        let script = run.stdout
        switch shell {
        case "bash":
            #expect(script.hasPrefix("#!/bin/bash\n"))
            #expect(script.contains("COMPREPLY+=($(compgen -W '\(names.joined(separator: " "))' -- \"${cur}\"))"))
            #expect(script.hasSuffix("complete -o filenames -F _strata strata\n"))
        case "zsh":
            #expect(script.hasPrefix("#compdef strata\n"))
            #expect(script.contains("        \(names.joined(separator: "|")))\n"))
            for name in names { #expect(script.contains("            '\(name):"), "\(name)") }
        default:
            for name in names {
                #expect(script.contains("complete -c 'strata' -n '__strata_should_offer_completions_for_positional \"strata\" -eq 1' -fa '\(name)'"), "\(name)")
            }
        }
        // The shell's own syntax check, where the shell is installed (bash always is on Linux).
        if let path = Self.executable(shell) {
            try workspace.write("strata.\(shell)", script)
            let check = Self.runShell(path, ["-n", "strata.\(shell)"], in: workspace.url)
            #expect(check.status == 0, "\(shell) -n: \(check.output)")
        }
    }

    /// Sources the bash script and asks its completion function what it offers, as bash does at
    /// a Tab: subcommands, a subcommand's options, an option's values.
    @Test(.enabled(if: CompletionScriptTests.executable("bash") != nil, "bash is not installed"))
    func bashCompletesSubcommandsOptionsAndValues() throws {
        let workspace = try Workspace()
        let names = try Self.subcommands(in: workspace)
        try workspace.write("strata.bash", try workspace.run("--generate-completion-script", "bash").stdout)
        let program = #"""
            source ./strata.bash
            offer() {
                COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
                _strata strata "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\n' "${COMPREPLY[@]}" '--'
            }
            offer strata ''
            offer strata mi
            offer strata query --fo
            offer strata query --format ''
            offer strata check --format ''
            """#
        let result = Self.runShell(try #require(Self.executable("bash")), ["-c", program], in: workspace.url)
        #expect(result.status == 0, "\(result.output)")
        let offers = result.output.split(separator: "--\n", omittingEmptySubsequences: false).map {
            $0.split(separator: "\n").map(String.init)
        }
        #expect(offers.count == 6)
        #expect(offers.first == ["-h", "--help"] + names)
        #expect(offers.dropFirst().first == ["migrate"])
        #expect(offers.dropFirst(2).first == ["--format"])
        #expect(offers.dropFirst(3).first == ["json", "table", "ids", "csv"])
        #expect(offers.dropFirst(4).first == ["text", "json"])
    }

    /// The path of `name` on `PATH`, or nil.
    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a shell with `arguments` in `directory`; its exit status and its output and errors
    /// together.
    static func runShell(_ shell: String, _ arguments: [String], in directory: URL) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return (-1, "\(error)") }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
