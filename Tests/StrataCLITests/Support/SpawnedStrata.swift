import Foundation
import StrataTestKit
import Testing

/// A `strata` process left running (`strata watch`), whose output the test reads as it comes.
final class SpawnedStrata {
    private let process = Process()
    private let output: TemporaryDirectory
    private let stdout: FileHandle
    private let stderr: FileHandle

    /// Starts `strata arguments…` in `directory`.
    init(_ arguments: [String], in directory: URL) throws {
        guard let executable = StrataExecutable.url else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the strata executable was not found next to the test bundle; build it with `swift build`"])
        }
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        output = try TemporaryDirectory(prefix: "cli-spawned")
        try Data().write(to: output.file("stdout"))
        try Data().write(to: output.file("stderr"))
        stdout = try FileHandle(forWritingTo: output.file("stdout"))
        stderr = try FileHandle(forWritingTo: output.file("stderr"))
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var standardOutput: String { String(decoding: (try? Data(contentsOf: output.file("stdout"))) ?? Data(), as: UTF8.self) }
    var standardError: String { String(decoding: (try? Data(contentsOf: output.file("stderr"))) ?? Data(), as: UTF8.self) }

    /// The complete lines printed so far.
    var lines: [String] {
        let text = standardOutput
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Waits until `condition` holds or the process ends; gives up after 30 s so that a
    /// broken command fails its test instead of hanging the suite (not a timing assertion:
    /// the test then checks what it must).
    func wait(until condition: (SpawnedStrata) -> Bool) {
        let deadline = Date().addingTimeInterval(30)
        while !condition(self), process.isRunning, Date() < deadline { usleep(10_000) }
    }

    /// Waits for the line after the first `count`, and returns it (nil if none came).
    func line(_ index: Int) -> String? {
        wait { $0.lines.count > index }
        let lines = self.lines
        return index < lines.count ? lines[index] : nil
    }

    /// Sends `signal` and waits for the process to end: its exit status.
    func stop(with signal: Int32) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        try? stdout.close()
        try? stderr.close()
        return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
    }
}
