internal import Foundation

/// A value behind a lock, for the shared state of `Sendable` classes (coordinator, stores).
///
/// Strata uses this rather than `Synchronization.Mutex` so that the thread sanitizer can check
/// it: `Mutex` hands over contended locks inside the kernel (futex) in code TSan does not
/// instrument, so `swift test --sanitize=thread` reported races between accesses that the lock
/// did order. `NSLock` is a pthread mutex, which TSan understands.
///
/// `@unchecked Sendable` is sound because `value` is only reached through `withLock`, which holds
/// the lock for the whole access, and no reference to it escapes (`body` gets `inout` access).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. Never hold it across I/O of another
    /// component or an `await`.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` if the lock is free at once; nil when another thread holds it.
    package func withLockIfAvailable<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}
