// The OpenSSL backend: where the platform has no CryptoKit (Linux).
#if !canImport(CryptoKit) && canImport(COpenSSLCrypto)
  import COpenSSLCrypto

  /// DER in and out of OpenSSL's `d2i_*` and `i2d_*` functions, for keys and signatures alike.
  enum OpenSSLDER {
    /// What `decode` (a `d2i_*` function given the cursor and the length) reads from the whole of
    /// `der`: nil when it reads nothing, or when bytes are left after the structure (those are not
    /// part of a key or signature either; `free` then frees what it read).
    static func decodeWhole(
      _ der: [UInt8], _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?,
      free: (OpaquePointer) -> Void
    ) -> OpaquePointer? {
      der.withUnsafeBufferPointer { buffer in
        var cursor = buffer.baseAddress
        guard let decoded = decode(&cursor, buffer.count) else { return nil }
        guard let start = buffer.baseAddress, cursor == start + buffer.count else {
          free(decoded)
          return nil
        }
        return decoded
      }
    }

    /// What `write` (an `i2d_*` function given the output cursor) writes: sized with a nil cursor
    /// first, then written; nil when either call fails.
    static func encode(_ write: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
      let length = write(nil)
      guard length > 0 else { return nil }
      var bytes = [UInt8](repeating: 0, count: Int(length))
      let written = bytes.withUnsafeMutableBufferPointer { buffer in
        var cursor = buffer.baseAddress
        return write(&cursor)
      }
      guard written == length else { return nil }
      return bytes
    }
  }
#endif
