internal import Foundation

/// An error from the object graph, a coordinator or a store: a code to match on, a message for
/// the person at the terminal, and the context that locates the problem.
public struct StrataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error it is. Codes are values, not the cases of an enum (as swift-nio's
    /// error codes are): a version of Strata may add codes without breaking a `switch` over
    /// them, which takes a `default`. Each code's `rawValue` is its name, as in JSON output.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// A save found objects that break the model's rules; `failures` lists every one.
        public static let validationFailed = Code(rawValue: "validationFailed")
        /// A save would overwrite rows changed since they were read (optimistic locking).
        public static let mergeConflict = Code(rawValue: "mergeConflict")
        /// The model names no such entity, or the entity no such property.
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        public static let unknownProperty = Code(rawValue: "unknownProperty")
        /// A predicate or sort refers to something the entity does not have, or is malformed, or
        /// is larger than the limits every store shares (``FetchPredicate/maximumDepth``,
        /// ``FetchPredicate/maximumKeyPathLength``), or a `MATCHES` in it could not be decided
        /// (the match exceeded the regular expression engine's limits).
        public static let invalidPredicate = Code(rawValue: "invalidPredicate")
        /// An object ID or URI that no store of the coordinator holds.
        public static let objectNotFound = Code(rawValue: "objectNotFound")
        public static let invalidObjectID = Code(rawValue: "invalidObjectID")
        /// The store was written with a different model.
        public static let incompatibleModel = Code(rawValue: "incompatibleModel")
        /// The store cannot honour part of the model (capabilities).
        public static let unsupportedModel = Code(rawValue: "unsupportedModel")
        /// The store file is damaged, truncated or not a Strata store.
        public static let corruptStore = Code(rawValue: "corruptStore")
        /// The store file could not be read, created or written.
        public static let storeIO = Code(rawValue: "storeIO")
        /// No store of this type is known, or none holds the entity.
        public static let noStore = Code(rawValue: "noStore")
        /// A store description, configuration file or option is invalid.
        public static let invalidConfiguration = Code(rawValue: "invalidConfiguration")
        /// An import file (the JSON data format) is malformed or refers to missing objects.
        public static let invalidData = Code(rawValue: "invalidData")
        /// A migration cannot be carried out as asked: a change that cannot be inferred, or
        /// data that does not allow an inferable change (objects with no value for an attribute
        /// that becomes required, duplicates under a new uniqueness constraint). The store is
        /// unchanged.
        public static let migrationRefused = Code(rawValue: "migrationRefused")
        /// A custom migration stage threw; the store is unchanged.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// A `ManagedObject` subclass given to a container or coordinator does not fit the model:
        /// its entity is missing, or a typed property names a missing property or has a type
        /// that cannot hold its values.
        public static let classMismatch = Code(rawValue: "classMismatch")
        /// The connection to a store's server broke while it committed a save, and the server
        /// could not be asked since whether the transaction committed: the save may or may not
        /// be in the store. Nothing was retried, and a coordinator saving to several stores
        /// leaves the others as the save left them (it does not guess). Fetch the objects again
        /// to see what the store holds before saving them again.
        public static let commitOutcomeUnknown = Code(rawValue: "commitOutcomeUnknown")
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

    /// The error underneath, from the system or a library, when there is one: SQLite's result
    /// code and message, an `errno`, libxml2's error. The message already says it in words;
    /// the cause is for code that handles errors (a full disk, a busy database).
    public var cause: Cause?

    /// An error of the system or a library that a ``StrataError`` was made from.
    public struct Cause: Sendable, Hashable, CustomStringConvertible {
        /// Where ``code`` comes from: ``Domain/sqlite`` (an extended result code),
        /// ``Domain/posix`` (an `errno`), ``Domain/libxml2`` (an `xmlParserErrors` value).
        public var domain: Domain
        public var code: Int32
        /// The library's or system's own words for it.
        public var message: String

        /// A library or the system.
        public struct Domain: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }

            /// SQLite's (extended) result codes.
            public static let sqlite = Domain(rawValue: "sqlite")
            /// The C library's `errno` values.
            public static let posix = Domain(rawValue: "posix")
            /// libxml2's `xmlParserErrors`.
            public static let libxml2 = Domain(rawValue: "libxml2")
        }

        public init(domain: Domain, code: Int32, message: String) {
            self.domain = domain
            self.code = code
            self.message = message
        }

        /// An `errno` value, with the C library's message for it.
        public static func posix(_ code: Int32) -> Cause {
            Cause(domain: .posix, code: code, message: String(cString: strerror(code)))
        }

        public var description: String { "\(domain) \(code): \(message)" }
    }

    public init(
        _ code: Code, _ message: String, failures: [ValidationFailure] = [], diagnostics: [Diagnostic] = [],
        file: String? = nil, location: SourceLocation? = nil, cause: Cause? = nil
    ) {
        self.code = code
        self.message = message
        self.failures = failures
        self.diagnostics = diagnostics
        self.file = file
        self.location = location
        self.cause = cause
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
        /// A rule of the app refused the object: a validation rule registered with the
        /// coordinator (``PersistentStoreCoordinator/addValidationRule(forEntity:key:_:)``) or
        /// the object's `validateForInsert`, `validateForUpdate` or `validateForDelete`.
        case custom
    }

    public var code: Code
    public var objectID: ObjectID
    /// The property the rule is about, when there is one.
    public var key: String?
    public var message: String
    /// The other object the failure is about, when there is one: for a `conflict` on a
    /// relationship, the object it refers to, which the store no longer holds; for `notUnique`,
    /// the object that has the same values.
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

    /// `objectID` has the values of `other` under a uniqueness constraint (its attribute and
    /// relationship names).
    package static func notUnique(_ objectID: ObjectID, _ other: ObjectID, _ constraint: [String]) -> ValidationFailure {
        ValidationFailure(
            code: .notUnique, objectID: objectID, key: constraint.joined(separator: ","),
            message: "\(constraint.count == 1 ? "'\(constraint[0])' must be unique" : "(\(constraint.joined(separator: ", "))) must be unique together"), and \(other) has the same value",
            relatedObjectID: other)
    }
}
