/// The names of Strata's XML store layout, in exact case, and the forms of object IDs in it.
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <database>
///   <databaseInfo>
///     <version>1</version>
///     <UUID>7B0E2D2C-…</UUID>
///     <nextObjectID>4</nextObjectID>
///     <metadata>
///       <storeType>xml</storeType>
///       <modelName>TodoList</modelName>
///       <modelVersionHash>…</modelVersionHash>
///       <entityVersionHashes>
///         <entityVersionHash entity="Tag">…</entityVersionHash>
///       </entityVersionHashes>
///       <keySequences>
///         <keySequence entity="Tag">3</keySequence>
///       </keySequences>
///       <custom>
///         <entry><key>owner</key><value>me</value></entry>
///       </custom>
///       <schema>{ the model as canonical JSON }</schema>
///     </metadata>
///   </databaseInfo>
///   <object type="Tag" id="p1">
///     <attribute name="name" type="string">home</attribute>
///     <relationship name="todos" type="0/0" destination="Todo" idrefs="p1 p2"></relationship>
///   </object>
/// </database>
/// ```
enum XMLStoreLayout {
    /// The layout version in `<version>`; a reader refuses any other.
    static let version: Int64 = 1

    /// The elements of the layout.
    enum Element: Int, CaseIterable {
        case database, databaseInfo, version, uuid, nextObjectID, metadata
        case storeType, modelName, modelVersionHash, entityVersionHashes, entityVersionHash
        case keySequences, keySequence, custom, entry, key, value, schema
        case object, attribute, relationship

        var name: StaticString {
            switch self {
            case .database: "database"
            case .databaseInfo: "databaseInfo"
            case .version: "version"
            case .uuid: "UUID"
            case .nextObjectID: "nextObjectID"
            case .metadata: "metadata"
            case .storeType: "storeType"
            case .modelName: "modelName"
            case .modelVersionHash: "modelVersionHash"
            case .entityVersionHashes: "entityVersionHashes"
            case .entityVersionHash: "entityVersionHash"
            case .keySequences: "keySequences"
            case .keySequence: "keySequence"
            case .custom: "custom"
            case .entry: "entry"
            case .key: "key"
            case .value: "value"
            case .schema: "schema"
            case .object: "object"
            case .attribute: "attribute"
            case .relationship: "relationship"
            }
        }

        /// The elements allowed inside this one; empty for elements that hold text.
        var children: [Element] {
            switch self {
            case .database: [.databaseInfo, .object]
            case .databaseInfo: [.version, .uuid, .nextObjectID, .metadata]
            case .metadata: [.storeType, .modelName, .modelVersionHash, .entityVersionHashes, .keySequences, .custom, .schema]
            case .entityVersionHashes: [.entityVersionHash]
            case .keySequences: [.keySequence]
            case .custom: [.entry]
            case .entry: [.key, .value]
            case .object: [.attribute, .relationship]
            default: []
            }
        }

        /// True for the elements whose content is text (the others hold only elements and
        /// whitespace; `relationship` holds nothing).
        var holdsText: Bool {
            switch self {
            case .database, .databaseInfo, .metadata, .entityVersionHashes, .keySequences, .custom, .entry, .object,
                 .relationship:
                false
            case .version, .uuid, .nextObjectID, .storeType, .modelName, .modelVersionHash, .entityVersionHash,
                 .keySequence, .key, .value, .schema, .attribute:
                true
            }
        }

        /// The XML attributes the element may carry.
        var attributes: [Attribute] {
            switch self {
            case .entityVersionHash, .keySequence: [.entity]
            case .object: [.type, .id]
            case .attribute: [.name, .type, .encoding]
            case .relationship: [.name, .type, .destination, .idrefs]
            case .storeType, .modelName, .modelVersionHash, .key, .value, .schema: [.encoding]
            case .database, .databaseInfo, .metadata, .entityVersionHashes, .keySequences, .custom, .entry,
                 .version, .uuid, .nextObjectID:
                []
            }
        }

        /// True for the elements whose text may be written as base64 (``XMLStoreLayout/base64Encoding``).
        var allowsEncoding: Bool { attributes.contains(.encoding) }
    }

    /// The XML attributes of the layout.
    enum Attribute: Int, CaseIterable {
        case entity, type, id, name, encoding, destination, idrefs

        var name: StaticString {
            switch self {
            case .entity: "entity"
            case .type: "type"
            case .id: "id"
            case .name: "name"
            case .encoding: "encoding"
            case .destination: "destination"
            case .idrefs: "idrefs"
            }
        }
    }

    /// `encoding="base64"` marks text whose content is the base64 of its UTF-8, used for text
    /// holding characters XML 1.0 cannot carry (U+0000–U+0008, U+000B, U+000C, U+000E–U+001F,
    /// U+FFFE, U+FFFF).
    static let base64Encoding: StaticString = "base64"

    /// The `id` of an object and an `idrefs` token for an object in the file: `p` and the
    /// primary key (`p12`), the key of Strata's object URIs (`strata://<UUID>/Todo/p12`).
    static func idref(_ key: Int64) -> String { "p\(key)" }

    /// An `idrefs` token for an object that is not in the store any more (a reference left by
    /// the `noAction` delete rule, or by a relationship without an inverse): `Entity.p12`.
    /// Writing it keeps the reference exactly; a reader never resolves it to an object.
    static func missingIDRef(entity: String, key: Int64) -> String { "\(entity).p\(key)" }
}
