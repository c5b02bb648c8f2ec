/// The inferred changes of a migration step, applied to records in memory (the atomic stores'
/// way to migrate).
enum RecordMigration {
    /// Transforms every record of `contents` from the step's source model to its destination
    /// model, and gives the contents the destination model's metadata.
    static func apply(_ step: MigrationStep, to contents: AtomicStoreContents) throws(StrataError) -> AtomicStoreContents {
        throw StrataError(.unsupportedModel, "record migration is not written yet")
    }

    /// Checks that the migrated records meet what the destination model requires of them.
    static func checkRequirements(_ step: MigrationStep, _ contents: AtomicStoreContents) throws(StrataError) {}
}
