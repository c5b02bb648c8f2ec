import Foundation
import Strata
import StrataCoreData
import StrataTestKit
import Testing

/// A temporary directory holding Xcode model layouts (`.xcdatamodeld`/`.xcdatamodel`) made in a
/// test from the shared fixtures (copied into the temporary directory, never into the project)
/// or from text; removed when the test ends.
final class ModelDirectory {
    private let directory: TemporaryDirectory
    var url: URL { directory.url }

    init() throws {
        directory = try TemporaryDirectory(prefix: "xcmodel")
    }

    /// Writes `text` at `path` (relative, directories made as needed).
    @discardableResult
    func write(_ path: String, _ text: String) throws -> URL {
        try write(path, Data(text.utf8))
    }

    @discardableResult
    func write(_ path: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }

    /// A `.xcdatamodeld` named `name` with one version per (version name, fixture file), and the
    /// fixture `.xccurrentversion` plist when given.
    func bundle(_ name: String, versions: [(String, String)], currentVersion: String?) throws -> URL {
        for (version, fixture) in versions {
            try write("\(name).xcdatamodeld/\(version).xcdatamodel/contents", Data(contentsOf: CoreDataFixtures.model(fixture)))
        }
        if let currentVersion {
            try write("\(name).xcdatamodeld/.xccurrentversion", Data(contentsOf: CoreDataFixtures.model(currentVersion)))
        }
        return url.appendingPathComponent("\(name).xcdatamodeld")
    }
}

/// A model file's text: `<model>` around `body`, as Xcode writes it.
func modelXML(_ body: String, version: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23E224" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="\(version)">
    \(body)
    </model>
    """
}

/// Imports model text as the `contents` of version `Test`.
func importText(_ text: String, file: String = "Test.xcdatamodel/contents") throws -> ImportedModel {
    try XCDataModelImporter.importContents(Data(text.utf8), versionName: "Test", file: file)
}

/// The error importing `text` throws.
func importError(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> SchemaError {
    do {
        let model = try importText(text)
        Issue.record("expected the import to fail, got \(model.jsonString)", sourceLocation: sourceLocation)
        throw CancellationError()
    } catch let error as SchemaError {
        return error
    }
}

extension ImportedModel {
    /// The warning codes, in order.
    var warningCodes: [String] { warnings.map(\.code) }

    func entity(_ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> EntityDescription {
        try #require(schema.entity(named: name), "no entity \(name)", sourceLocation: sourceLocation)
    }

    func attribute(_ path: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> AttributeDescription {
        let parts = path.split(separator: ".").map(String.init)
        return try #require(entity(parts[0]).attribute(named: parts[1]), "no attribute \(path)", sourceLocation: sourceLocation)
    }

    func relationship(_ path: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> RelationshipDescription {
        let parts = path.split(separator: ".").map(String.init)
        return try #require(entity(parts[0]).relationship(named: parts[1]), "no relationship \(path)", sourceLocation: sourceLocation)
    }
}

/// A date given as seconds since 2001, Core Data's reference date.
func referenceDate(_ seconds: Double) -> Date {
    Date(timeIntervalSinceReferenceDate: seconds)
}
