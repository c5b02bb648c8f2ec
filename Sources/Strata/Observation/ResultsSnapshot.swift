/// The results of a request at one moment, in sections: `Sendable`, so that any task can show
/// them. Without a section key path there is exactly one section, named nil, possibly empty;
/// with one, a section per distinct value of the key path, none when nothing matches.
public struct ResultsSnapshot: Sendable, Hashable {
    /// One section: the value of the section key path its objects share (as text; nil for no
    /// value, and for the one section of a controller without a key path), and their IDs.
    public struct Section: Sendable, Hashable {
        public var name: String?
        public var objectIDs: [ObjectID]

        public init(name: String?, objectIDs: [ObjectID]) {
            self.name = name
            self.objectIDs = objectIDs
        }
    }

    public var sections: [Section]

    public init(sections: [Section]) {
        self.sections = sections
    }

    /// Every object's ID, section by section.
    public var objectIDs: [ObjectID] { sections.flatMap(\.objectIDs) }

    /// The ID at an index path.
    public subscript(path: ResultsIndexPath) -> ObjectID {
        sections[path.section].objectIDs[path.item]
    }
}

/// A place in sectioned results: a section and an item in it, ordered section first.
public struct ResultsIndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (lhs: ResultsIndexPath, rhs: ResultsIndexPath) -> Bool {
        lhs.section != rhs.section ? lhs.section < rhs.section : lhs.item < rhs.item
    }

    public var description: String { "[\(section), \(item)]" }
}
