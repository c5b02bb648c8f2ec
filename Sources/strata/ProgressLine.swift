import Foundation
import Strata
import Synchronization

/// One status line on standard error that rewrites itself (`\r`, then erase to the end of the
/// line), for long operations at a terminal. Only made when standard error is a terminal
/// (``forTerminal()``): a pipe or a log file gets no control characters.
final class ProgressLine: Sendable {
    /// When the line was last drawn, to draw at most every ``interval`` seconds; nil before the
    /// first time. Whether anything is shown, to clear it once at the end.
    private struct State {
        var lastDrawn: Date?
        var isShown = false
    }

    private let state = Mutex(State())
    /// The width the line is cut to, one less than the terminal's so that it never wraps.
    private let width: Int
    private static let interval: TimeInterval = 0.1

    private init(width: Int) {
        self.width = width
    }

    /// A progress line when standard error is a terminal, else nil.
    static func forTerminal() -> ProgressLine? {
        guard isatty(STDERR_FILENO) != 0 else { return nil }
        var size = winsize()
        let columns = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        return ProgressLine(width: max(columns - 1, 10))
    }

    /// Shows `text` in place of the line, unless the line was drawn less than `interval` ago
    /// (`force` draws anyway: a new step should be seen).
    func show(_ text: String, force: Bool = false) {
        state.withLock { state in
            let now = Date()
            if !force, let last = state.lastDrawn, now.timeIntervalSince(last) < Self.interval { return }
            state.lastDrawn = now
            state.isShown = true
            let line = text.count > width ? String(text.prefix(width - 1)) + "…" : text
            FileHandle.standardError.write(Data("\r\u{1B}[K\(Echo.line(line))".utf8))
        }
    }

    /// Erases the line, leaving the cursor at the start of an empty line.
    func clear() {
        state.withLock { state in
            guard state.isShown else { return }
            state.isShown = false
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }
}
