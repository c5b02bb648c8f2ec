/// Finds the ``SchemaChange``s between two matched models (``SchemaDiff`` does the matching).
struct SchemaChangeDetector {
    let source: Schema
    let destination: Schema
    let entityMatches: [String: String]
    let propertyMatches: [String: [String: String]]

    func changes() -> [SchemaChange] {
        var result: [SchemaChange] = []
        let matchedSources = Set(entityMatches.values)
        for entity in destination.entities {
            guard let sourceName = entityMatches[entity.name] else {
                result.append(SchemaChange(kind: .entityAdded, entity: entity.name, detail: "entity added"))
                continue
            }
            if sourceName != entity.name {
                result.append(SchemaChange(kind: .entityRenamed, entity: entity.name, detail: "entity renamed from '\(sourceName)'"))
            }
        }
        for entity in source.entities where !matchedSources.contains(entity.name) {
            result.append(SchemaChange(kind: .entityRemoved, entity: entity.name, detail: "entity removed"))
        }
        return result
    }
}
