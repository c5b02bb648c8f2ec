/// Sorts objects or records by sort descriptors, with one evaluator so that every store and
/// every context orders the same way. Ties keep object-ID order, so results are deterministic.
package enum RecordSorter {
    package static func sort<Subject>(
        _ items: [Subject], by descriptors: [FetchSortDescriptor], evaluator: PredicateEvaluator<Subject>,
        id: (Subject) -> ObjectID
    ) throws(StrataError) -> [Subject] {
        guard !descriptors.isEmpty else { return items }
        let paths = descriptors.map(\.keyPathComponents)
        var keyed: [(item: Subject, id: ObjectID, keys: [PredicateValue])] = []
        keyed.reserveCapacity(items.count)
        for item in items {
            var keys: [PredicateValue] = []
            for path in paths {
                switch try evaluator.value(ofKeyPath: path, on: item) {
                case .scalar(let value): keys.append(value)
                case .object(let object): keys.append(.object(evaluator.access.objectID(object)))
                default: keys.append(.null)
                }
            }
            keyed.append((item, id(item), keys))
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
