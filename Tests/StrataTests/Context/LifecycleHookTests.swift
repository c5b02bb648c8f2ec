import Foundation
import Strata
import StrataTestKit
import Testing

/// The app's hooks: validation rules per property, an object's `validateFor…`, and the life
/// cycle calls, in the order the `ContextsAndConcurrency` article documents. Serialized: the
/// notes log to one shared log.
@Suite(.serialized) struct LifecycleHookTests {
    static let schema = Models.load("""
    { "name": "Notes", "entities": [
      { "name": "Folder",
        "attributes": [ { "name": "name", "type": "string" } ],
        "relationships": [ { "name": "notes", "destination": "Note", "inverse": "folder", "toMany": true, "deleteRule": "cascade" } ] },
      { "name": "Note",
        "attributes": [
          { "name": "title", "type": "string" },
          { "name": "words", "type": "int32", "optional": true } ],
        "relationships": [ { "name": "folder", "destination": "Folder", "inverse": "notes", "optional": true } ] },
      { "name": "Memo", "parent": "Note",
        "attributes": [ { "name": "due", "type": "date", "optional": true } ] }
    ] }
    """)

    /// What the hooks of every object saw, in order.
    final class Log: @unchecked Sendable {
        var events: [String] = []
    }

    /// A note that records its hooks, refuses a title "forbidden" on update and a deletion of a
    /// note with more than 100 words.
    class Note: ManagedObject {
        override class var entityName: String { "Note" }
        nonisolated(unsafe) static var log = Log()
        var title: String { self["title"] as? String ?? "" }
        private func note(_ event: String) { Self.log.events.append("\(title): \(event)") }

        override func awakeFromInsert() { Self.log.events.append("awakeFromInsert") }
        override func willSave() { note("willSave") }
        override func validateForInsert() throws { note("validateForInsert") }
        override func validateForUpdate() throws {
            note("validateForUpdate")
            if title == "forbidden" {
                throw StrataError(.validationFailed, "refused", failures: [
                    ValidationFailure(code: .custom, objectID: objectID, key: "title", message: "this title is forbidden"),
                ])
            }
        }
        override func validateForDelete() throws {
            note("validateForDelete")
            if let words = self["words"] as? Int64, words > 100 { throw NoteError.tooLongToDelete(words) }
        }
        override func prepareForDeletion() {
            note("prepareForDeletion in \((object(forKey: "folder")?["name"] as? String) ?? "no folder")")
        }
        override func didSave() { note("didSave\(isDeleted ? " (deleted)" : "")") }
        override func willTurnIntoFault() { note("willTurnIntoFault") }
        override func didTurnIntoFault() { Self.log.events.append("didTurnIntoFault") }
    }

    final class Memo: Note {
        override class var entityName: String { "Memo" }
    }

    enum NoteError: Error, CustomStringConvertible {
        case tooLongToDelete(Int64)
        var description: String {
            switch self { case .tooLongToDelete(let words): "a note of \(words) words is kept" }
        }
    }

    static func context() throws -> (ManagedObjectContext, Log) {
        let coordinator = PersistentStoreCoordinator(schema: schema, classes: [Note.self, Memo.self])
        try coordinator.addStore(.inMemory())
        let log = Log()
        Note.log = log
        return (ManagedObjectContext(coordinator: coordinator), log)
    }

    @Test func hooksRunInTheDocumentedOrder() throws {
        let (context, log) = try Self.context()
        try context.addValidationRuleForTests()
        let folder = try context.make("Folder", ["name": "Inbox"])
        let note = try context.make("Note", ["title": "Plan"])
        note.setObject(folder, forKey: "folder")
        try context.save()
        #expect(log.events == ["awakeFromInsert", "Plan: willSave", "rule title: Plan", "Plan: validateForInsert", "Plan: didSave"])

        log.events = []
        note["words"] = 3
        try context.save()
        #expect(log.events == ["Plan: willSave", "rule title: Plan", "Plan: validateForUpdate", "Plan: didSave"])

        log.events = []
        context.refresh(note, mergeChanges: false)
        #expect(log.events == ["Plan: willTurnIntoFault", "didTurnIntoFault"])

        // Deleting the folder cascades to the note: it is told before its relationships go.
        log.events = []
        context.delete(folder)
        #expect(log.events == ["Plan: prepareForDeletion in Inbox"])
        #expect(note.isDeleted)
        try context.save()
        #expect(log.events == ["Plan: prepareForDeletion in Inbox", "Plan: validateForDelete", "Plan: didSave (deleted)"])
    }

    /// The model's rules, a rule of the coordinator and an object's own check fail one save
    /// together, each named; nothing is written.
    @Test func everyFailureOfEveryKindIsInOneError() throws {
        let (context, _) = try Self.context()
        try context.coordinator.addValidationRule(forEntity: "Note", key: "words") { value, _ in
            if let words = value as? Int64, words < 0 { throw NoteError.tooLongToDelete(words) }
        }
        let kept = try context.make("Note", ["title": "Kept", "words": 500])
        let renamed = try context.make("Note", ["title": "Plan"])
        try context.save()
        context.delete(kept)
        renamed["title"] = "forbidden"
        let memo = try context.make("Memo", ["words": -1])
        let error = expectError(.validationFailed) { try context.save() }
        #expect(error?.failureSet == [
            Failure(.missingValue, memo.objectID, "title"),
            Failure(.custom, memo.objectID, "words"),
            Failure(.custom, renamed.objectID, "title"),
            Failure(.custom, kept.objectID, nil),
        ])
        #expect(error?.failures.first { $0.objectID == kept.objectID }?.message == "a note of 500 words is kept")
        #expect(error?.failures.first { $0.objectID == memo.objectID && $0.key == "words" }?.message == "a note of -1 words is kept")
        let stored = ManagedObjectContext(coordinator: context.coordinator)
        #expect(try stored.all("Note", by: "title").map { $0["title"] as? String } == ["Kept", "Plan"])
    }

    @Test func aRuleNamesAnEntityAndAPropertyOfTheModel() throws {
        let (context, _) = try Self.context()
        let entity = expectError(.unknownEntity) {
            try context.coordinator.addValidationRule(forEntity: "Notes", key: "title") { _, _ in }
        }
        #expect(entity?.message == "the model 'Notes' has no entity 'Notes'; did you mean 'Note'?")
        let property = expectError(.unknownProperty) {
            try context.coordinator.addValidationRule(forEntity: "Note", key: "titel") { _, _ in }
        }
        #expect(property?.message == "entity 'Note' has no property 'titel'; did you mean 'title'?")
    }

    /// A new note merged into a stored one by an upsert is discarded, not deleted: no
    /// `prepareForDeletion`, no `validateForDelete`.
    @Test func aNewObjectMergedByAnUpsertIsNotDeleted() throws {
        let schema = Models.load("""
        { "name": "Tags", "entities": [ { "name": "Note", "attributes": [ { "name": "title", "type": "string" },
          { "name": "words", "type": "int32", "optional": true } ], "uniquenessConstraints": [ ["title"] ] } ] }
        """)
        let coordinator = PersistentStoreCoordinator(schema: schema, classes: [Note.self])
        try coordinator.addStore(.inMemory())
        let log = Log()
        Note.log = log
        let context = ManagedObjectContext(coordinator: coordinator)
        _ = try context.make("Note", ["title": "Plan"])
        try context.save()
        context.mergePolicy = .mergeByPropertyObjectTrump
        _ = try context.make("Note", ["title": "Plan", "words": 7])
        log.events = []
        try context.save()
        // The new note is checked as an insert; then the stored one, which takes its words, as an
        // update in the save's second round.
        #expect(log.events == ["Plan: willSave", "Plan: validateForInsert", "Plan: willSave", "Plan: validateForUpdate", "Plan: didSave"])
        #expect(try ManagedObjectContext(coordinator: coordinator).all("Note", by: "title").map { $0["words"] as? Int64 } == [7])
    }
}

extension ManagedObjectContext {
    /// A rule on every note's title that logs what it sees.
    fileprivate func addValidationRuleForTests() throws {
        try coordinator.addValidationRule(forEntity: "Note", key: "title") { value, _ in
            LifecycleHookTests.Note.log.events.append("rule title: \(value as? String ?? "nil")")
        }
    }
}
