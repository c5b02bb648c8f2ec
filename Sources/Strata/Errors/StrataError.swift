/// An error from the object graph, a coordinator or a store: a code to match on, a message for
/// the person at the terminal, and the context that locates the problem.
public struct StrataError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// A save found objects that break the model's rules; `failures` lists every one.
        case validationFailed
        /// A save would overwrite rows changed since they were read (optimistic locking).
        case mergeConflict
        /// The model names no such entity, or the entity no such property.
        case unknownEntity
        case unknownProperty
        /// A predicate or sort refers to something the entity does not have, or is malformed, or
        /// is larger than the limits every store shares (``FetchPredicate/maximumDepth``,
        /// ``FetchPredicate/maximumKeyPathLength``), or a `MATCHES` in it could not be decided
        /// (the match exceeded the regular expression engine's limits).
        case invalidPredicate
        /// An object ID or URI that no store of the coordinator holds.
        case objectNotFound
        case invalidObjectID
        /// The store was written with a different model.
        case incompatibleModel
        /// The store cannot honour part of the model (capabilities).
        case unsupportedModel
        /// The store file is damaged, truncated or not a Strata store.
        case corruptStore
        /// The store file could not be read, created or written.
        case storeIO
        /// No store of this type is known, or none holds the entity.
        case noStore
        /// A store description, configuration file or option is invalid.
        case invalidConfiguration
        /// An import file (the JSON data format) is malformed or refers to missing objects.
        case invalidData
        /// A migration cannot be carried out as asked: a change that cannot be inferred, or
        /// data that does not allow an inferable change (objects with no value for an attribute
        /// that becomes required, duplicates under a new uniqueness constraint). The store is
        /// unchanged.
        case migrationRefused
        /// A custom migration stage threw; the store is unchanged.
        case migrationFailed
        /// A `ManagedObject` subclass given to a container or coordinator does not fit the model:
        /// its entity is missing, or a typed property names a missing property or has a type
        /// that cannot hold its values.
        case classMismatch
    }

    public var code: Code
    public var message: String
    /// For `validationFailed` and `mergeConflict`: every object that failed, with its reason.
    public var failures: [ValidationFailure]
    /// For `invalidData`: every problem in the input, each with its file, line, column and path.
    public var diagnostics: [Diagnostic]
    /// The file involved, with a line and column where the text allows.
    public var file: String?
    public var location: SourceLocation?

    public init(
        _ code: Code, _ message: String, failures: [ValidationFailure] = [], diagnostics: [Diagnostic] = [],
        file: String? = nil, location: SourceLocation? = nil
    ) {
        self.code = code
        self.message = message
        self.failures = failures
        self.diagnostics = diagnostics
        self.file = file
        self.location = location
    }

    public var description: String {
        var text = ""
        if let file {
            text += file
            if let location { text += ":\(location)" }
            text += ": "
        }
        text += message
        for failure in failures { text += "\n  " + failure.description }
        for diagnostic in diagnostics { text += "\n  " + diagnostic.description }
        return text
    }
}

/// One rule one object broke, found by a save's validation.
public struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        case missingValue
        case belowMinimum
        case aboveMaximum
        case outOfRange
        case tooShort
        case tooLong
        case patternMismatch
        /// The `regex` rule could not be decided for the value: the match exceeded the regular
        /// expression engine's limits. The value is neither accepted nor said not to match.
        case patternNotEvaluated
        case tooFewObjects
        case tooManyObjects
        case notUnique
        case deleteDenied
        case conflict
    }

    public var code: Code
    public var objectID: ObjectID
    /// The property the rule is about, when there is one.
    public var key: String?
    public var message: String
    /// The other object the failure is about, when there is one: for a `conflict` on a
    /// relationship, the object it refers to, which the store no longer holds.
    public var relatedObjectID: ObjectID?

    /// A failure of `objectID`, about `key` when there is one, and about `relatedObjectID` when
    /// it concerns another object.
    public init(code: Code, objectID: ObjectID, key: String?, message: String, relatedObjectID: ObjectID? = nil) {
        self.code = code
        self.objectID = objectID
        self.key = key
        self.message = message
        self.relatedObjectID = relatedObjectID
    }

    public var description: String {
        "\(objectID)\(key.map { ".\($0)" } ?? ""): \(message)"
    }
}
