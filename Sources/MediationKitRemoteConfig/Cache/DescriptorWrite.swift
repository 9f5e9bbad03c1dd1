import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Which step of ``writeAllAndFlush(_:to:)`` failed, and the `errno` it failed with.
package struct DescriptorWriteFailure: Error, Sendable {
  package enum Step: Sendable {
    /// `write(2)` failed (other than interrupted by a signal, which is retried).
    case write
    /// `fsync(2)` failed.
    case flush
  }
  package var step: Step
  package var code: Int32
}

/// Writes all of `data` to `descriptor` (retrying a write a signal interrupted, continuing after a
/// short one) and then flushes it to storage with `fsync`. Shared by the configuration cache and the
/// CLI's output files; the descriptor stays open either way.
package func writeAllAndFlush(_ data: Data, to descriptor: Int32) throws(DescriptorWriteFailure) {
  var failure: DescriptorWriteFailure?
  data.withUnsafeBytes { buffer in
    guard let base = buffer.baseAddress else { return }
    var offset = 0
    while offset < buffer.count {
      let written = systemWrite(descriptor, base + offset, buffer.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        failure = DescriptorWriteFailure(step: .write, code: errno)
        return
      }
      offset += written
    }
  }
  if let failure { throw failure }
  guard fsync(descriptor) == 0 else { throw DescriptorWriteFailure(step: .flush, code: errno) }
}

/// POSIX `write(2)` (a caller's own `write` member would hide the bare name).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Darwin)
    Darwin.write(descriptor, bytes, count)
  #elseif canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
  #else
    Musl.write(descriptor, bytes, count)
  #endif
}
