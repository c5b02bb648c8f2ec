import Foundation
import Strata
import Testing

/// A model named `M` with these entities (JSON objects, comma-separated).
private func model(_ entities: String, version: String? = nil, modifier: String? = nil) throws -> Schema {
    let header = [
        #""name": "M""#,
        version.map { #""version": "\#($0)""# },
        modifier.map { #""versionHashModifier": "\#($0)""# },
    ].compactMap { $0 }.joined(separator: ", ")
    return try Schema(data: Data("{ \(header), \"entities\": [ \(entities) ] }".utf8), file: "M.json")
}

/// The diff between two models given by their entities.
private func diff(_ old: String, _ new: String) throws -> SchemaDiff {
    SchemaDiff(from: try model(old), to: try model(new))
}

/// An entity `Item` with these attributes (JSON objects).
private func item(_ attributes: String) -> String {
    #"{ "name": "Item", "attributes": [ \#(attributes) ] }"#
}

/// The changes between two versions of one attribute `value` of `Item`.
private func attributeChanges(_ old: String, _ new: String) throws -> [SchemaChange] {
    try diff(item(#"{ "name": "value", \#(old) }"#), item(#"{ "name": "value", \#(new) }"#)).changes
}

/// A change of `Item.value`.
private func valueChange(_ kind: SchemaChange.Kind, _ detail: String, _ inferability: SchemaChange.Inferability = .inferable) -> SchemaChange {
    SchemaChange(kind: kind, entity: "Item", property: "value", detail: detail, inferability: inferability)
}

/// `Owner.pets` → `Pet.owner` in both versions; `old`/`new` are the extra keys of `Owner.pets`
/// and `Pet.owner` is to-one unless `petOwnerToMany`.
private func relationshipChanges(_ old: String, _ new: String) throws -> [SchemaChange] {
    func entities(_ keys: String) -> String {
        #"""
        { "name": "Owner", "relationships": [ { "name": "pets", "destination": "Pet", "inverse": "owner"\#(keys) } ] },
        { "name": "Pet", "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "pets", "optional": true } ] }
        """#
    }
    return try diff(entities(old), entities(new)).changes
}

/// A change of `Owner.pets`.
private func petsChange(_ kind: SchemaChange.Kind, _ detail: String, _ inferability: SchemaChange.Inferability = .inferable) -> SchemaChange {
    SchemaChange(kind: kind, entity: "Owner", property: "pets", detail: detail, inferability: inferability)
}

@Suite("SchemaDiff")
struct SchemaDiffTests {
    // MARK: - Entities

    @Test func identicalModelsHaveNoChanges() throws {
        let schema = try model(item(#"{ "name": "title", "type": "string" }"#))
        let diff = SchemaDiff(from: schema, to: schema)
        #expect(diff.changes == [])
        #expect(diff.isSameVersion)
        #expect(diff.isInferable)
    }

    @Test func entityAddedAndRemoved() throws {
        let diff = try diff(
            #"{ "name": "Old" }, { "name": "Kept" }"#,
            #"{ "name": "Kept" }, { "name": "New", "attributes": [ { "name": "x", "type": "string" } ] }"#)
        #expect(diff.changes == [
            SchemaChange(kind: .entityAdded, entity: "New", detail: "entity added"),
            SchemaChange(kind: .entityRemoved, entity: "Old", detail: "entity removed"),
        ])
        #expect(diff.isInferable)
        #expect(!diff.isSameVersion)
    }

    @Test func entityRenamedByRenamingIdentifier() throws {
        let diff = try diff(
            #"{ "name": "Mood", "attributes": [ { "name": "date", "type": "date" } ] }"#,
            #"{ "name": "Feeling", "renamingIdentifier": "Mood", "attributes": [ { "name": "date", "type": "date" } ] }"#)
        #expect(diff.changes == [SchemaChange(kind: .entityRenamed, entity: "Feeling", detail: "entity renamed from 'Mood'")])
        #expect(diff.entityMatches == ["Feeling": "Mood"])
        #expect(diff.sourceProperty(of: "date", in: "Feeling")?.name == "date")
    }

    @Test func parentAddedRemovedAndReplaced() throws {
        let added = try diff(
            #"{ "name": "Base" }, { "name": "Item" }"#,
            #"{ "name": "Base" }, { "name": "Item", "parent": "Base" }"#)
        #expect(added.changes == [SchemaChange(kind: .parentChanged, entity: "Item", detail: "parent 'Base' added")])

        let removed = try diff(
            #"{ "name": "Base" }, { "name": "Item", "parent": "Base" }"#,
            #"{ "name": "Base" }, { "name": "Item" }"#)
        #expect(removed.changes == [SchemaChange(kind: .parentChanged, entity: "Item", detail: "parent 'Base' removed")])

        let replaced = try diff(
            #"{ "name": "A" }, { "name": "B" }, { "name": "Item", "parent": "A" }"#,
            #"{ "name": "A" }, { "name": "B" }, { "name": "Item", "parent": "B" }"#)
        #expect(replaced.changes == [SchemaChange(kind: .parentChanged, entity: "Item", detail: "parent 'A' → 'B'")])
    }

    @Test func aRenamedParentIsTheSameParent() throws {
        let diff = try diff(
            #"{ "name": "Base" }, { "name": "Item", "parent": "Base" }"#,
            #"{ "name": "Root", "renamingIdentifier": "Base" }, { "name": "Item", "parent": "Root" }"#)
        #expect(diff.changes == [SchemaChange(kind: .entityRenamed, entity: "Root", detail: "entity renamed from 'Base'")])
    }

    @Test func joiningAHierarchyWithAUniquenessConstraintDependsOnTheData() throws {
        let diff = try diff(
            #"""
            { "name": "Region", "attributes": [ { "name": "code", "type": "string" } ], "uniquenessConstraints": [["code"]] },
            { "name": "Country", "attributes": [ { "name": "code", "type": "string" } ] }
            """#,
            #"""
            { "name": "Region", "attributes": [ { "name": "code", "type": "string" } ], "uniquenessConstraints": [["code"]] },
            { "name": "Country", "parent": "Region" }
            """#)
        #expect(diff.changes == [
            SchemaChange(
                kind: .parentChanged, entity: "Country", detail: "parent 'Region' added",
                inferability: .dependsOnData("no two Region objects share (code)")),
        ])
    }

    @Test func abstractChanged() throws {
        let becameAbstract = try diff(
            #"{ "name": "Base" }, { "name": "Item", "parent": "Base" }"#,
            #"{ "name": "Base", "abstract": true }, { "name": "Item", "parent": "Base" }"#)
        #expect(becameAbstract.changes == [
            SchemaChange(kind: .abstractChanged, entity: "Base", detail: "became abstract", inferability: .dependsOnData("every Base object is an object of a subentity")),
        ])
        let becameConcrete = try diff(
            #"{ "name": "Base", "abstract": true }, { "name": "Item", "parent": "Base" }"#,
            #"{ "name": "Base" }, { "name": "Item", "parent": "Base" }"#)
        #expect(becameConcrete.changes == [SchemaChange(kind: .abstractChanged, entity: "Base", detail: "no longer abstract")])
    }

    @Test func versionHashModifiers() throws {
        let entity = try diff(#"{ "name": "Item" }"#, #"{ "name": "Item", "versionHashModifier": "2" }"#)
        #expect(entity.changes == [SchemaChange(kind: .versionHashModifierChanged, entity: "Item", detail: "versionHashModifier none → '2'")])
        #expect(!entity.isSameVersion)

        #expect(try attributeChanges(#""type": "string", "versionHashModifier": "a""#, #""type": "string", "versionHashModifier": "b""#) == [
            valueChange(.versionHashModifierChanged, "versionHashModifier 'a' → 'b'"),
        ])
        #expect(try relationshipChanges(#", "toMany": true"#, #", "toMany": true, "versionHashModifier": "r""#) == [
            petsChange(.versionHashModifierChanged, "versionHashModifier none → 'r'"),
        ])

        let modelChange = SchemaDiff(from: try model(#"{ "name": "Item" }"#), to: try model(#"{ "name": "Item" }"#, modifier: "v2"))
        #expect(modelChange.changes == [SchemaChange(kind: .versionHashModifierChanged, entity: "", detail: "versionHashModifier none → 'v2'")])
        #expect(modelChange.changes.first?.path == "model")
        #expect(!modelChange.isSameVersion)
    }

    // MARK: - Properties added, removed, renamed, kind

    @Test func attributeAdded() throws {
        let diff = try diff(
            item(#"{ "name": "title", "type": "string" }"#),
            item(#"""
                { "name": "title", "type": "string" },
                { "name": "note", "type": "string", "optional": true },
                { "name": "level", "type": "int16", "default": 3 },
                { "name": "cache", "type": "string", "transient": true },
                { "name": "date", "type": "date" }
                """#))
        #expect(diff.changes == [
            SchemaChange(kind: .attributeAdded, entity: "Item", property: "note", detail: "attribute added (string, optional)"),
            SchemaChange(kind: .attributeAdded, entity: "Item", property: "level", detail: "attribute added (int16, default 3)"),
            SchemaChange(kind: .attributeAdded, entity: "Item", property: "cache", detail: "attribute added (string, transient)"),
            SchemaChange(
                kind: .attributeAdded, entity: "Item", property: "date", detail: "attribute added (date, required, no default)",
                inferability: .dependsOnData("no Item objects exist")),
        ])
        #expect(diff.isInferable)
    }

    @Test func attributeRemovedAndRenamed() throws {
        let diff = try diff(
            item(#"{ "name": "text", "type": "string" }, { "name": "gone", "type": "bool" }"#),
            item(#"{ "name": "note", "type": "string", "renamingIdentifier": "text" }"#))
        #expect(diff.changes == [
            SchemaChange(kind: .attributeRenamed, entity: "Item", property: "note", detail: "attribute renamed from 'text'"),
            SchemaChange(kind: .attributeRemoved, entity: "Item", property: "gone", detail: "attribute removed"),
        ])
        #expect(diff.propertyMatches == ["Item": ["note": "text"]])
    }

    @Test func relationshipAddedRemovedAndRenamed() throws {
        let diff = try diff(
            #"""
            { "name": "Owner", "relationships": [
                { "name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true },
                { "name": "old", "destination": "Pet", "optional": true } ] },
            { "name": "Pet", "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "pets", "optional": true } ] }
            """#,
            #"""
            { "name": "Owner", "relationships": [
                { "name": "animals", "destination": "Pet", "inverse": "owner", "toMany": true, "renamingIdentifier": "pets" },
                { "name": "favorite", "destination": "Pet", "optional": true },
                { "name": "vet", "destination": "Pet" },
                { "name": "friends", "destination": "Pet", "toMany": true, "ordered": true, "minCount": 1 } ] },
            { "name": "Pet", "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "animals", "optional": true } ] }
            """#)
        #expect(diff.changes == [
            SchemaChange(kind: .relationshipRenamed, entity: "Owner", property: "animals", detail: "relationship renamed from 'pets'"),
            SchemaChange(kind: .relationshipAdded, entity: "Owner", property: "favorite", detail: "relationship added (to-one Pet, optional)"),
            SchemaChange(
                kind: .relationshipAdded, entity: "Owner", property: "vet", detail: "relationship added (to-one Pet, required)",
                inferability: .dependsOnData("no Owner objects exist")),
            SchemaChange(kind: .relationshipAdded, entity: "Owner", property: "friends", detail: "relationship added (ordered to-many Pet, minCount 1)"),
            SchemaChange(kind: .relationshipRemoved, entity: "Owner", property: "old", detail: "relationship removed"),
        ])
    }

    @Test func propertyKindChangedIsNotInferable() throws {
        let diff = try diff(
            #"{ "name": "Tag" }, { "name": "Item", "attributes": [ { "name": "tag", "type": "string" } ] }"#,
            #"{ "name": "Tag" }, { "name": "Item", "relationships": [ { "name": "tag", "destination": "Tag", "optional": true } ] }"#)
        #expect(diff.changes == [
            SchemaChange(
                kind: .propertyKindChanged, entity: "Item", property: "tag", detail: "attribute → relationship",
                inferability: .notInferable("the values of attribute 'tag' cannot become those of relationship 'tag' automatically; carry them over in a custom stage")),
        ])
        #expect(!diff.isInferable)
        #expect(diff.uninferableChanges == diff.changes)
    }

    // MARK: - Attributes

    @Test(arguments: [("int16", "int32"), ("int16", "int64"), ("int32", "int64"), ("float", "double")])
    func wideningTypeChangesAreInferable(_ from: String, _ to: String) throws {
        #expect(try attributeChanges(#""type": "\#(from)""#, #""type": "\#(to)""#) == [valueChange(.typeChanged, "type \(from) → \(to)")])
    }

    @Test(arguments: [
        ("int16", "string"), ("int64", "int32"), ("double", "float"), ("int32", "double"),
        ("binary", "transformable"), ("transformable", "binary"), ("string", "uuid"),
    ])
    func otherTypeChangesAreNotInferable(_ from: String, _ to: String) throws {
        func keys(_ type: String) -> String {
            #""type": "\#(type)", "optional": true"# + (type == "transformable" ? #", "transformer": "T""# : "")
        }
        #expect(try attributeChanges(keys(from), keys(to)) == [
            valueChange(
                .typeChanged, "type \(from) → \(to)",
                .notInferable("only int16 → int32 → int64 and float → double are inferred; convert \(from) to \(to) in a custom stage")),
        ])
    }

    @Test func optionality() throws {
        #expect(try attributeChanges(#""type": "string""#, #""type": "string", "optional": true"#) == [
            valueChange(.optionalityChanged, "required → optional"),
        ])
        #expect(try attributeChanges(#""type": "int16", "optional": true, "default": 1"#, #""type": "int16", "default": 1"#) == [
            valueChange(.optionalityChanged, "optional → required (nil becomes the default 1)"),
        ])
        #expect(try attributeChanges(#""type": "string", "optional": true"#, #""type": "string""#) == [
            valueChange(.optionalityChanged, "optional → required", .dependsOnData("every Item.value has a value")),
        ])
    }

    @Test func defaultValue() throws {
        #expect(try attributeChanges(#""type": "int16", "default": 0"#, #""type": "int16", "default": 5"#) == [
            valueChange(.defaultValueChanged, "default 0 → 5"),
        ])
        #expect(try attributeChanges(#""type": "string", "optional": true"#, #""type": "string", "optional": true, "default": "a\"b""#) == [
            valueChange(.defaultValueChanged, #"default none → "a\"b""#),
        ])
    }

    @Test func transient() throws {
        #expect(try attributeChanges(#""type": "string", "optional": true"#, #""type": "string", "optional": true, "transient": true"#) == [
            valueChange(.transientChanged, "became transient (the stored values are dropped)"),
        ])
        #expect(try attributeChanges(#""type": "string", "transient": true, "default": "x""#, #""type": "string", "default": "x""#) == [
            valueChange(.transientChanged, #"became stored (values start as the default "x")"#),
        ])
        #expect(try attributeChanges(#""type": "string", "optional": true, "transient": true"#, #""type": "string", "optional": true"#) == [
            valueChange(.transientChanged, "became stored (values start as nil)"),
        ])
        #expect(try attributeChanges(#""type": "string", "transient": true"#, #""type": "string""#) == [
            valueChange(.transientChanged, "became stored (required, without a default)", .dependsOnData("no Item objects exist")),
        ])
    }

    @Test func externalStorageAndTransformer() throws {
        #expect(try attributeChanges(#""type": "binary", "optional": true"#, #""type": "binary", "optional": true, "externalStorage": true"#) == [
            valueChange(.externalStorageChanged, "external storage allowed"),
        ])
        #expect(try attributeChanges(
            #""type": "transformable", "optional": true, "transformer": "A""#,
            #""type": "transformable", "optional": true, "transformer": "B""#) == [
            valueChange(.transformerChanged, "transformer 'A' → 'B' (the stored data is kept as written)"),
        ])
    }

    @Test func attributeValidation() throws {
        #expect(try attributeChanges(#""type": "int16", "min": 0, "max": 5"#, #""type": "int16", "max": 10"#) == [
            valueChange(.validationChanged, "min 0 → none, max 5 → 10"),
        ])
        #expect(try attributeChanges(
            #""type": "string", "minLength": 1"#,
            #""type": "string", "minLength": 2, "maxLength": 9, "regex": "^[a-z]+$""#) == [
            valueChange(.validationChanged, #"minLength 1 → 2, maxLength none → 9, regex none → "^[a-z]+$""#),
        ])
    }

    @Test func indexedFlag() throws {
        let diff = try diff(item(#"{ "name": "value", "type": "date" }"#), item(#"{ "name": "value", "type": "date", "indexed": true }"#))
        #expect(diff.changes == [valueChange(.indexesChanged, "now indexed")])
        #expect(diff.isSameVersion)
    }

    // MARK: - Relationships

    @Test func cardinality() throws {
        #expect(try relationshipChanges(#", "optional": true"#, #", "toMany": true, "ordered": true"#) == [
            petsChange(.cardinalityChanged, "to-one → ordered to-many"),
        ])
        #expect(try relationshipChanges(#", "toMany": true"#, #", "optional": true"#) == [
            petsChange(.cardinalityChanged, "to-many → to-one", .dependsOnData("every Owner.pets holds at most one object")),
        ])
        #expect(try relationshipChanges(#", "toMany": true"#, "") == [
            petsChange(.cardinalityChanged, "to-many → to-one", .dependsOnData("every Owner.pets holds at most one object")),
            petsChange(.optionalityChanged, "optional → required", .dependsOnData("every Owner.pets has a value")),
        ])
    }

    @Test func orderedOptionalityDeleteRuleAndCounts() throws {
        #expect(try relationshipChanges(#", "toMany": true"#, #", "toMany": true, "ordered": true"#) == [
            petsChange(.orderedChanged, "unordered → ordered"),
        ])
        #expect(try relationshipChanges("", #", "optional": true"#) == [petsChange(.optionalityChanged, "required → optional")])
        #expect(try relationshipChanges(#", "optional": true"#, "") == [
            petsChange(.optionalityChanged, "optional → required", .dependsOnData("every Owner.pets has a value")),
        ])
        #expect(try relationshipChanges(#", "toMany": true"#, #", "toMany": true, "deleteRule": "cascade""#) == [
            petsChange(.deleteRuleChanged, "delete rule nullify → cascade"),
        ])
        #expect(try relationshipChanges(#", "toMany": true, "maxCount": 3"#, #", "toMany": true, "minCount": 1"#) == [
            petsChange(.validationChanged, "minCount none → 1, maxCount 3 → none"),
        ])
    }

    @Test func inverse() throws {
        let changed = try diff(
            #"""
            { "name": "Owner", "relationships": [ { "name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true } ] },
            { "name": "Pet", "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "pets", "optional": true },
                                                { "name": "keeper", "destination": "Owner", "optional": true } ] }
            """#,
            #"""
            { "name": "Owner", "relationships": [ { "name": "pets", "destination": "Pet", "inverse": "keeper", "toMany": true } ] },
            { "name": "Pet", "relationships": [ { "name": "owner", "destination": "Owner", "optional": true },
                                                { "name": "keeper", "destination": "Owner", "inverse": "pets", "optional": true } ] }
            """#)
        #expect(changed.changes == [
            petsChange(.inverseChanged, "inverse 'owner' → 'keeper'"),
            SchemaChange(kind: .inverseChanged, entity: "Pet", property: "owner", detail: "inverse 'pets' → none"),
            SchemaChange(kind: .inverseChanged, entity: "Pet", property: "keeper", detail: "inverse none → 'pets'"),
        ])
    }

    @Test func aRenamedInverseOrDestinationIsNoChange() throws {
        let diff = try diff(
            #"""
            { "name": "Owner", "relationships": [ { "name": "pets", "destination": "Pet", "inverse": "owner", "toMany": true } ] },
            { "name": "Pet", "relationships": [ { "name": "owner", "destination": "Owner", "inverse": "pets", "optional": true } ] }
            """#,
            #"""
            { "name": "Owner", "relationships": [ { "name": "pets", "destination": "Animal", "inverse": "master", "toMany": true } ] },
            { "name": "Animal", "renamingIdentifier": "Pet",
              "relationships": [ { "name": "master", "renamingIdentifier": "owner", "destination": "Owner", "inverse": "pets", "optional": true } ] }
            """#)
        #expect(diff.changes == [
            SchemaChange(kind: .entityRenamed, entity: "Animal", detail: "entity renamed from 'Pet'"),
            SchemaChange(kind: .relationshipRenamed, entity: "Animal", property: "master", detail: "relationship renamed from 'owner'"),
        ])
    }

    /// `Item.target` from `old` to `new`, in a model with `Animal` ← `Pet` ← `Dog` and `Rock`.
    private func destinationChange(_ old: String, _ new: String) throws -> SchemaChange? {
        func entities(_ destination: String) -> String {
            #"""
            { "name": "Animal" }, { "name": "Pet", "parent": "Animal" }, { "name": "Dog", "parent": "Pet" }, { "name": "Rock" },
            { "name": "Item", "relationships": [ { "name": "target", "destination": "\#(destination)", "optional": true } ] }
            """#
        }
        let changes = try diff(entities(old), entities(new)).changes
        #expect(changes.count <= 1)
        return changes.first
    }

    @Test func destination() throws {
        func change(_ detail: String, _ inferability: SchemaChange.Inferability) -> SchemaChange {
            SchemaChange(kind: .destinationChanged, entity: "Item", property: "target", detail: detail, inferability: inferability)
        }
        #expect(try destinationChange("Dog", "Animal") == change("destination 'Dog' → 'Animal'", .inferable))
        #expect(try destinationChange("Pet", "Dog") == change("destination 'Pet' → 'Dog'", .dependsOnData("every object in Item.target is a Dog")))
        #expect(try destinationChange("Pet", "Rock") == change(
            "destination 'Pet' → 'Rock'", .notInferable("'Pet' objects are not 'Rock' objects; set Item.target in a custom stage")))

        let removed = try diff(
            #"{ "name": "Old" }, { "name": "Item", "relationships": [ { "name": "target", "destination": "Old", "optional": true } ] }"#,
            #"{ "name": "New" }, { "name": "Item", "relationships": [ { "name": "target", "destination": "New", "optional": true } ] }"#)
        #expect(removed.changes == [
            SchemaChange(kind: .entityAdded, entity: "New", detail: "entity added"),
            change("destination 'Old' → 'New'", .notInferable("'Old' was removed; set Item.target in a custom stage")),
            SchemaChange(kind: .entityRemoved, entity: "Old", detail: "entity removed"),
        ])
    }

    // MARK: - Indexes and uniqueness

    @Test func indexes() throws {
        func entity(_ indexes: String, valueName: String = "value") -> String {
            #"""
            { "name": "Item", "attributes": [ { "name": "\#(valueName)", "type": "int16"\#(valueName == "value" ? "" : #", "renamingIdentifier": "value""#) },
                                              { "name": "date", "type": "date" } ],
              "indexes": [ \#(indexes) ] }
            """#
        }
        let changes = try diff(
            entity(#"""
                { "name": "byDate", "elements": [ { "property": "date" } ] },
                { "name": "byValue", "elements": [ { "property": "value" } ] },
                { "name": "gone", "elements": [ { "property": "value" }, { "property": "date" } ] },
                { "name": "same", "elements": [ { "property": "date", "order": "descending" }, { "property": "value" } ] }
                """#),
            entity(#"""
                { "name": "byDate", "elements": [ { "property": "date", "order": "descending" } ] },
                { "name": "byAmount", "elements": [ { "property": "amount" } ] },
                { "name": "same", "elements": [ { "property": "date", "order": "descending" }, { "property": "amount" } ] },
                { "name": "added", "elements": [ { "property": "date" }, { "property": "amount", "order": "descending" } ] }
                """#, valueName: "amount")).changes
        func change(_ detail: String) -> SchemaChange {
            SchemaChange(kind: .indexesChanged, entity: "Item", detail: detail)
        }
        #expect(changes == [
            SchemaChange(kind: .attributeRenamed, entity: "Item", property: "amount", detail: "attribute renamed from 'value'"),
            change("index 'byDate' (date) → (date descending)"),
            change("index 'byAmount' renamed from 'byValue'"),
            change("index 'added' (date, amount descending) added"),
            change("index 'gone' removed"),
        ])
    }

    @Test func uniquenessConstraints() throws {
        func entity(_ constraints: String, codeName: String = "code") -> String {
            #"""
            { "name": "Item", "attributes": [ { "name": "\#(codeName)", "type": "string"\#(codeName == "code" ? "" : #", "renamingIdentifier": "code""#) },
                                              { "name": "name", "type": "string" }, { "name": "year", "type": "int16" } ],
              "uniquenessConstraints": [ \#(constraints) ] }
            """#
        }
        let diff = try diff(
            entity(#"["code"], ["name", "year"]"#),
            entity(#"["year", "name"], ["key", "year"]"#, codeName: "key"))
        #expect(diff.changes == [
            SchemaChange(kind: .attributeRenamed, entity: "Item", property: "key", detail: "attribute renamed from 'code'"),
            SchemaChange(
                kind: .uniquenessChanged, entity: "Item", detail: "uniqueness constraint (key, year) added",
                inferability: .dependsOnData("no two Item objects share (key, year)")),
            SchemaChange(kind: .uniquenessChanged, entity: "Item", detail: "uniqueness constraint (key) removed"),
        ])
    }

    // MARK: - Matching

    /// v1 `text`; v2 renames it to `note` (identifier `text`); v3 renames it to `memo`, keeping
    /// the identifier, and v3b drops the identifier (matched by name from v2 only).
    @Test func renamingIdentifiersAcrossVersions() throws {
        let v1 = try model(item(#"{ "name": "text", "type": "string" }"#))
        let v2 = try model(#"{ "name": "Entry", "renamingIdentifier": "Item", "attributes": [ { "name": "note", "type": "string", "renamingIdentifier": "text" } ] }"#)
        let v3 = try model(#"{ "name": "Record", "renamingIdentifier": "Item", "attributes": [ { "name": "memo", "type": "string", "renamingIdentifier": "text" } ] }"#)
        let v3b = try model(#"{ "name": "Entry", "attributes": [ { "name": "note", "type": "string" } ] }"#)

        let oneToThree = SchemaDiff(from: v1, to: v3)
        #expect(oneToThree.changes == [
            SchemaChange(kind: .entityRenamed, entity: "Record", detail: "entity renamed from 'Item'"),
            SchemaChange(kind: .attributeRenamed, entity: "Record", property: "memo", detail: "attribute renamed from 'text'"),
        ])
        #expect(SchemaDiff(from: v2, to: v3).changes == [
            SchemaChange(kind: .entityRenamed, entity: "Record", detail: "entity renamed from 'Entry'"),
            SchemaChange(kind: .attributeRenamed, entity: "Record", property: "memo", detail: "attribute renamed from 'note'"),
        ])
        // The identifier dropped: v2 → v3b still matches, by name.
        #expect(SchemaDiff(from: v2, to: v3b).changes == [])
        // But v1 → v3b has nothing to match `Item.text` with.
        #expect(SchemaDiff(from: v1, to: v3b).changes == [
            SchemaChange(kind: .entityAdded, entity: "Entry", detail: "entity added"),
            SchemaChange(kind: .entityRemoved, entity: "Item", detail: "entity removed"),
        ])
    }

    /// Renamed twice, the second time with the identifier set to the previous name (as Core
    /// Data's documentation words it): the by-identifier rule alone would not match.
    @Test func aRenamingIdentifierNamingThePreviousName() throws {
        let v2 = try model(item(#"{ "name": "note", "type": "string", "renamingIdentifier": "text" }"#))
        let v3 = try model(item(#"{ "name": "memo", "type": "string", "renamingIdentifier": "note" }"#))
        #expect(SchemaDiff(from: v2, to: v3).changes == [
            SchemaChange(kind: .attributeRenamed, entity: "Item", property: "memo", detail: "attribute renamed from 'note'"),
        ])
    }

    @Test func identifierMatchingComesBeforeNames() throws {
        // The new `b` is the old `a` by its identifier, although an old `b` exists.
        let diff = try diff(
            item(#"{ "name": "a", "type": "string" }, { "name": "b", "type": "string" }"#),
            item(#"{ "name": "b", "type": "string", "renamingIdentifier": "a" }"#))
        #expect(diff.propertyMatches == ["Item": ["b": "a"]])
        #expect(diff.changes == [
            SchemaChange(kind: .attributeRenamed, entity: "Item", property: "b", detail: "attribute renamed from 'a'"),
            SchemaChange(kind: .attributeRemoved, entity: "Item", property: "b", detail: "attribute removed"),
        ])
    }

    // MARK: - Inheritance

    private let regions = #"""
        { "name": "Region", "abstract": true, "attributes": [ { "name": "code", "type": "string", "optional": true } ] },
        { "name": "Country", "parent": "Region" },
        { "name": "Continent", "parent": "Region" }
        """#

    @Test func anInheritedPropertyIsReportedOnTheEntityThatDeclaresIt() throws {
        let diff = try diff(regions, regions.replacingOccurrences(of: #""optional": true"#, with: #""minLength": 2"#))
        #expect(diff.changes == [
            SchemaChange(kind: .optionalityChanged, entity: "Region", property: "code", detail: "optional → required", inferability: .dependsOnData("every Region.code has a value")),
            SchemaChange(kind: .validationChanged, entity: "Region", property: "code", detail: "minLength none → 2"),
        ])
    }

    @Test func aPropertyAddedToOrRemovedFromAParentIsReportedOnce() throws {
        let added = try diff(regions, regions.replacingOccurrences(of: #""optional": true }"#, with: #""optional": true }, { "name": "area", "type": "double", "default": 0 }"#))
        #expect(added.changes == [
            SchemaChange(kind: .attributeAdded, entity: "Region", property: "area", detail: "attribute added (double, default 0.0)"),
        ])
        let removed = SchemaDiff(from: added.destination, to: added.source)
        #expect(removed.changes == [
            SchemaChange(kind: .attributeRemoved, entity: "Region", property: "area", detail: "attribute removed"),
        ])
    }

    @Test func propertiesMovedToANewParentAreNoChange() throws {
        let diff = try diff(
            #"""
            { "name": "Country", "attributes": [ { "name": "code", "type": "string", "optional": true } ] },
            { "name": "Continent", "attributes": [ { "name": "code", "type": "string", "optional": true } ] }
            """#,
            regions)
        #expect(diff.changes == [
            SchemaChange(kind: .entityAdded, entity: "Region", detail: "entity added"),
            SchemaChange(kind: .parentChanged, entity: "Country", detail: "parent 'Region' added"),
            SchemaChange(kind: .parentChanged, entity: "Continent", detail: "parent 'Region' added"),
        ])
        // Moved back down from a removed parent: still no change of the properties.
        #expect(SchemaDiff(from: diff.destination, to: diff.source).changes == [
            SchemaChange(kind: .parentChanged, entity: "Country", detail: "parent 'Region' removed"),
            SchemaChange(kind: .parentChanged, entity: "Continent", detail: "parent 'Region' removed"),
            SchemaChange(kind: .entityRemoved, entity: "Region", detail: "entity removed"),
        ])
    }

    @Test func aChangeThatDiffersOnASubentityIsReportedThere() throws {
        // `Country` had its own `code` (int16); the new parent declares `code` as int64. The
        // parent's objects get a new attribute; the subentity's values are widened.
        let diff = try diff(
            #"{ "name": "Region" }, { "name": "Country", "parent": "Region", "attributes": [ { "name": "code", "type": "int16" } ] }"#,
            #"{ "name": "Region", "attributes": [ { "name": "code", "type": "int64", "default": 0 } ] }, { "name": "Country", "parent": "Region" }"#)
        #expect(diff.changes == [
            SchemaChange(kind: .attributeAdded, entity: "Region", property: "code", detail: "attribute added (int64, default 0)"),
            SchemaChange(kind: .typeChanged, entity: "Country", property: "code", detail: "type int16 → int64"),
            SchemaChange(kind: .defaultValueChanged, entity: "Country", property: "code", detail: "default none → 0"),
        ])
    }

    // MARK: - Order and rendering

    /// Destination order, each entity's own changes before its properties' and its indexes
    /// last, removed entities at the end; the same every time, whatever the source's order.
    @Test func changesAreInADeterministicOrder() throws {
        let old = #"""
            { "name": "Z", "attributes": [ { "name": "gone", "type": "bool" }, { "name": "kept", "type": "int16" } ] },
            { "name": "Removed" },
            { "name": "A", "attributes": [ { "name": "x", "type": "int16" } ] }
            """#
        let reordered = #"""
            { "name": "A", "attributes": [ { "name": "x", "type": "int16" } ] },
            { "name": "Removed" },
            { "name": "Z", "attributes": [ { "name": "kept", "type": "int16" }, { "name": "gone", "type": "bool" } ] }
            """#
        let new = #"""
            { "name": "A", "attributes": [ { "name": "x", "type": "int32" }, { "name": "y", "type": "int16", "default": 1 } ] },
            { "name": "Z", "versionHashModifier": "2", "attributes": [ { "name": "kept", "type": "int64", "indexed": true } ],
              "uniquenessConstraints": [["kept"]] }
            """#
        let expected = [
            "A.x: type int16 → int32",
            "A.y: attribute added (int16, default 1)",
            "Z: versionHashModifier none → '2'",
            "Z.kept: type int16 → int64",
            "Z.kept: now indexed",
            "Z.gone: attribute removed",
            "Z: uniqueness constraint (kept) added  [needs data check: no two Z objects share (kept)]",
            "Removed: entity removed",
        ]
        for _ in 0..<3 {
            #expect(try diff(old, new).changes.map(\.description) == expected)
        }
        #expect(try diff(reordered, new).changes.map(\.description) == expected)
    }

    @Test func text() throws {
        let diff = SchemaDiff(
            from: try model(item(#"{ "name": "text", "type": "string", "optional": true }, { "name": "level", "type": "int16" }"#), version: "1"),
            to: try model(item(#"{ "name": "note", "type": "string", "renamingIdentifier": "text" }, { "name": "level", "type": "string" }"#), version: "2"))
        #expect(diff.text == """
            Item.note: attribute renamed from 'text'
            Item.note: optional → required  [needs data check: every Item.note has a value]
            Item.level: type int16 → string  [not inferable: only int16 → int32 → int64 and float → double are inferred; convert int16 to string in a custom stage]
            M 1 → M 2: 3 changes (1 not inferable, 1 needing a data check); the version hashes differ: a store must be migrated

            """)
        let same = SchemaDiff(from: diff.source, to: diff.source)
        #expect(same.text == "M 1 → M 1: no changes; same version hash: a store of either model opens with the other, no migration needed\n")
    }

    @Test func json() throws {
        let source = try model(#"{ "name": "Item" }"#)
        let destination = try model(#"{ "name": "Item", "attributes": [ { "name": "n", "type": "int16", "optional": true } ] }"#, version: "2", modifier: "x")
        let diff = SchemaDiff(from: source, to: destination)
        #expect(diff.jsonString == """
            {
              "source": {
                "name": "M",
                "version": null,
                "versionHash": "\(source.versionHash)"
              },
              "destination": {
                "name": "M",
                "version": "2",
                "versionHash": "\(destination.versionHash)"
              },
              "sameVersion": false,
              "inferable": true,
              "changes": [
                {
                  "kind": "attributeAdded",
                  "entity": "Item",
                  "property": "n",
                  "detail": "attribute added (int16, optional)",
                  "inferability": "inferable",
                  "reason": null
                },
                {
                  "kind": "versionHashModifierChanged",
                  "entity": null,
                  "property": null,
                  "detail": "versionHashModifier none → 'x'",
                  "inferability": "inferable",
                  "reason": null
                }
              ]
            }

            """)
    }
}
