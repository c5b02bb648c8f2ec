import Foundation
import Strata
import Testing

/// A store that cannot be read while a fault fills or a to-many loads gives an error: the
/// object is not taken for deleted, and nothing the context failed to read is saved back.
package struct UnreadableObjectChecks {
    package init() {}

    package func aFaultThatCannotBeReadIsNotDeletedAndBlocksTheSave(kind: StoreKind) throws {
        let setup = try TwoStores(StorePair(notes: kind, log: kind))
        let writer = ManagedObjectContext(coordinator: setup.coordinator)
        let note = try writer.make("Note", ["title": "kept"])
        try writer.save()
        let id = note.objectID
        let store = setup.failingStores.first { $0.configurationName == "Notes" }!

        let context = ManagedObjectContext(coordinator: setup.coordinator)
        let fault = context.object(with: id)
        context.refresh(fault, mergeChanges: false)  // drops the coordinator's cached row too
        store.failsReads.withLock { $0 = true }
        #expect(fault["title"] == nil)
        #expect(fault.isFault)
        #expect(!fault.isDeleted)
        fault["title"] = "overwritten"
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .corruptStore)
        #expect(error?.message.hasPrefix("\(id) could not be read from its store, so the save was refused and nothing was written: a row cannot be decoded") == true)

        store.failsReads.withLock { $0 = false }
        context.refresh(fault, mergeChanges: false)
        #expect(fault["title"] as? String == "kept")
        #expect(try setup.contents().notes == ["kept"])
    }

    package func membersThatCannotBeReadAreNeverSavedAsNone(kind: StoreKind) throws {
        let setup = try TwoStores(StorePair(notes: kind, log: kind))
        let writer = ManagedObjectContext(coordinator: setup.coordinator)
        let note = try writer.make("Note", ["title": "kept"])
        note.addObject(try writer.make("Tag", ["name": "home"]), forKey: "tags")
        try writer.save()
        let store = setup.failingStores.first { $0.configurationName == "Notes" }!

        let context = ManagedObjectContext(coordinator: setup.coordinator)
        let loaded = try context.all("Note", by: "title")[0]
        store.failsReads.withLock { $0 = true }
        let members = loaded.objects(forKey: "tags")
        loaded["title"] = "renamed"
        // A store that loads to-many members lazily (SQLite) could not read them: the save is
        // refused. One that read them with the record saves, and the tag is still linked.
        let lazy = (try? context.save()) == nil
        #expect(lazy == members.isEmpty)
        store.failsReads.withLock { $0 = false }
        let check = try setup.reopenedContents()
        #expect(check.notes == [lazy ? "kept" : "renamed"])
        #expect(check.links == [lazy ? "kept" : "renamed": ["home"]])
    }
}
