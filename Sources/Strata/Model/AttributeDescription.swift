/// An attribute of an entity: a named, typed value with its optionality, default and rules.
public struct AttributeDescription: Sendable, Hashable {
    public let name: String
    public let type: AttributeType
    /// False (the default) makes a value required at save.
    public let isOptional: Bool
    /// The value a new object starts with, already checked against the attribute's own rules.
    public let defaultValue: AttributeValue?
    public let isIndexed: Bool
    /// A transient attribute lives only in memory: no store keeps it.
    public let isTransient: Bool
    /// The smallest allowed value (numbers and dates).
    public let minimum: AttributeValue?
    /// The largest allowed value (numbers and dates).
    public let maximum: AttributeValue?
    /// The fewest characters a string may have (Swift `Character`s, grapheme clusters).
    public let minLength: Int?
    /// The most characters a string may have.
    public let maxLength: Int?
    /// An ICU regular expression (NSRegularExpression syntax) the whole string must match.
    public let regex: String?
    /// The name this attribute had in an earlier model version, for migrations.
    public let renamingIdentifier: String?
    /// The name of the value transformer that turns a `transformable` value into data.
    public let transformerName: String?
    /// Large `binary`/`transformable` values may be kept beside the store instead of inside it.
    public let allowsExternalStorage: Bool
    /// Changes the version hash without changing anything else, to force a migration.
    public let versionHashModifier: String?

    public init(
        name: String,
        type: AttributeType,
        isOptional: Bool = false,
        defaultValue: AttributeValue? = nil,
        isIndexed: Bool = false,
        isTransient: Bool = false,
        minimum: AttributeValue? = nil,
        maximum: AttributeValue? = nil,
        minLength: Int? = nil,
        maxLength: Int? = nil,
        regex: String? = nil,
        renamingIdentifier: String? = nil,
        transformerName: String? = nil,
        allowsExternalStorage: Bool = false,
        versionHashModifier: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.isTransient = isTransient
        self.minimum = minimum
        self.maximum = maximum
        self.minLength = minLength
        self.maxLength = maxLength
        self.regex = regex
        self.renamingIdentifier = renamingIdentifier
        self.transformerName = transformerName
        self.allowsExternalStorage = allowsExternalStorage
        self.versionHashModifier = versionHashModifier
    }
}
