public import Foundation
public import Strata

/// Reads the models Xcode's model editor writes — a `.xcdatamodel` directory, its `contents`
/// file, or a versioned `.xcdatamodeld` directory — into Strata schemas.
///
/// Every name is kept exactly. What Strata has no place for (fetched properties, fetch request
/// templates, derived and composite attributes, `userInfo`, anything unknown) is reported as a
/// warning naming the element, never dropped silently; settings that only drive Xcode's code
/// generation or the diagram (`representedClassName`, `codeGenerationType`, `syncable`,
/// `usesScalarValueType`, `customClassName`, `<elements>`, the tool versions) are ignored.
///
/// ```swift
/// let imported = try XCDataModelImporter.importModel(at: URL(fileURLWithPath: "Moody.xcdatamodeld"))
/// print(imported.currentVersionName)            // "Moody 2"
/// try imported.current.jsonString.write(toFile: "Moody.json", atomically: true, encoding: .utf8)
/// ```
public enum XCDataModelImporter {
    /// Imports the model at `url`: a `.xcdatamodeld` directory (every version), a `.xcdatamodel`
    /// directory, or a model's `contents` file (whatever its name).
    /// - Throws: `SchemaError` — `unreadableFile` when the path does not exist or cannot be
    ///   read; `invalidSchema` when it is not an Xcode model, is malformed, or holds something
    ///   a Strata model cannot represent (each diagnostic names the file, line and element).
    public static func importModel(at url: URL) throws(SchemaError) -> XCDataModelImport {
        let path = displayPath(url)
        switch try kind(of: url, path: path) {
        case .bundle:
            return try importBundle(url, path: path)
        case .modelDirectory:
            let version = try importVersion(directory: url, path: path, modelName: modelName(for: url))
            return XCDataModelImport(versions: [version], currentVersionName: version.versionName, isVersioned: false, warnings: [])
        case .contentsFile:
            let directory = url.deletingLastPathComponent()
            let versionName = directory.pathExtension == "xcdatamodel"
                ? directory.deletingPathExtension().lastPathComponent
                : url.deletingPathExtension().lastPathComponent
            let version = try importContents(of: url, path: path, versionName: versionName, modelName: modelName(for: url))
            return XCDataModelImport(versions: [version], currentVersionName: versionName, isVersioned: false, warnings: [])
        }
    }

    /// Imports the text of one model's `contents` file.
    /// - Parameters:
    ///   - data: the bytes of the `contents` file (XML).
    ///   - versionName: the version's name (`Moody 2`).
    ///   - file: how diagnostics name the source, for example its path.
    ///   - modelName: the name the schema gets (made a valid Strata model name, with a warning if
    ///     it had to change) unless the file's `<model name="…">` gives one; `versionName` by default.
    /// - Throws: `SchemaError` with code `invalidSchema`.
    public static func importContents(
        _ data: Data, versionName: String, file: String? = nil, modelName: String? = nil
    ) throws(SchemaError) -> ImportedModel {
        try XCDataModelTranslator.importModel(data, versionName: versionName, file: file, modelName: modelName ?? versionName)
    }

    /// True when `url` looks like an Xcode model rather than a Strata JSON model file: a
    /// directory, a name ending in `.xcdatamodel`, `.xcdatamodeld` or `contents`, or a file whose
    /// first character other than white space is `<` (JSON never starts so).
    public static func isModel(at url: URL) -> Bool {
        let name = url.standardizedFileURL.lastPathComponent
        if ["xcdatamodel", "xcdatamodeld"].contains(url.pathExtension) || name == "contents" { return true }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return false }
        if isDirectory.boolValue { return true }
        guard (try? FileIdentity.requireRegularFile(url, role: "model file")) != nil,
              let handle = try? FileHandle(forReadingFrom: url)
        else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 256)) ?? Data()
        let first = start.drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }.first
        return first == UInt8(ascii: "<")
    }

    // MARK: - Paths

    private enum Kind {
        case bundle, modelDirectory, contentsFile
    }

    private static func kind(of url: URL, path: String) throws(SchemaError) -> Kind {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw SchemaError(code: .unreadableFile, file: path, reason: "no such file or directory")
        }
        guard isDirectory.boolValue else { return .contentsFile }
        switch url.pathExtension {
        case "xcdatamodeld": return .bundle
        case "xcdatamodel": return .modelDirectory
        default:
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("contents").path) { return .modelDirectory }
            if !versionDirectories(in: url).isEmpty { return .bundle }
            throw notAModel(path, "'\(path)' is a directory that holds no Xcode model: expected a .xcdatamodel directory (with a 'contents' file), a .xcdatamodeld directory, or a 'contents' file")
        }
    }

    /// The path as the caller gave it, without a trailing slash.
    private static func displayPath(_ url: URL) -> String {
        var path = url.relativePath
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The name a schema imported from `url` gets: the enclosing `.xcdatamodeld`'s name, else the
    /// `.xcdatamodel`'s, else the file's (without extension).
    private static func modelName(for url: URL) -> String {
        var current = url.standardizedFileURL
        var candidate: String?
        for _ in 0..<3 {
            switch current.pathExtension {
            case "xcdatamodeld": return current.deletingPathExtension().lastPathComponent
            case "xcdatamodel": candidate = candidate ?? current.deletingPathExtension().lastPathComponent
            default: break
            }
            current.deleteLastPathComponent()
        }
        return candidate ?? url.deletingPathExtension().lastPathComponent
    }

    private static func versionDirectories(in url: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".xcdatamodel") }
    }

    // MARK: - Reading

    private static func importBundle(_ url: URL, path: String) throws(SchemaError) -> XCDataModelImport {
        let directories = versionDirectories(in: url).sorted {
            naturalOrder(String($0.dropLast(".xcdatamodel".count)), String($1.dropLast(".xcdatamodel".count)))
        }
        guard !directories.isEmpty else {
            throw notAModel(path, "'\(path)' holds no model version: a .xcdatamodeld holds one .xcdatamodel directory per version")
        }
        let modelName = url.deletingPathExtension().lastPathComponent
        var versions: [ImportedModel] = []
        for directory in directories {
            let versionURL = url.appendingPathComponent(directory, isDirectory: true)
            versions.append(try importVersion(directory: versionURL, path: path + "/" + directory, modelName: modelName))
        }
        var warnings: [Diagnostic] = []
        let current: String
        if let named = try currentVersionName(in: url, path: path) {
            guard versions.contains(where: { $0.versionName == named }) else {
                throw notAModel(path + "/.xccurrentversion", "the current version is '\(named).xcdatamodel', which '\(path)' does not hold; it holds \(versions.map { "'\($0.versionName)'" }.joined(separator: ", "))")
            }
            current = named
        } else {
            current = versions[versions.count - 1].versionName
            if versions.count > 1 {
                warnings.append(Diagnostic(
                    severity: .warning, code: "noCurrentVersion",
                    message: "'\(path)' has no .xccurrentversion naming its current version; taking the last by name, '\(current)'",
                    path: "", file: path))
            }
        }
        return XCDataModelImport(versions: versions, currentVersionName: current, isVersioned: true, warnings: warnings)
    }

    private static func importVersion(directory: URL, path: String, modelName: String) throws(SchemaError) -> ImportedModel {
        let contents = directory.appendingPathComponent("contents")
        let versionName = directory.deletingPathExtension().lastPathComponent
        guard FileManager.default.fileExists(atPath: contents.path) else {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("elements").path) {
                throw notAModel(path, "'\(path)' is in the model format of Xcode 3, which has no 'contents' file; open and save it with a current Xcode first")
            }
            throw SchemaError(code: .unreadableFile, file: path + "/contents", reason: "no such file: a .xcdatamodel directory holds its model in a file named 'contents'")
        }
        return try importContents(of: contents, path: path + "/contents", versionName: versionName, modelName: modelName)
    }

    private static func importContents(of url: URL, path: String, versionName: String, modelName: String) throws(SchemaError) -> ImportedModel {
        let data: Data
        do {
            // Reading a FIFO would block until a writer comes.
            try FileIdentity.requireRegularFile(url, role: "model file")
            data = try Data(contentsOf: url)
        } catch let error as StrataError {
            throw SchemaError(code: .unreadableFile, file: path, reason: error.message)
        } catch {
            throw SchemaError(code: .unreadableFile, file: path, reason: (error as NSError).localizedDescription)
        }
        return try XCDataModelTranslator.importModel(data, versionName: versionName, file: path, modelName: modelName)
    }

    /// `_XCCurrentVersionName` of the bundle's `.xccurrentversion` property list, without its
    /// `.xcdatamodel` extension; nil when the bundle has no such file.
    private static func currentVersionName(in url: URL, path: String) throws(SchemaError) -> String? {
        let file = url.appendingPathComponent(".xccurrentversion")
        let filePath = path + "/.xccurrentversion"
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let plist: Any
        do {
            try FileIdentity.requireRegularFile(file, role: ".xccurrentversion file")
            // Foundation's property-list parser skips the DOCTYPE Xcode writes without loading
            // its DTD, and reads binary property lists too.
            plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil)
        } catch let error as StrataError {
            throw SchemaError(code: .unreadableFile, file: filePath, reason: error.message)
        } catch {
            throw notAModel(filePath, "'\(filePath)' is not a property list: \((error as NSError).localizedDescription)")
        }
        guard let name = (plist as? [String: Any])?["_XCCurrentVersionName"] as? String, !name.isEmpty else {
            throw notAModel(filePath, "'\(filePath)' has no _XCCurrentVersionName string naming the current version")
        }
        return name.hasSuffix(".xcdatamodel") ? String(name.dropLast(".xcdatamodel".count)) : name
    }

    private static func notAModel(_ file: String, _ message: String) -> SchemaError {
        SchemaError(
            code: .invalidSchema, file: file,
            diagnostics: [Diagnostic(severity: .error, code: "notAModel", message: message, path: "", file: file)])
    }

    /// Names in the order Xcode lists them: digit runs compared as numbers.
    static func naturalOrder(_ a: String, _ b: String) -> Bool {
        var left = Substring(a)
        var right = Substring(b)
        while let l = left.first, let r = right.first {
            if l.isASCII && l.isNumber && r.isASCII && r.isNumber {
                let leftDigits = left.prefix { $0.isASCII && $0.isNumber }
                let rightDigits = right.prefix { $0.isASCII && $0.isNumber }
                let leftTrimmed = leftDigits.drop { $0 == "0" }
                let rightTrimmed = rightDigits.drop { $0 == "0" }
                if leftTrimmed.count != rightTrimmed.count { return leftTrimmed.count < rightTrimmed.count }
                if leftTrimmed != rightTrimmed { return leftTrimmed < rightTrimmed }
                left = left.dropFirst(leftDigits.count)
                right = right.dropFirst(rightDigits.count)
            } else {
                if l != r { return l < r }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        return left.isEmpty && !right.isEmpty
    }
}
