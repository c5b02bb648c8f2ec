internal import Foundation
internal import Strata

extension XCDataModelTranslator {
    /// Xcode's `attributeType` names.
    static let attributeTypes: [String: AttributeType] = [
        "Integer 16": .int16, "Integer 32": .int32, "Integer 64": .int64, "Decimal": .decimal,
        "Double": .double, "Float": .float, "String": .string, "Boolean": .bool, "Date": .date,
        "Binary": .binary, "UUID": .uuid, "URI": .uri, "Transformable": .transformable,
    ]

    /// The transformer Core Data uses for a transformable attribute that names none.
    static let defaultTransformerName = "NSKeyedUnarchiveFromData"

    /// Seconds from 1970 to 2001, Core Data's reference date.
    static let referenceDateOffset: Double = 978_307_200

    mutating func translateAttribute(_ element: ModelXMLElement, entity position: Int) {
        let entity = entities[position]
        guard let name = element.nonEmpty("name") else {
            return error("missingName", "an <attribute> of entity '\(entity.name)' has no name", at: place(of: element, entity.place.label, path: entity.place.path))
        }
        let label = "attribute '\(entity.name).\(name)'"
        let attributePlace = place(of: element, label, path: "\(entity.place.path).attributes[\(entity.attributes.count)]")
        let droppedPlace = place(of: element, label, path: entity.place.path)
        let typeName = element["attributeType"] ?? ""
        let isTransient = element.flag("transient")
        guard let type = Self.attributeTypes[typeName] else {
            switch typeName {
            case "Composite":
                return warn("compositeAttribute", "\(label) is not imported: it is a composite attribute, and Strata has no composite attributes; model its fields as attributes", at: droppedPlace)
            case "Undefined", "ObjectID":
                guard isTransient else {
                    return error("unknownType", "\(label) has attributeType \(typeName), which Core Data allows on transient attributes only", at: droppedPlace)
                }
                return warn("transientType", "transient \(label) is not imported: Strata has no \(typeName) type (it held values in memory only)", at: droppedPlace)
            case "":
                return error("missingType", "\(label) has no attributeType", at: droppedPlace)
            default:
                return error("unknownType", "\(label) has attributeType \(String(reflecting: typeName)), which Strata cannot represent; Strata's types are those of Core Data: Integer 16/32/64, Decimal, Double, Float, String, Boolean, Date, Binary, UUID, URI, Transformable", at: droppedPlace)
            }
        }
        var members: [JSONMember] = []
        members.add("name", .string(name))
        members.add("type", .string(type.rawValue))
        // Xcode writes optional="YES" for an optional property and nothing for a required one.
        if element.flag("optional") { members.add("optional", .bool(true)) }

        let minimum = boundValue(element, "min", type: type, label: label, at: attributePlace)
        let maximum = boundValue(element, "max", type: type, label: label, at: attributePlace)
        var minLength: Int?
        var maxLength: Int?
        var regex: String?
        if type == .string {
            minLength = length(element, "minValueString", label: label, at: attributePlace)
            maxLength = length(element, "maxValueString", label: label, at: attributePlace)
            regex = element.nonEmpty("regularExpressionString")
        } else if let pattern = element.nonEmpty("regularExpressionString") {
            warn("ignoredSetting", "\(label): the regular expression \(String(reflecting: pattern)) is not imported: Strata checks patterns on strings only", at: attributePlace)
        }
        if let value = defaultValue(element, type: type, label: label, at: attributePlace) {
            if let violation = AttributeRules.violation(
                of: value, type: type, minimum: minimum, maximum: maximum, minLength: minLength, maxLength: maxLength, regex: regex) {
                warn("defaultDropped", "\(label): the default \(value) is not imported: it breaks the attribute's own rule (\(violation.message)), which a Strata model does not allow", at: attributePlace)
            } else {
                members.add("default", value.jsonValue)
            }
        }
        if element.flag("indexed") {
            if isTransient {
                warn("ignoredSetting", "transient \(label) is not indexed in Strata: no store keeps it", at: attributePlace)
            } else {
                members.add("indexed", .bool(true))
            }
        }
        if isTransient { members.add("transient", .bool(true)) }
        members.add("min", minimum?.jsonValue)
        members.add("max", maximum?.jsonValue)
        members.add("minLength", minLength.map { .number(String($0)) })
        members.add("maxLength", maxLength.map { .number(String($0)) })
        members.add("regex", regex.map(JSONValue.string))
        if type == .transformable {
            let transformer = element.nonEmpty("valueTransformerName") ?? Self.defaultTransformerName
            if element.nonEmpty("valueTransformerName") == nil {
                warn("defaultTransformer", "transformable \(label) names no value transformer; imported with '\(transformer)', the one Core Data uses then: register a transformer of that name", at: attributePlace)
            }
            members.add("transformer", .string(transformer))
        } else if let transformer = element.nonEmpty("valueTransformerName") {
            warn("ignoredSetting", "\(label): the value transformer '\(transformer)' is not imported: only transformable attributes have one", at: attributePlace)
        }
        if element.flag("allowsExternalBinaryDataStorage") {
            if type == .binary || type == .transformable {
                members.add("externalStorage", .bool(true))
            } else {
                warn("ignoredSetting", "\(label): external storage applies to binary and transformable attributes only", at: attributePlace)
            }
        }
        members.add("renamingIdentifier", (element.nonEmpty("elementID") ?? element.nonEmpty("renamingIdentifier")).map(JSONValue.string))
        members.add("versionHashModifier", element.nonEmpty("versionHashModifier").map(JSONValue.string))

        if element.flag("derived") {
            let expression = element.nonEmpty("derivationExpression").map { " (\($0))" } ?? ""
            warn("derivedAttribute", "\(label) is derived in Core Data\(expression); Strata imports it as an ordinary stored attribute, which nothing computes", at: attributePlace)
        }
        for (setting, meaning) in Self.platformFlags where element.flag(setting) {
            warn("unsupportedSetting", "\(label): \(meaning) (\(setting)=\"YES\") is not imported: Strata has no such setting", at: attributePlace)
        }
        ignoreOrWarnAttributes(
            of: element,
            handled: Self.handledAttributeSettings.union(Self.platformFlags.map(\.setting)),
            silent: Self.codeGenerationSettings, at: attributePlace)
        for child in element.children {
            if child.name == "userInfo" { warnUserInfo(child, of: attributePlace) } else { warnUnknown(child, in: label, at: attributePlace) }
        }
        entities[position].attributes.append(AttributeDraft(name: name, members: members, place: attributePlace))
    }

    /// Settings the attribute translation reads.
    static let handledAttributeSettings: Set<String> = [
        "name", "attributeType", "optional", "transient", "indexed", "defaultValueString", "defaultDateTimeInterval",
        "minValueString", "maxValueString", "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString",
        "valueTransformerName", "allowsExternalBinaryDataStorage", "elementID", "renamingIdentifier",
        "versionHashModifier", "derived", "derivationExpression",
    ]

    /// Settings that drive Xcode's code generation or sync services only, ignored silently.
    static let codeGenerationSettings: Set<String> = ["syncable", "usesScalarValueType", "customClassName", "codeGenerationType"]

    /// Flags of Apple's platforms that Strata has no place for, warned about when set.
    static let platformFlags: [(setting: String, meaning: String)] = [
        ("spotlightIndexingEnabled", "indexing in Spotlight"),
        ("storedInTruthFile", "storing in an external record file"),
        ("preserveAfterDeletion", "preserving the value in persistent history after deletion"),
        ("allowsCloudEncryption", "encrypting the value in CloudKit"),
    ]

    // MARK: - Values

    /// The default value, parsed per type from `defaultValueString` (dates: from
    /// `defaultDateTimeInterval`, seconds since 2001, when Xcode wrote it).
    private mutating func defaultValue(_ element: ModelXMLElement, type: AttributeType, label: String, at place: Place) -> AttributeValue? {
        if type == .date, let interval = element.nonEmpty("defaultDateTimeInterval") {
            return dateValue(interval: interval, key: "defaultDateTimeInterval", label: label, at: place)
        }
        guard let text = element["defaultValueString"] else { return nil }
        if type == .binary || type == .transformable {
            warn("ignoredSetting", "\(label): the default \(String(reflecting: text)) is not imported: Strata gives binary and transformable attributes no default", at: place)
            return nil
        }
        if text.isEmpty && type != .string { return nil }
        return value(text, type: type, key: "defaultValueString", label: label, at: place)
    }

    /// `minValueString`/`maxValueString` (dates: `minDateTimeInterval`/`maxDateTimeInterval`) of a
    /// number or date attribute; a string's are its lengths, read by ``length(_:_:label:at:)``.
    private mutating func boundValue(_ element: ModelXMLElement, _ bound: String, type: AttributeType, label: String, at place: Place) -> AttributeValue? {
        let key = "\(bound)ValueString"
        if type == .date, let interval = element.nonEmpty("\(bound)DateTimeInterval") {
            return dateValue(interval: interval, key: "\(bound)DateTimeInterval", label: label, at: place)
        }
        guard let text = element.nonEmpty(key), type != .string else { return nil }
        guard type.isOrdered else {
            warn("ignoredSetting", "\(label): the \(bound)imum \(String(reflecting: text)) is not imported: Strata bounds numbers, dates and string lengths only", at: place)
            return nil
        }
        return value(text, type: type, key: key, label: label, at: place)
    }

    private mutating func length(_ element: ModelXMLElement, _ key: String, label: String, at place: Place) -> Int? {
        guard let text = element.nonEmpty(key) else { return nil }
        guard let length = Int(text.trimmingCharacters(in: .whitespaces)), length >= 0 else {
            error("invalidValue", "\(label): \(key)=\(String(reflecting: text)) is not a length (a whole number of at least 0)", at: place)
            return nil
        }
        return length
    }

    private mutating func dateValue(interval text: String, key: String, label: String, at place: Place) -> AttributeValue? {
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite else {
            error("invalidValue", "\(label): \(key)=\(String(reflecting: text)) is not a number of seconds since 2001", at: place)
            return nil
        }
        return value(ISO8601.string(from: Date(timeIntervalSince1970: seconds + Self.referenceDateOffset)), type: .date, key: key, label: label, at: place)
    }

    /// A value as Core Data writes it into a model file, checked as Strata reads a model file's
    /// values; an error naming the attribute when it cannot be represented.
    private mutating func value(_ text: String, type: AttributeType, key: String, label: String, at place: Place) -> AttributeValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let json: JSONValue
        switch type {
        case .int16, .int32, .int64:
            json = .number(Int64(trimmed).map(String.init) ?? trimmed)
        case .double, .float:
            json = Self.jsonNumber(trimmed)
        case .bool:
            switch trimmed.lowercased() {
            case "yes", "true", "1": json = .bool(true)
            case "no", "false", "0": json = .bool(false)
            default: json = .string(trimmed)
            }
        case .date:
            json = .string(Self.isoDate(trimmed) ?? trimmed)
        case .string:
            json = .string(text)
        case .decimal, .uuid, .uri, .binary, .transformable:
            json = .string(trimmed)
        }
        do {
            return try AttributeValue(json: json, as: type)
        } catch {
            self.error("invalidValue", "\(label): \(key)=\(String(reflecting: text)) cannot be represented as a Strata \(type.rawValue): \(error.message)", at: place)
            return nil
        }
    }

    /// A floating-point value as a JSON number: its own text when that is valid JSON, else
    /// printed again (`.5` → `0.5`); non-finite values as Strata's strings.
    private static func jsonNumber(_ text: String) -> JSONValue {
        if isJSONNumber(text) { return .number(text) }
        guard let value = Double(text) else { return .string(text) }
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
        return .number(String(format: "%.17g", value))
    }

    private static func isJSONNumber(_ text: String) -> Bool {
        text.range(of: #"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$"#, options: .regularExpression) != nil
    }

    /// A date as Xcode writes one into `defaultValueString`/`minValueString`
    /// (`2013-04-23 12:00:00 +0000`, `2020-02-03 04:00`; UTC unless an offset is given) as ISO 8601.
    private static func isoDate(_ text: String) -> String? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in ["yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return ISO8601.string(from: date) }
        }
        return nil
    }
}
