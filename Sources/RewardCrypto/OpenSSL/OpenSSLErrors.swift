// The OpenSSL backend: where the platform has no CryptoKit (Linux).
#if !canImport(CryptoKit) && canImport(COpenSSLCrypto)
  import COpenSSLCrypto

  /// OpenSSL's per-thread error queue.
  enum OpenSSLErrors {
    /// Empties the calling thread's error queue and returns its first (oldest) reason, if any.
    static func drain() -> String? {
      var first: String?
      while true {
        let code = ERR_get_error()
        if code == 0 { break }
        if first == nil {
          var buffer = [CChar](repeating: 0, count: 256)
          ERR_error_string_n(code, &buffer, buffer.count)
          first = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
      }
      return first
    }

    /// Discards whatever an expected failure (a signature that does not verify) left on the queue,
    /// so it cannot leak into a later error message.
    static func clear() { ERR_clear_error() }
  }

  extension CryptoError {
    /// An error for a failed OpenSSL call, carrying OpenSSL's reason from the error queue.
    static func openSSL(_ message: String) -> CryptoError {
      CryptoError(message, openSSLReason: OpenSSLErrors.drain())
    }
  }
#endif
