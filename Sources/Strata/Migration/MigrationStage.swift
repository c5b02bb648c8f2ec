/// A step between two adjacent model versions that runs code of the app: the role of a Core
/// Data mapping model with entity migration policies, or of SwiftData's
/// `MigrationStage.custom(fromVersion:toVersion:willMigrate:didMigrate:)`.
///
/// The step runs in three parts, all-or-nothing with the rest of the migration:
/// 1. `willMigrate`, given a context on the **old** model over the store as it is;
/// 2. the inferred changes between the two models (a change that cannot be inferred, such as
///    an attribute whose type changes from `int16` to `string`, is carried out as the removal
///    of the old property and the addition of the new one: the old values are gone, so read
///    them in `willMigrate`);
/// 3. `didMigrate`, given a context on the **new** model.
///
/// Primary keys are kept by every step, so object IDs read in `willMigrate` (their
/// ``ObjectID/primaryKey`` and entity) find the same objects in `didMigrate`. Changes a
/// closure leaves unsaved are saved when it returns; a closure that throws cancels the whole
/// migration, and the store stays as it was.
///
/// ```swift
/// let split = MigrationStage.custom(from: v2, to: v3, didMigrate: { context in
///     for person in try context.fetch(FetchRequest(entityName: "Person")) {
///         let parts = (person["name"] as? String ?? "").split(separator: " ", maxSplits: 1)
///         person["firstName"] = parts.first.map(String.init)
///         person["lastName"] = parts.count > 1 ? String(parts[1]) : nil
///     }
/// })
/// ```
public struct MigrationStage: Sendable {
    /// Code run with a context on one model version.
    public typealias Body = @Sendable (ManagedObjectContext) throws -> Void

    public let source: Schema
    public let destination: Schema
    public let willMigrate: Body?
    public let didMigrate: Body?
    /// Value transformers the closures' contexts use for `transformable` attributes, by the
    /// names the models use (a context reading a transformable attribute needs its transformer).
    public let transformers: [String: any AttributeTransformer]

    /// A custom stage from `source` to `destination`, two adjacent versions of the list it is
    /// used with (matched by version hash).
    /// - Parameter source: the earlier of the two versions.
    /// - Parameter destination: the version right after `source`.
    /// - Parameter willMigrate: run with a context on the source model before the inferred changes.
    /// - Parameter didMigrate: run with a context on the destination model after them.
    /// - Parameter transformers: the value transformers of the models' `transformable`
    ///   attributes, registered with the closures' contexts.
    public static func custom(
        from source: Schema, to destination: Schema, transformers: [String: any AttributeTransformer] = [:],
        willMigrate: Body? = nil, didMigrate: Body? = nil
    ) -> MigrationStage {
        MigrationStage(source: source, destination: destination, willMigrate: willMigrate, didMigrate: didMigrate, transformers: transformers)
    }
}
