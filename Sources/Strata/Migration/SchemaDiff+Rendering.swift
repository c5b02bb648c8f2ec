/// The diff as text for people and as JSON for tools (`strata diff`).
extension SchemaDiff {
    /// One line per change (``SchemaChange/description``), then a summary line.
    ///
    /// ```
    /// Mood.note: attribute renamed from 'text'
    /// Mood.level: type int16 → string  [not inferable: only int16 → int32 → int64 and float → double are inferred; convert int16 to string in a custom stage]
    /// Mood.date: optional → required  [needs data check: every Mood.date has a value]
    /// Moody 1 → Moody 2: 3 changes (1 not inferable, 1 needing a data check); the version hashes differ: a store must be migrated
    /// ```
    public var text: String {
        var lines = changes.map(\.description)
        lines.append(summary)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Moody 1 → Moody 2: 3 changes (1 not inferable, 1 needing a data check); the version
    /// hashes differ: a store must be migrated`.
    public var summary: String {
        let notInferable = changes.count(where: { !$0.inferability.isInferable })
        let dataChecks = changes.count(where: { if case .dependsOnData = $0.inferability { true } else { false } })
        var counts = changes.isEmpty ? "no changes" : "\(changes.count) change\(changes.count == 1 ? "" : "s")"
        let remarks = [
            notInferable > 0 ? "\(notInferable) not inferable" : nil,
            dataChecks > 0 ? "\(dataChecks) needing a data check" : nil,
        ].compactMap { $0 }
        if !remarks.isEmpty { counts += " (\(remarks.joined(separator: ", ")))" }
        let hashes = isSameVersion
            ? "same version hash: a store of either model opens with the other, no migration needed"
            : "the version hashes differ: a store must be migrated"
        return "\(Self.label(source)) → \(Self.label(destination)): \(counts); \(hashes)"
    }

    /// The diff as a JSON object, members in a fixed order:
    ///
    /// ```json
    /// {
    ///   "source": { "name": "Moody", "version": "1", "versionHash": "…" },
    ///   "destination": { "name": "Moody", "version": "2", "versionHash": "…" },
    ///   "sameVersion": false,
    ///   "inferable": true,
    ///   "changes": [
    ///     { "kind": "attributeRenamed", "entity": "Mood", "property": "note",
    ///       "detail": "attribute renamed from 'text'", "inferability": "inferable", "reason": null }
    ///   ]
    /// }
    /// ```
    /// `version` is null for a model without one; `entity` is null for a change of the model
    /// itself, `property` for a change of an entity; `inferability` is `inferable`,
    /// `dependsOnData` or `notInferable`, and `reason` the condition checked or the reason it
    /// cannot be inferred (null when inferable). Ends with a newline.
    public var jsonString: String {
        func model(_ schema: Schema) -> JSONValue {
            .object([
                "name": .string(schema.name),
                "version": schema.version.map(JSONValue.string) ?? .null,
                "versionHash": .string(schema.versionHash),
            ])
        }
        let json = JSONValue.object([
            "source": model(source),
            "destination": model(destination),
            "sameVersion": .bool(isSameVersion),
            "inferable": .bool(isInferable),
            "changes": .array(changes.map { change in
                .object([
                    "kind": .string(change.kind.rawValue),
                    "entity": change.entity.isEmpty ? .null : .string(change.entity),
                    "property": change.property.map(JSONValue.string) ?? .null,
                    "detail": .string(change.detail),
                    "inferability": .string(change.inferability.name),
                    "reason": change.inferability.explanation.map(JSONValue.string) ?? .null,
                ])
            }),
        ])
        return JSONWriter().string(from: json)
    }

    /// `Moody 2`: the model's name and version label.
    private static func label(_ schema: Schema) -> String {
        schema.name + (schema.version.map { " \($0)" } ?? "")
    }
}
