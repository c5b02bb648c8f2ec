import Foundation
import Strata
import Synchronization
import Testing

/// Chains of versions and custom stages on every store kind: a chain with renames migrated
/// staged and in one step alike, stages that split a value or create objects from one, and a
/// stage that throws leaving the store as it was.
package struct MigrationStageChecks {
    package init() {}

    typealias M = MigrationModels
    typealias T = MigrationChecks

    // MARK: - A chain with renames

    /// Mood → Feeling, note → text; intensity added.
    static let v2 = M.moody("2", [
        (#"{ "name": "Mood","#, #"{ "name": "Feeling", "renamingIdentifier": "Mood","#),
        (T.note, #"{ "name": "text", "renamingIdentifier": "note", "type": "string", "optional": true }"#),
        (T.colour, #"\#(T.colour), { "name": "intensity", "type": "int32", "default": 5 }"#),
        (T.personMoods, #"{ "name": "moods", "destination": "Feeling", "inverse": "owner", "toMany": true }"#),
        (T.tagMoods, #"{ "name": "moods", "destination": "Feeling", "inverse": "tags", "toMany": true }"#),
    ])

    /// Feeling → Emotion and text → remark, keeping the renaming identifiers of v2 (so v1
    /// matches too); Person.moods → emotions; colour removed.
    static let v3 = M.moody("3", [
        (#"{ "name": "Mood","#, #"{ "name": "Emotion", "renamingIdentifier": "Mood","#),
        (T.note, #"{ "name": "remark", "renamingIdentifier": "note", "type": "string", "optional": true }"#),
        (T.colour, #"{ "name": "intensity", "type": "int32", "default": 5 }"#),
        (T.owner, #"{ "name": "owner", "destination": "Person", "inverse": "emotions", "optional": true }"#),
        (T.personMoods, #"{ "name": "emotions", "renamingIdentifier": "moods", "destination": "Emotion", "inverse": "owner", "toMany": true }"#),
        (T.tagMoods, #"{ "name": "moods", "destination": "Emotion", "inverse": "tags", "toMany": true }"#),
    ])

    static let v3Lines = [
        #"Emotion2 intensity=5 level=32767 name="calm" remark="quiet" weight=0.1 owner->Person3 tags->[Tag1]"#,
        #"Emotion5 intensity=5 level=-32768 name="glad" owner->Person3 tags->[Tag1,Tag6]"#,
        #"Emotion7 intensity=5 level=1 name="sad" owner->Person4"#,
        #"Person3 name="Ada Lovelace" emotions->[Emotion2,Emotion5]"#,
        #"Person4 name="Bob" emotions->[Emotion7]"#,
        #"Tag1 name="home" moods->[Emotion2,Emotion5]"#,
        #"Tag6 name="work" moods->[Emotion5]"#,
    ]

    package func aThreeVersionChainWithRenamesMigratesStagedAndInOneStepAlike(kind: StoreKind) throws {
        let staged = try T.moody(kind)
        let stagedReport = try staged.migrate([M.moody, Self.v2, Self.v3])
        #expect(stagedReport.steps.count == 2)
        let direct = try T.moody(kind)
        let directReport = try direct.migrate([M.moody, Self.v3])
        #expect(directReport.steps.count == 1)
        #expect(try staged.dump(Self.v3) == Self.v3Lines)
        #expect(try direct.dump(Self.v3) == Self.v3Lines)
    }

    package func aStoreAtAMiddleVersionMigratesTheRestOfTheChain(kind: StoreKind) throws {
        let fixture = try T.moody(kind)
        try fixture.migrate([M.moody, Self.v2])
        let report = try fixture.migrate([M.moody, Self.v2, Self.v3])
        #expect(report.steps.count == 1)
        #expect(try fixture.dump(Self.v3) == Self.v3Lines)
        #expect(try fixture.migrate([M.moody, Self.v2, Self.v3]).wasAlreadyCurrent)
    }

    // MARK: - Custom stages

    /// Person.name split into firstName (required, no default) and lastName.
    static let split = M.moody("2", [
        (#"{ "name": "Person",\#n    "attributes": [ { "name": "name", "type": "string" } ]"#,
         #"{ "name": "Person",\#n    "attributes": [ { "name": "firstName", "type": "string" }, { "name": "lastName", "type": "string", "optional": true } ]"#),
    ])

    package func aCustomStageSplitsAStringIntoTwoAttributes(kind: StoreKind) throws {
        let names = Shared<[Int64: String]>([:])
        let stage = MigrationStage.custom(
            from: M.moody, to: Self.split,
            willMigrate: { context in
                for person in try context.fetch(FetchRequest(entityName: "Person")) {
                    let key = try #require(person.objectID.primaryKey)
                    names.update { $0[key] = person["name"] as? String }
                }
            },
            didMigrate: { context in
                // The old attribute is gone; the names read before the change fill the new ones,
                // which the checks after didMigrate then find set.
                for person in try context.fetch(FetchRequest(entityName: "Person")) {
                    let full = names.read { $0[person.objectID.primaryKey ?? 0] } ?? ""
                    let parts = full.split(separator: " ", maxSplits: 1).map(String.init)
                    person["firstName"] = parts.first
                    person["lastName"] = parts.count > 1 ? parts[1] : nil
                }
            })
        let fixture = try T.moody(kind)
        let report = try fixture.migrate([M.moody, Self.split], stages: [stage])
        #expect(report.steps.map(\.isCustom) == [true])
        #expect(try fixture.dump(Self.split) == Array(M.moodyLines[0...2]) + [
            #"Person3 firstName="Ada" lastName="Lovelace" moods->[Mood2,Mood5]"#,
            #"Person4 firstName="Bob" moods->[Mood7]"#,
        ] + M.moodyLines[5...])
    }

    /// Mood.colour (a string) becomes a Colour object that moods point to.
    static let colours = M.moody("2", [
        ("\(T.weight),\n      \(T.colour)", T.weight),
        (T.owner, #"\#(T.owner), { "name": "shade", "destination": "Colour", "inverse": "moods", "optional": true }"#),
        (#"{ "name": "Tag","#, #"""
        { "name": "Colour", "attributes": [ { "name": "name", "type": "string" } ],
            "relationships": [ { "name": "moods", "destination": "Mood", "inverse": "shade", "toMany": true } ] },
          { "name": "Tag",
        """#),
    ])

    package func aCustomStageCreatesObjectsFromAValue(kind: StoreKind) throws {
        let shades = Shared<[Int64: String]>([:])
        let stage = MigrationStage.custom(
            from: M.moody, to: Self.colours,
            willMigrate: { context in
                for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                    guard let colour = mood["colour"] as? String else { continue }
                    let key = try #require(mood.objectID.primaryKey)
                    shades.update { $0[key] = colour }
                }
            },
            didMigrate: { context in
                var made: [String: ManagedObject] = [:]
                for (index, name) in Set(shades.read { $0.values }).sorted().enumerated() {
                    made[name] = try context.make("Colour", key: Int64(index + 1), ["name": name])
                }
                for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                    let shade = shades.read { $0[mood.objectID.primaryKey ?? 0] }
                    mood.setObject(shade.flatMap { made[$0] }, forKey: "shade")
                }
            })
        let fixture = try T.moody(kind)
        try fixture.migrate([M.moody, Self.colours], stages: [stage])
        #expect(try fixture.dump(Self.colours) == [
            #"Colour1 name="blue" moods->[Mood7]"#,
            #"Colour2 name="green" moods->[Mood2]"#,
            #"Mood2 level=32767 name="calm" note="quiet" weight=0.1 owner->Person3 shade->Colour2 tags->[Tag1]"#,
            #"Mood5 level=-32768 name="glad" owner->Person3 tags->[Tag1,Tag6]"#,
            #"Mood7 level=1 name="sad" owner->Person4 shade->Colour1"#,
        ] + M.moodyLines[3...])
    }

    /// int16 → string cannot be inferred, but a custom stage may carry it: the old values are
    /// read in willMigrate and written in didMigrate.
    package func aCustomStageCarriesATypeChange(kind: StoreKind) throws {
        let v2 = M.moody("2", [(T.level, #"{ "name": "level", "type": "string" }"#)])
        let levels = Shared<[Int64: Int64]>([:])
        let stage = MigrationStage.custom(
            from: M.moody, to: v2,
            willMigrate: { context in
                for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                    let key = try #require(mood.objectID.primaryKey)
                    levels.update { $0[key] = mood.value(forKey: "level", as: Int64.self) }
                }
            },
            didMigrate: { context in
                for mood in try context.fetch(FetchRequest(entityName: "Mood")) {
                    mood["level"] = levels.read { $0[mood.objectID.primaryKey ?? 0] }.map { "L\($0)" }
                }
            })
        let fixture = try T.moody(kind)
        try fixture.migrate([M.moody, v2], stages: [stage])
        #expect(try fixture.dump(v2) == [
            #"Mood2 colour="green" level="L32767" name="calm" note="quiet" weight=0.1 owner->Person3 tags->[Tag1]"#,
            #"Mood5 level="L-32768" name="glad" owner->Person3 tags->[Tag1,Tag6]"#,
            #"Mood7 colour="blue" level="L1" name="sad" owner->Person4"#,
        ] + M.moodyLines[3...])
    }

    struct StageFailure: Error {}

    package func aCustomStageThatThrowsLeavesTheStoreAsItWas(kind: StoreKind) throws {
        let stage = MigrationStage.custom(
            from: M.moody, to: Self.split,
            didMigrate: { context in
                for person in try context.fetch(FetchRequest(entityName: "Person")) { person["firstName"] = "X" }
                try context.save()
                throw StageFailure()
            })
        let fixture = try T.moody(kind)
        let message = try fixture.expectRefusal([M.moody, Self.split], stages: [stage], code: .migrationFailed)
        #expect(message.contains("StageFailure"), "\(message)")
        #expect(try fixture.dump(M.moody) == M.moodyLines)
    }

    package func aCustomStageThatLeavesARequiredValueUnsetIsRefused(kind: StoreKind) throws {
        let stage = MigrationStage.custom(
            from: M.moody, to: Self.split,
            didMigrate: { context in
                for person in try context.fetch(FetchRequest(entityName: "Person")) where person.objectID.primaryKey == 3 {
                    person["firstName"] = "Ada"
                }
            })
        let fixture = try T.moody(kind)
        let message = try fixture.expectRefusal([M.moody, Self.split], stages: [stage])
        #expect(message.contains("Person.firstName"), "\(message)")
        #expect(message.contains("Person 4"), "\(message)")
        #expect(!message.contains("Person 3"), "\(message)")
    }
}

/// A value custom stages share between willMigrate and didMigrate (stages are `@Sendable`).
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) { self.value = Mutex(value) }

    func update(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
    func read<T>(_ body: (Value) -> T) -> T { value.withLock { body($0) } }
}
