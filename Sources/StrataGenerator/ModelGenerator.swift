public import Strata

/// Swift source for the entities of a model: a ``ManagedObject`` subclass per entity with typed
/// properties, and an enum that lists the classes for a container.
///
/// ```swift
/// let generator = ModelGenerator(schema: try Schema(contentsOf: modelURL))
/// for file in generator.files() { try file.write(into: outputDirectory) }
/// ```
/// Each entity `Book` gets `Book.strata.swift`: `final class Book: ManagedObject` (or a subclass
/// of its parent entity's class), with `@Attribute`, `@Relationship` and `@ToMany` properties.
/// An attribute is optional in Swift when the model says it is optional; a to-one is always
/// optional in Swift (an object is inserted before it is related); an unordered to-many is a
/// `Set`, an ordered one an `Array`. A transformable attribute has the type `Name.Value`, where
/// `Name` is its transformer's name: the app declares a type of that name, for example
/// `typealias MoodColors = CodableAttributeTransformer<[Color]>`. The model `Library` also gets
/// `LibraryModel.strata.swift`, whose `LibraryModel.classes` registers every class with a
/// container.
///
/// The output is a function of the model alone (no dates, paths or versions of the tool), so
/// regenerating an unchanged model gives the same bytes. Generated files are replaced whole:
/// write your own code in extensions in other files (`Book+Logic.swift`), which generation
/// never touches (mogenerator's lesson). An override such as `awakeFromInsert()` cannot live in
/// an extension: give initial values as model defaults, or set them where objects are inserted.
public struct ModelGenerator: Sendable {
    /// The access level of the generated declarations.
    public enum AccessLevel: String, Sendable, CaseIterable {
        case `public`
        case `internal`
    }

    public let schema: Schema
    public let access: AccessLevel

    public init(schema: Schema, access: AccessLevel = .internal) {
        self.schema = schema
        self.access = access
    }

    /// The name of the enum that lists the classes: the model's name and `Model`.
    public var registrationTypeName: String { schema.name + "Model" }

    /// Every file, in a stable order: one per entity in model order, then the registration file.
    public func files() -> [GeneratedFile] {
        schema.entities.map(file(for:)) + [registrationFile()]
    }

    // MARK: - Entities

    func file(for entity: EntityDescription) -> GeneratedFile {
        let attributes = entity.declaredAttributes
        let relationships = entity.declaredRelationships
        let usesFoundation = attributes.contains { Self.foundationTypes.contains($0.type) }
        var lines = header(forEntity: entity.name)
        if usesFoundation { lines.append("\(importKeyword) Foundation") }
        lines.append("\(importKeyword) Strata")
        lines.append("")
        let abstract = entity.isAbstract ? " (abstract: only its subentities have objects)" : ""
        lines.append("/// The entity `\(entity.name)` of the model '\(schema.name)'\(abstract).")
        let final = entity.subentityNames.isEmpty ? "final " : ""
        let parent = entity.parentName.map(SwiftNames.identifier) ?? type("ManagedObject", of: "Strata")
        lines.append("\(modifier)\(final)class \(SwiftNames.identifier(entity.name)): \(parent) {")
        lines.append("    \(modifier)override class var entityName: \(type("String", of: "Swift")) { \(SwiftNames.literal(entity.name)) }")
        if !attributes.isEmpty {
            lines.append("")
            for attribute in attributes {
                lines.append("    @\(type("Attribute", of: "Strata"))(\(SwiftNames.literal(attribute.name))) \(modifier)var \(SwiftNames.identifier(attribute.name)): \(swiftType(of: attribute))")
            }
        }
        if !relationships.isEmpty {
            lines.append("")
            for relationship in relationships {
                let destination = SwiftNames.identifier(relationship.destination)
                let (wrapper, swiftType) = relationship.isToMany
                    ? (type("ToMany", of: "Strata"), relationship.isOrdered ? "[\(destination)]" : "\(type("Set", of: "Swift"))<\(destination)>")
                    : (type("Relationship", of: "Strata"), "\(destination)?")
                lines.append("    @\(wrapper)(\(SwiftNames.literal(relationship.name))) \(modifier)var \(SwiftNames.identifier(relationship.name)): \(swiftType)")
            }
        }
        lines.append("}")
        return GeneratedFile(name: "\(entity.name).strata.swift", contents: lines.joined(separator: "\n") + "\n")
    }

    /// The Swift type of an attribute, optional when the model says so.
    func swiftType(of attribute: AttributeDescription) -> String {
        let base: String
        switch attribute.type {
        case .string: base = type("String", of: "Swift")
        case .int16: base = type("Int16", of: "Swift")
        case .int32: base = type("Int32", of: "Swift")
        case .int64: base = type("Int64", of: "Swift")
        case .decimal: base = type("Decimal", of: "Foundation")
        case .double: base = type("Double", of: "Swift")
        case .float: base = type("Float", of: "Swift")
        case .bool: base = type("Bool", of: "Swift")
        case .date: base = type("Date", of: "Foundation")
        case .binary: base = type("Data", of: "Foundation")
        case .uuid: base = type("UUID", of: "Foundation")
        case .uri: base = type("URL", of: "Foundation")
        case .transformable:
            // Without a transformer, a transformable attribute holds the data as it is.
            base = attribute.transformerName.map { "\(SwiftNames.typeName(forTransformer: $0)).Value" } ?? type("Data", of: "Foundation")
        }
        return attribute.isOptional ? base + "?" : base
    }

    /// The attribute types whose Swift types come from Foundation.
    static let foundationTypes: Set<AttributeType> = [.decimal, .date, .binary, .uuid, .uri]

    // MARK: - Registration

    func registrationFile() -> GeneratedFile {
        var lines = header(forEntity: nil)
        lines.append("\(importKeyword) Strata")
        lines.append("")
        let typeName = registrationTypeName
        lines += [
            "/// The classes generated from the model '\(schema.name)', for a container:",
            "/// `PersistentContainer(schema: schema, classes: \(typeName).classes)`.",
            "\(modifier)enum \(typeName) {",
            "    /// The model's name.",
            "    \(modifier)static let name = \(SwiftNames.literal(schema.name))",
            "    /// The version hash of the model the classes were generated from.",
            "    \(modifier)static let versionHash = \(SwiftNames.literal(schema.versionHash))",
            "",
            "    /// Every generated class, in the order of the model.",
            "    \(modifier)static var classes: [\(type("ManagedObject", of: "Strata")).Type] {",
            "        [",
        ]
        for entity in schema.entities {
            lines.append("            \(SwiftNames.identifier(entity.name)).self,")
        }
        lines += ["        ]", "    }"]
        let transformers = Set(schema.entities.flatMap(\.declaredAttributes).compactMap(\.transformerName)).sorted()
        if !transformers.isEmpty {
            lines += [
                "",
                "    /// Registers the value transformers the model names, each an instance of the type",
                "    /// of its name, under that name.",
                "    \(modifier)static func registerTransformers(in coordinator: \(type("PersistentStoreCoordinator", of: "Strata"))) {",
            ]
            for name in transformers {
                lines.append("        coordinator.attributeTransformers.register(\(SwiftNames.typeName(forTransformer: name))(), name: \(SwiftNames.literal(name)))")
            }
            lines.append("    }")
        }
        lines.append("}")
        return GeneratedFile(name: "\(typeName).strata.swift", contents: lines.joined(separator: "\n") + "\n")
    }

    // MARK: - Common parts

    /// A type generated code names, with its module when an entity of the model has its name
    /// (an entity `Relationship` or `Date` would otherwise stand for Strata's or Foundation's).
    private func type(_ name: String, of module: String) -> String {
        schema.entity(named: name) == nil ? name : "\(module).\(name)"
    }

    private var modifier: String { access == .public ? "public " : "" }
    private var importKeyword: String { access == .public ? "public import" : "import" }

    /// The comment every file starts with: the mark of a generated file, the model and its
    /// version hash, and where hand-written code goes.
    private func header(forEntity entity: String?) -> [String] {
        let version = schema.version.map { " (version \($0))" } ?? ""
        var lines = [
            GeneratedFile.marker + " regenerating replaces this file.",
            "// Model '\(schema.name)'\(version), version hash \(schema.versionHash).",
        ]
        if let entity {
            lines.append("// Write your own code for \(entity) in an extension in another file.")
        }
        lines.append("")
        return lines
    }
}
