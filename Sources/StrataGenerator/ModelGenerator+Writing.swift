public import Foundation

extension ModelGenerator {
    /// What writing did to one file.
    public enum FileChange: String, Sendable, Hashable {
        /// The file was new or had other contents.
        case written
        /// The file already held exactly the generated text and was left alone.
        case unchanged
        /// A file generated earlier from this model for an entity it no longer has.
        case removed
    }

    /// Writes every file into `directory` (created when missing), leaving files that already
    /// hold the generated text alone, and removes the files generated earlier from this model
    /// for entities it no longer has (files that start with the generator's mark and name this
    /// model; no other file is touched).
    /// - Returns: each file's name and what happened to it, in ``files()``'s order, the removed last.
    /// - Throws: the file system's error when the directory or a file cannot be written.
    @discardableResult
    public func write(into directory: URL) throws -> [(name: String, change: FileChange)] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files = files()
        var report: [(name: String, change: FileChange)] = []
        for file in files {
            report.append((file.name, try file.write(into: directory) ? .written : .unchanged))
        }
        let current = Set(files.map(\.name))
        let present = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in present.sorted() where name.hasSuffix(".strata.swift") && !current.contains(name) {
            let url = directory.appendingPathComponent(name)
            guard let text = try? String(contentsOf: url, encoding: .utf8), isGenerated(fromThisModel: text) else { continue }
            try FileManager.default.removeItem(at: url)
            report.append((name, .removed))
        }
        return report
    }

    /// Whether `text` is a file generated from a model of this one's name.
    private func isGenerated(fromThisModel text: String) -> Bool {
        let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        return GeneratedFile.isGenerated(text) && lines.count > 1 && lines[1].hasPrefix("// Model '\(schema.name)'")
    }
}
