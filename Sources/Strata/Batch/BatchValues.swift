internal import Foundation

/// The values of batch requests, checked against the model: each key an attribute the entity
/// stores, each value of the attribute's type (converted as a managed object's `setValue`
/// converts it), with errors instead of the traps a programmer's mistake on an object gets —
/// a batch's values often come from outside (a file, the command line).
enum BatchValues {
    /// The attribute `key` names, or an error naming the key and suggesting one.
    static func attribute(_ key: String, of entity: EntityDescription, request: String) throws(StrataError) -> AttributeDescription {
        if let attribute = entity.attribute(named: key) {
            guard !attribute.isTransient else {
                throw StrataError(.unknownProperty, "'\(entity.name).\(key)' is transient: no store keeps it, so a \(request) cannot set it")
            }
            return attribute
        }
        if entity.relationship(named: key) != nil {
            throw StrataError(.unknownProperty, "'\(entity.name).\(key)' is a relationship; a \(request) sets attributes only (as Core Data's does): set relationships through a context")
        }
        let stored = entity.attributes.filter { !$0.isTransient }.map(\.name)
        throw StrataError(.unknownProperty, "entity '\(entity.name)' has no attribute '\(Echo.value(key))'\(Suggestion.didYouMean(key, in: stored))")
    }

    /// `value` as a value of `attribute`; nil for nil, `NSNull` or an Optional that is nil.
    /// - Throws: `invalidData` for a value of another type, naming `place`.
    static func convert(
        _ value: Any?, for attribute: AttributeDescription, entity: String, transformers: AttributeTransformerRegistry, place: String
    ) throws(StrataError) -> AttributeValue? {
        // The common case first: a plain Swift value of the attribute's kind, found by its
        // dynamic type without casting to protocols or reflecting on it.
        if attribute.type != .transformable, let value, let plain = ManagedObject.plainAttributeValue(value), ManagedObject.fits(plain, attribute.type) {
            return ManagedObject.normalize(plain, to: attribute.type)
        }
        guard let value = value.flatMap(Self.unwrapped), !(value is NSNull) else { return nil }
        if attribute.type == .transformable, !(value is AttributeValue) {
            guard let name = attribute.transformerName, let transformer = transformers.transformer(named: name) else {
                if let data = value as? Data { return .binary(data) }
                throw StrataError(.invalidData, "\(place): \(entity).\(attribute.name) is transformable and no value transformer is registered for it; give Data, or register '\(attribute.transformerName ?? "")'")
            }
            do {
                return .binary(try transformer.transform(value))
            } catch {
                throw StrataError(.invalidData, "\(place): value transformer '\(name)' cannot encode a \(type(of: value)) for \(entity).\(attribute.name): \(error)")
            }
        }
        let converted: AttributeValue?
        if let plain = ManagedObject.plainAttributeValue(value) {
            converted = plain
        } else {
            switch value {
            case let v as AttributeValue: converted = v
            case let v as any BinaryInteger: converted = Int64(exactly: v).map { .integer($0) }
            case let v as any AttributeConvertible: converted = v.attributeValue
            case let v as URL: converted = .uri(v)
            case let v as Data: converted = .binary(v)
            default: converted = nil
            }
        }
        guard let converted, ManagedObject.fits(converted, attribute.type) else {
            throw StrataError(.invalidData, "\(place): \(entity).\(attribute.name) is \(article(attribute.type)) \(attribute.type.rawValue) attribute; it cannot hold \(Echo.value(String(reflecting: value))) (a \(type(of: value)))")
        }
        return ManagedObject.normalize(converted, to: attribute.type)
    }

    /// "an" before a type name that starts with a vowel (an int16, an URI is not a word: a uri).
    static func article(_ type: AttributeType) -> String {
        type.rawValue.first.map { "aeio".contains($0) } == true ? "an" : "a"
    }

    /// An Optional boxed in `Any` unwrapped; nil for one that is nil.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }

    /// The rules `value` (nil: none) breaks as the value of `attribute`, for `objectID`.
    static func failures(of value: AttributeValue?, for attribute: AttributeDescription, objectID: ObjectID) -> [ValidationFailure] {
        guard let value else {
            return attribute.isOptional ? [] : [ValidationFailure(code: .missingValue, objectID: objectID, key: attribute.name, message: "a value is required (the attribute is not optional)")]
        }
        guard let violation = AttributeRules.violation(of: value, for: attribute) else { return [] }
        return [ValidationFailure(code: violation.code, objectID: objectID, key: attribute.name, message: violation.message)]
    }
}

extension BatchValues {
    /// Where each key of a batch insert's dictionaries goes: its position in the entity's
    /// attribute layout (found by comparing small strings, not by hashing: see
    /// ``AttributeValues/Layout/position(of:)``), checked to be a stored attribute the first
    /// time it is seen.
    struct Slots {
        struct Slot {
            var position: Int
            var type: AttributeType
        }

        let entity: EntityDescription
        private let layout: AttributeValues.Layout
        /// The type of each position's attribute once checked.
        private var types: [AttributeType?]

        init(entity: EntityDescription) {
            self.entity = entity
            layout = entity.attributeLayout
            types = Array(repeating: nil, count: layout.count)
        }

        /// The slot of `key`.
        /// - Throws: `unknownProperty` for a key that is not a stored attribute.
        mutating func slot(_ key: String) throws(StrataError) -> Slot {
            if let position = layout.position(of: key), let type = types[position] { return Slot(position: position, type: type) }
            let attribute = try BatchValues.attribute(key, of: entity, request: "batch insert")
            let position = layout.position(of: key)!
            types[position] = attribute.type
            return Slot(position: position, type: attribute.type)
        }
    }

    /// The value of an attribute of `type` when `value` is a plain Swift value of its kind (a
    /// `String` for a string, an `Int`, `Int64` or `Int32` for an integer or a floating-point
    /// attribute, a `Double`, `Bool`, `Date`, `Decimal` or `UUID`), normalised as a managed
    /// object's `setValue` normalises it; nil for anything else, which ``convert(_:for:entity:transformers:place:)``
    /// takes. The existential is opened rather than cast: a checked cast from `Any` cost more
    /// than the rest of the value's insert.
    static func plain(_ value: Any, as type: AttributeType) -> AttributeValue? {
        opened(value, type)
    }

    private static func opened<T>(_ value: T, _ type: AttributeType) -> AttributeValue? {
        switch type {
        case .string:
            return T.self == String.self ? .string(unsafeBitCast(value, to: String.self)) : nil
        case .int16, .int32, .int64, .double, .float, .decimal:
            let integer: Int64
            if T.self == Int.self {
                integer = Int64(unsafeBitCast(value, to: Int.self))
            } else if T.self == Int64.self {
                integer = unsafeBitCast(value, to: Int64.self)
            } else if T.self == Int32.self {
                integer = Int64(unsafeBitCast(value, to: Int32.self))
            } else if T.self == Double.self {
                let double = unsafeBitCast(value, to: Double.self)
                switch type {
                case .double: return .double(double)
                case .float: return .float(Float(double))
                default: return nil
                }
            } else if T.self == Decimal.self {
                return type == .decimal ? .decimal(unsafeBitCast(value, to: Decimal.self)) : nil
            } else {
                return nil
            }
            return ManagedObject.normalize(.integer(integer), to: type)
        case .bool:
            return T.self == Bool.self ? .bool(unsafeBitCast(value, to: Bool.self)) : nil
        case .date:
            return T.self == Date.self ? .date(unsafeBitCast(value, to: Date.self)) : nil
        case .uuid:
            return T.self == UUID.self ? .uuid(unsafeBitCast(value, to: UUID.self)) : nil
        case .binary, .uri, .transformable:
            return nil
        }
    }
}
