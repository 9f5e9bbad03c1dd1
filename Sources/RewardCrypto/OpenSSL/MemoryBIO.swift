// The OpenSSL backend: where the platform has no CryptoKit (Linux).
#if !canImport(CryptoKit) && canImport(COpenSSLCrypto)
  import COpenSSLCrypto

  /// OpenSSL memory BIOs: bytes in for the PEM readers, bytes out of the PEM and DER writers.
  enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes`.
    static func reading<Result>(_ bytes: [UInt8], _ body: (OpaquePointer) -> Result) -> Result? {
      bytes.withUnsafeBytes { raw -> Result? in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
        defer { BIO_free(bio) }
        return body(bio)
      }
    }

    /// Runs `write` with an empty memory BIO and returns what it wrote, or nil when it returned
    /// anything but 1 (OpenSSL's success).
    static func written(_ write: (OpaquePointer) -> Int32) -> [UInt8]? {
      guard let bio = BIO_new(BIO_s_mem()) else { return nil }
      defer { BIO_free(bio) }
      guard write(bio) == 1 else { return nil }
      let pending = Int(BIO_ctrl_pending(bio))
      var bytes = [UInt8](repeating: 0, count: pending)
      let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(pending)) }
      guard read == Int32(pending) else { return nil }
      return bytes
    }
  }
#endif
