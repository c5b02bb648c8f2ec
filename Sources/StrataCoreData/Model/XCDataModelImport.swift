public import Strata

/// One Xcode model (one `.xcdatamodel`, or one version of a `.xcdatamodeld`) as a Strata schema,
/// with everything that could not be carried over reported as a warning.
public struct ImportedModel: Sendable {
    /// The version's name: `Moody 2` for `Moody 2.xcdatamodel`; for a loose `contents` file, its
    /// directory's name (or the file's, without extension, when the directory is no `.xcdatamodel`).
    public let versionName: String
    /// The `contents` file that was read, as the caller named it.
    public let file: String
    /// The model, validated like any Strata model file.
    public let schema: Schema
    /// What Strata has no place for (fetched properties, fetch request templates, derived and
    /// composite attributes, `userInfo`, unknown elements), what was adjusted, and the model's
    /// own warnings (a relationship without an inverse). Each names its element, with the line
    /// and column of the model file and the JSON path in ``jsonString``.
    public let warnings: [Diagnostic]

    /// The schema in Strata's JSON model format (canonical: what `Schema.jsonString` writes).
    public var jsonString: String { schema.jsonString }

    package init(versionName: String, file: String, schema: Schema, warnings: [Diagnostic]) {
        self.versionName = versionName
        self.file = file
        self.schema = schema
        self.warnings = warnings
    }
}

/// What importing an Xcode model found: one schema per version, and which version is current.
///
/// A single `.xcdatamodel` (or its `contents` file) gives one version, which is current.
/// ```swift
/// let imported = try XCDataModelImporter.importModel(at: URL(fileURLWithPath: "Moody.xcdatamodeld"))
/// for version in imported.versions { print(version.versionName, version.warnings.count) }
/// let schema = imported.current.schema
/// ```
public struct XCDataModelImport: Sendable {
    /// Every version, in the order Xcode lists them (by name, numbers compared as numbers:
    /// `Model`, `Model 2`, `Model 10`).
    public let versions: [ImportedModel]
    /// The name of the current version (`_XCCurrentVersionName` of `.xccurrentversion`).
    public let currentVersionName: String
    /// True when the path was a `.xcdatamodeld` (a versioned model), even with one version.
    public let isVersioned: Bool
    /// Warnings about the bundle itself (a missing `.xccurrentversion`); each version's own
    /// warnings are in ``ImportedModel/warnings``.
    public let warnings: [Diagnostic]

    /// The current version.
    public var current: ImportedModel {
        versions.first { $0.versionName == currentVersionName } ?? versions[versions.count - 1]
    }

    /// The version named `name`, if there is one.
    public func version(named name: String) -> ImportedModel? {
        versions.first { $0.versionName == name }
    }

    package init(versions: [ImportedModel], currentVersionName: String, isVersioned: Bool, warnings: [Diagnostic]) {
        precondition(!versions.isEmpty, "an import has at least one version")
        self.versions = versions
        self.currentVersionName = currentVersionName
        self.isVersioned = isVersioned
        self.warnings = warnings
    }
}
