import CLibFuzzer
import Foundation

/// The signature of `LLVMFuzzerTestOneInput`.
public typealias FuzzTestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Hands the process to libFuzzer's driver with this target's `LLVMFuzzerTestOneInput`; exits
/// with the driver's status. Each target's `@main` calls it.
public func runLibFuzzer(_ testOneInput: FuzzTestOneInput) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
