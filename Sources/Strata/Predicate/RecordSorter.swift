/// Sorts objects or records by sort descriptors, with one evaluator so that every store and
/// every context orders the same way. Ties keep object-ID order, so results are deterministic.
package enum RecordSorter {
    package static func sort<Subject>(
        _ items: [Subject], by descriptors: [FetchSortDescriptor], evaluator: PredicateEvaluator<Subject>,
        id: (Subject) -> ObjectID
    ) -> [Subject] {
        guard !descriptors.isEmpty else { return items }
        let paths = descriptors.map(\.keyPathComponents)
        let keyed: [(item: Subject, id: ObjectID, keys: [PredicateValue])] = items.map { item in
            (item, id(item), paths.map { path in
                switch evaluator.value(ofKeyPath: path, on: item) {
                case .scalar(let value): value
                case .object(let object): .object(evaluator.access.objectID(object))
                default: .null
                }
            })
        }
        return keyed.sorted { lhs, rhs in
            for (index, descriptor) in descriptors.enumerated() {
                let order = descriptor.compare(lhs.keys[index], rhs.keys[index])
                if order != 0 { return order < 0 }
            }
            return lhs.id < rhs.id
        }.map(\.item)
    }
}
