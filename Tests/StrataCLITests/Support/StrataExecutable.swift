import Foundation
import StrataTestKit
import Testing

/// The output and exit status of one run of the `strata` executable.
struct StrataRun {
    var status: Int32
    var stdout: String
    var stderr: String
    /// True when the run was stopped because it outlived its timeout.
    var timedOut = false
}

/// Runs the built `strata` executable the way a person at a terminal would.
enum StrataExecutable {
    /// The `strata` executable that SwiftPM built next to the test bundle.
    static let url: URL? = {
        let starts = [
            Bundle.main.bundleURL,
            Bundle.main.executableURL?.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ].compactMap { $0 }
        for start in starts {
            var directory = start.standardizedFileURL
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("strata")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: candidate.path) {
                    return candidate
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }()

    /// setpriv(1), from util-linux, which drops a root process to another user.
    static let setpriv = "/usr/bin/setpriv"

    /// Whether the tests can run `strata` as a user who cannot write: as root, with setpriv.
    static var canDropPrivileges: Bool {
        getuid() != 0 || FileManager.default.isExecutableFile(atPath: setpriv)
    }

    /// Runs `strata arguments…` in `directory`, so that relative file names print as given.
    /// With a `timeout` (seconds), a run still going by then is terminated and reported with
    /// `timedOut`, so that a command that blocks (on a FIFO, say) fails its test instead of
    /// hanging the suite. `asNobody` runs it as user `nobody` (uid 65534) when the tests run as
    /// root — whom permission bits do not stop — through setpriv(1).
    static func run(_ arguments: [String], in directory: URL, timeout: Double? = nil, asNobody: Bool = false) throws -> StrataRun {
        let executable = try #require(
            url,
            "the strata executable was not found next to the test bundle (\(Bundle.main.bundleURL.path)) or in its parent directories; build it with `swift build`")
        let outputDirectory = try TemporaryDirectory(prefix: "cli-tests")
        let stdoutURL = outputDirectory.file("stdout")
        let stderrURL = outputDirectory.file("stderr")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)

        let process = Process()
        if asNobody && getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: setpriv)
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        var timedOut = false
        if let timeout {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                timedOut = true
                process.terminate()
            }
        }
        process.waitUntilExit()
        try stdout.close()
        try stderr.close()
        return StrataRun(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self),
            timedOut: timedOut)
    }
}
