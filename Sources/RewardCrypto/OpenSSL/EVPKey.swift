// The OpenSSL backend: where the platform has no CryptoKit (Linux).
#if !canImport(CryptoKit) && canImport(COpenSSLCrypto)
  import COpenSSLCrypto

  /// An owned OpenSSL `EVP_PKEY`, freed when the object goes.
  ///
  /// Thread safety: an `EVPKey` is never used by two threads at once. The public key types store
  /// their keys as DER bytes (plain `Sendable` values); an operation decodes its own `EVPKey`, or
  /// borrows one `P256PublicKey` decoded earlier and no other thread holds, and creates its own
  /// `EVP_MD_CTX`. (OpenSSL 3 does allow concurrent read-only use of one `EVP_PKEY`; this design
  /// does not rely on it.)
  final class EVPKey {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    // MARK: Decoding

    /// Decodes a DER SubjectPublicKeyInfo and checks that it is a P-256 key.
    static func publicKey(der: [UInt8]) throws(CryptoError) -> EVPKey {
      guard !der.isEmpty else { throw CryptoError("empty public key; expected a DER SubjectPublicKeyInfo") }
      let decoded = OpenSSLDER.decodeWhole(der, { d2i_PUBKEY(nil, $0, $1) }, free: EVP_PKEY_free)
      return try p256(
        decoded, what: "public key",
        else: .openSSL("not a DER SubjectPublicKeyInfo (\(der.count) bytes); expected an X.509 public key"))
    }

    /// Decodes a PEM `PUBLIC KEY` block and checks that it is a P-256 key.
    static func publicKey(pem: String) throws(CryptoError) -> EVPKey {
      guard pem.contains("-----BEGIN PUBLIC KEY-----") else {
        throw CryptoError("no '-----BEGIN PUBLIC KEY-----' block; expected a PEM SubjectPublicKeyInfo")
      }
      let decoded = MemoryBIO.reading(Array(pem.utf8)) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
      return try p256(
        decoded ?? nil, what: "public key",
        else: .openSSL("the PEM PUBLIC KEY block does not decode to a public key"))
    }

    /// Decodes a DER private key, PKCS#8 `PrivateKeyInfo` or SEC1 `ECPrivateKey`, and checks that it
    /// is a P-256 key.
    static func privateKey(der: [UInt8]) throws(CryptoError) -> EVPKey {
      guard !der.isEmpty else { throw CryptoError("empty private key; expected PKCS#8 or SEC1 DER") }
      // The whole input, as the CryptoKit branch requires: bytes after the key are refused.
      let decoded = OpenSSLDER.decodeWhole(der, { d2i_AutoPrivateKey(nil, $0, $1) }, free: EVP_PKEY_free)
      return try p256(
        decoded, what: "private key",
        else: .openSSL(
          "not a DER private key (\(der.count) bytes), or bytes after it; expected PKCS#8 or SEC1 (EC PRIVATE KEY)"
        ))
    }

    /// Decodes a PEM `PRIVATE KEY` (PKCS#8) or `EC PRIVATE KEY` (SEC1) block and checks that it is a
    /// P-256 key. Encrypted keys are refused (no passphrase prompt).
    static func privateKey(pem: String) throws(CryptoError) -> EVPKey {
      if pem.contains("ENCRYPTED") {
        throw CryptoError("the PEM private key is encrypted; expected an unencrypted PKCS#8 or SEC1 key")
      }
      guard pem.contains("-----BEGIN PRIVATE KEY-----") || pem.contains("-----BEGIN EC PRIVATE KEY-----")
      else {
        throw CryptoError(
          "no '-----BEGIN PRIVATE KEY-----' or '-----BEGIN EC PRIVATE KEY-----' block; expected a PEM private key"
        )
      }
      let decoded = MemoryBIO.reading(Array(pem.utf8)) { bio in
        // A password callback that refuses, so OpenSSL never prompts on the terminal.
        PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
      }
      return try p256(
        decoded ?? nil, what: "private key",
        else: .openSSL("the PEM private key block does not decode to a private key"))
    }

    /// The key a decoder returned, owned, once it is checked to be a P-256 key; `failure` (made
    /// only then, so it carries the decoder's reason) when the decoder returned none.
    private static func p256(
      _ decoded: OpaquePointer?, what: String, else failure: @autoclosure () -> CryptoError
    ) throws(CryptoError) -> EVPKey {
      guard let decoded else { throw failure() }
      let key = EVPKey(decoded)
      try key.requireP256(what: what)
      return key
    }

    // MARK: Checks

    /// Throws unless the key is an EC key on P-256.
    func requireP256(what: String) throws(CryptoError) {
      let type = EVP_PKEY_get_base_id(pointer)
      guard type == EVP_PKEY_EC else {
        let name = EVP_PKEY_get0_type_name(pointer).map { String(cString: $0) } ?? "type \(type)"
        OpenSSLErrors.clear()
        throw CryptoError("the \(what) is a \(name) key; expected an EC key on P-256 (prime256v1)")
      }
      var buffer = [CChar](repeating: 0, count: 80)
      var length = 0
      let named = EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1
      let group =
        named ? String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
      OpenSSLErrors.clear()
      guard group == "prime256v1" || group == "P-256" else {
        throw CryptoError(
          "the \(what) is on curve \(group ?? "with explicit, unnamed parameters"); expected P-256 (prime256v1)"
        )
      }
    }

    // MARK: Encoding

    /// The public half as DER SubjectPublicKeyInfo.
    func publicKeyDER() throws(CryptoError) -> [UInt8] {
      guard let bytes = OpenSSLDER.encode({ i2d_PUBKEY(pointer, $0) }) else {
        throw .openSSL("could not encode the public key as DER")
      }
      return bytes
    }

    /// The public half as a PEM `PUBLIC KEY` block.
    func publicKeyPEM() throws(CryptoError) -> String {
      guard let bytes = MemoryBIO.written({ bio in PEM_write_bio_PUBKEY(bio, pointer) }) else {
        throw .openSSL("could not encode the public key as PEM")
      }
      return String(decoding: bytes, as: UTF8.self)
    }

    /// The private key as unencrypted PKCS#8 DER (`PrivateKeyInfo`).
    func privateKeyPKCS8DER() throws(CryptoError) -> [UInt8] {
      guard
        let bytes = MemoryBIO.written({ bio in i2d_PKCS8PrivateKey_bio(bio, pointer, nil, nil, 0, nil, nil) })
      else { throw .openSSL("could not encode the private key as PKCS#8 DER") }
      return bytes
    }

    /// The private key as an unencrypted PEM `PRIVATE KEY` (PKCS#8) block.
    func privateKeyPKCS8PEM() throws(CryptoError) -> String {
      guard
        let bytes = MemoryBIO.written({ bio in
          PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        })
      else { throw .openSSL("could not encode the private key as PKCS#8 PEM") }
      return String(decoding: bytes, as: UTF8.self)
    }

    /// The uncompressed public point, `04 ‖ X ‖ Y` (65 bytes).
    func publicPoint() throws(CryptoError) -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: 65)
      var length = 0
      guard
        EVP_PKEY_get_octet_string_param(pointer, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &bytes, 65, &length)
          == 1,
        length == 65, bytes[0] == 0x04
      else { throw .openSSL("could not read the public point of the key") }
      return bytes
    }

    /// The private scalar, big-endian, 32 bytes.
    func privateScalar() throws(CryptoError) -> [UInt8] {
      var scalar: OpaquePointer?
      guard EVP_PKEY_get_bn_param(pointer, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1, let scalar else {
        throw .openSSL("could not read the private scalar of the key")
      }
      defer { BN_clear_free(scalar) }
      var bytes = [UInt8](repeating: 0, count: 32)
      guard BN_bn2binpad(scalar, &bytes, 32) == 32 else {
        throw .openSSL("the private scalar does not fit in 32 bytes")
      }
      return bytes
    }
  }
#endif
