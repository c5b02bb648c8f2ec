/// The steps that take a store from the model it was written with to the current version.
///
/// A store's version is found by the model version hash in its metadata:
/// - when it is one of the versions, the plan walks from there to the current one, one step per
///   pair of adjacent versions (inferred, or custom where a ``MigrationStage`` was given);
/// - when it is none of them, what happens is `unlisted`'s choice. The store keeps the whole
///   model it was written with, so a step can always start from that model.
public struct MigrationPlan: Sendable {
    /// What to do with a store whose model is none of the listed versions.
    public enum UnlistedModel: Sendable {
        /// One inferred step from the store's model to the current version; refused when the
        /// step would remove an entity or a property (a store written by a newer version of the
        /// app would lose data). Automatic migration at open does this.
        case inferToCurrent
        /// A step from the store's model to the first version, then through every version in
        /// order (`strata migrate --via`).
        case throughEveryVersion
    }

    /// The model the store was written with.
    public let storeSchema: Schema
    public let steps: [MigrationStep]

    /// True when the store is at the current version already.
    public var isEmpty: Bool { steps.isEmpty }

    /// The model the store has at the end.
    public var destination: Schema { steps.last?.destination ?? storeSchema }

    /// - Parameters:
    ///   - storeSchema: the model the store was written with (``StoreMetadata/schema()``).
    ///   - versions: every version of the model, oldest first.
    ///   - stages: custom stages, each between two adjacent versions.
    ///   - unlisted: what to do when the store's model is none of `versions`.
    /// - Throws: `invalidConfiguration` for a stage that is not between adjacent versions;
    ///   `migrationRefused` naming every change that cannot be inferred in a step without a
    ///   custom stage, or, for an unlisted model with `.inferToCurrent`, what would be removed.
    public init(storeSchema: Schema, versions: SchemaVersions, stages: [MigrationStage] = [], unlisted: UnlistedModel = .inferToCurrent) throws(StrataError) {
        self.storeSchema = storeSchema
        var stagesByPair: [String: MigrationStage] = [:]
        for stage in stages {
            guard let from = versions.index(ofVersionHash: stage.source.versionHash),
                  let to = versions.index(ofVersionHash: stage.destination.versionHash), to == from + 1 else {
                throw StrataError(
                    .invalidConfiguration,
                    "the custom stage \(SchemaVersions.label(stage.source)) → \(SchemaVersions.label(stage.destination)) is not between two adjacent model versions of the list (\(versions.schemas.map(SchemaVersions.label).joined(separator: ", ")))")
            }
            stagesByPair[stage.source.versionHash + ">" + stage.destination.versionHash] = stage
        }
        func step(_ source: Schema, _ destination: Schema) -> MigrationStep {
            MigrationStep(source: source, destination: destination, stage: stagesByPair[source.versionHash + ">" + destination.versionHash])
        }
        var steps: [MigrationStep] = []
        if let start = versions.index(ofVersionHash: storeSchema.versionHash) {
            for index in start..<(versions.schemas.count - 1) {
                steps.append(step(versions.schemas[index], versions.schemas[index + 1]))
            }
        } else {
            switch unlisted {
            case .inferToCurrent:
                let direct = MigrationStep(source: storeSchema, destination: versions.current)
                let removals = direct.diff.changes.filter { [.entityRemoved, .attributeRemoved, .relationshipRemoved].contains($0.kind) }
                if !removals.isEmpty {
                    throw StrataError(
                        .migrationRefused,
                        "the store was written with model \(SchemaVersions.label(storeSchema)), which is none of the app's \(versions.schemas.count) model version(s); migrating it straight to \(SchemaVersions.label(versions.current)) would remove \(removals.map(\.path).joined(separator: ", ")) — it may have been written by a newer version of the app. Add its model to the versions, or migrate it explicitly (strata migrate)")
                }
                steps.append(direct)
            case .throughEveryVersion:
                var previous = storeSchema
                for version in versions.schemas {
                    steps.append(step(previous, version))
                    previous = version
                }
            }
        }
        for step in steps where !step.isCustom && !step.diff.isInferable {
            throw Self.uninferable(step)
        }
        // A version listed twice (`--via` naming the `--schema` model) is one version: a step
        // between two identical models does nothing.
        self.steps = steps.filter { $0.isCustom || !$0.diff.isSameVersion || !$0.diff.changes.isEmpty }
    }

    /// The error for a step whose changes cannot all be inferred.
    static func uninferable(_ step: MigrationStep) -> StrataError {
        let lines = step.diff.uninferableChanges.map { "\($0)" }
        return StrataError(
            .migrationRefused,
            "the step \(step.summary) cannot be inferred; give it a custom stage (MigrationStage.custom), or change the model:\n  \(lines.joined(separator: "\n  "))")
    }
}
