/// Undo and redo for a context, in groups: by default each top-level change (a property set, an
/// insert, a delete with everything its delete rules did) is one group; ``group(_:)`` makes one
/// group of several.
///
/// A context has none until you give it one (`context.undoManager = UndoStack()`), so bulk work
/// keeps no history, as with Core Data on iOS.
public final class UndoStack {
    typealias Action = () -> Void

    private var undoGroups: [[Action]] = []
    private var redoGroups: [[Action]] = []
    private var openGroup: [Action]?
    private var depth = 0
    private var replaying: Direction?
    /// How many groups are kept; the oldest are dropped first. 0 means no limit.
    public var levelsOfUndo: Int

    private enum Direction { case undo, redo }

    public init(levelsOfUndo: Int = 0) {
        self.levelsOfUndo = levelsOfUndo
    }

    public var canUndo: Bool { !undoGroups.isEmpty || !(openGroup?.isEmpty ?? true) }
    public var canRedo: Bool { !redoGroups.isEmpty }

    /// Runs `body` as one undo group.
    public func group<T>(_ body: () throws -> T) rethrows -> T {
        beginGroup()
        defer { endGroup() }
        return try body()
    }

    public func removeAll() {
        undoGroups.removeAll()
        redoGroups.removeAll()
        openGroup = nil
        depth = 0
    }

    func beginGroup() {
        if depth == 0 { openGroup = [] }
        depth += 1
    }

    /// Opens the last group again, so that what is registered until ``endGroup()`` is undone
    /// with it; a new group when there is none, or one is open.
    func reopenLastGroup() {
        guard depth == 0, replaying == nil, let last = undoGroups.popLast() else {
            beginGroup()
            return
        }
        openGroup = last
        depth = 1
    }

    func endGroup() {
        depth -= 1
        guard depth == 0, let group = openGroup else { return }
        openGroup = nil
        guard !group.isEmpty else { return }
        switch replaying {
        case .undo: redoGroups.append(group)
        case .redo: undoGroups.append(group)
        case nil:
            undoGroups.append(group)
            redoGroups.removeAll()
            if levelsOfUndo > 0, undoGroups.count > levelsOfUndo { undoGroups.removeFirst() }
        }
    }

    /// Records how to reverse a change that was just made.
    func register(_ action: @escaping Action) {
        if openGroup != nil {
            openGroup!.append(action)
        } else {
            beginGroup()
            openGroup!.append(action)
            endGroup()
        }
    }

    /// Reverses the last group; the reversal itself becomes a redo group.
    func undo() {
        guard depth == 0, let group = undoGroups.popLast() else { return }
        replay(group, as: .undo)
    }

    func redo() {
        guard depth == 0, let group = redoGroups.popLast() else { return }
        replay(group, as: .redo)
    }

    private func replay(_ group: [Action], as direction: Direction) {
        replaying = direction
        beginGroup()
        for action in group.reversed() { action() }
        endGroup()
        replaying = nil
    }
}
