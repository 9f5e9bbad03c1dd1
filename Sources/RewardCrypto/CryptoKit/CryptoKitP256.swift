// The CryptoKit backend: on Apple platforms, where the SDK has CryptoKit.
#if canImport(CryptoKit)
  import CryptoKit
  import Foundation

  /// P-256 keys and ECDSA through CryptoKit, with RewardCrypto's errors: what was wrong and what
  /// was expected, followed by CryptoKit's error.
  ///
  /// CryptoKit is asked only after the checks it does not explain in words (an empty input, a
  /// PEM block missing or encrypted, trailing bytes after the DER, a scalar out of range), so those
  /// fail with the same messages as on the OpenSSL backend.
  enum CryptoKitP256 {
    static func publicKey(der: [UInt8]) throws(CryptoError) -> P256.Signing.PublicKey {
      guard !der.isEmpty else { throw CryptoError("empty public key; expected a DER SubjectPublicKeyInfo") }
      guard DER.isOneElement(der) else {
        throw CryptoError(
          "not a DER SubjectPublicKeyInfo (\(der.count) bytes, not one DER element); expected an X.509 public key"
        )
      }
      if let other = DER.otherKeyType(der) {
        throw CryptoError("the public key is \(other); expected P-256 (prime256v1)")
      }
      do {
        return try P256.Signing.PublicKey(derRepresentation: der)
      } catch {
        throw .cryptoKit(
          "not a DER SubjectPublicKeyInfo of a P-256 key (\(der.count) bytes); expected P-256 (prime256v1)",
          error)
      }
    }

    static func publicKey(pem: String) throws(CryptoError) -> P256.Signing.PublicKey {
      guard let der = PEMBlock.decode(pem, type: "PUBLIC KEY") else {
        throw CryptoError("no '-----BEGIN PUBLIC KEY-----' block; expected a PEM SubjectPublicKeyInfo")
      }
      guard let der else { throw CryptoError("the PEM PUBLIC KEY block is not base64; expected base64 DER") }
      return try publicKey(der: der)
    }

    static func publicKey(x963 point: [UInt8]) throws(CryptoError) -> P256.Signing.PublicKey {
      guard point.count == 65, point.first == 0x04 else {
        throw CryptoError(
          "a P-256 public point is 65 bytes starting with 04 (uncompressed X ‖ Y); got \(point.count) bytes"
            + (point.first.map { String(format: " starting with %02x", $0) } ?? ""))
      }
      do {
        return try P256.Signing.PublicKey(x963Representation: point)
      } catch {
        throw .cryptoKit("the point is not on P-256; expected an uncompressed point on the curve", error)
      }
    }

    /// The group order n of P-256, big-endian.
    static let order: [UInt8] = [
      0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
    ]

    static func privateKey(scalar: [UInt8]) throws(CryptoError) -> P256.Signing.PrivateKey {
      guard scalar.count == 32 else {
        throw CryptoError("a P-256 private scalar is 32 bytes, big-endian; got \(scalar.count) bytes")
      }
      guard scalar.contains(where: { $0 != 0 }), scalar.lexicographicallyPrecedes(order) else {
        throw CryptoError("the private scalar is 0 or not below the P-256 group order; expected 1 ≤ d < n")
      }
      do {
        return try P256.Signing.PrivateKey(rawRepresentation: scalar)
      } catch {
        throw .cryptoKit("CryptoKit refused the private scalar; expected 1 ≤ d < n", error)
      }
    }

    static func privateKey(der: [UInt8]) throws(CryptoError) -> P256.Signing.PrivateKey {
      guard !der.isEmpty else { throw CryptoError("empty private key; expected PKCS#8 or SEC1 DER") }
      do {
        guard DER.isOneElement(der) else { throw DER.NotOneElement() }
        return try P256.Signing.PrivateKey(derRepresentation: der)
      } catch {
        throw .cryptoKit(
          "not a DER private key on P-256 (\(der.count) bytes); expected PKCS#8 or SEC1 (EC PRIVATE KEY)",
          error)
      }
    }

    static func privateKey(pem: String) throws(CryptoError) -> P256.Signing.PrivateKey {
      if pem.contains("ENCRYPTED") {
        throw CryptoError("the PEM private key is encrypted; expected an unencrypted PKCS#8 or SEC1 key")
      }
      guard
        let der = PEMBlock.decode(pem, type: "PRIVATE KEY") ?? PEMBlock.decode(pem, type: "EC PRIVATE KEY")
      else {
        throw CryptoError(
          "no '-----BEGIN PRIVATE KEY-----' or '-----BEGIN EC PRIVATE KEY-----' block; expected a PEM private key"
        )
      }
      guard let der else { throw CryptoError("the PEM private key block is not base64; expected base64 DER") }
      return try privateKey(der: der)
    }

    static func sign(_ message: [UInt8], with der: [UInt8]) throws(CryptoError) -> [UInt8] {
      let key = try privateKey(der: der)
      do {
        return Array(try key.signature(for: message).derRepresentation)
      } catch {
        throw .cryptoKit("CryptoKit could not sign", error)
      }
    }

    /// Whether `der` is a canonical DER signature by the key at `point` over SHA-256 of `message`
    /// (BER that is not DER is refused, as OpenSSL refuses it).
    static func isValid(_ der: [UInt8], for message: [UInt8], point: [UInt8]) -> Bool {
      guard !der.isEmpty, let key = try? P256.Signing.PublicKey(x963Representation: point),
        let signature = try? P256.Signing.ECDSASignature(derRepresentation: der),
        Array(signature.derRepresentation) == der
      else { return false }
      return key.isValidSignature(signature, for: message)
    }

    static func rawSignature(der: [UInt8]) throws(CryptoError) -> [UInt8] {
      let signature: P256.Signing.ECDSASignature
      do {
        signature = try P256.Signing.ECDSASignature(derRepresentation: der)
      } catch {
        throw .cryptoKit(
          "not a DER ECDSA signature on P-256 (\(der.count) bytes); expected SEQUENCE { r INTEGER, s INTEGER }, "
            + "each below 2^256", error)
      }
      let raw = Array(signature.rawRepresentation)
      guard raw.count == 64 else {
        throw CryptoError("a signature component is longer than 32 bytes; expected P-256 r and s")
      }
      return raw
    }

    static func derSignature(raw: [UInt8]) throws(CryptoError) -> [UInt8] {
      do {
        return Array(try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation)
      } catch {
        throw .cryptoKit("CryptoKit could not encode the signature as DER", error)
      }
    }
  }

  extension CryptoError {
    /// An error for a failed CryptoKit call: `message`, then CryptoKit's error.
    static func cryptoKit(_ message: String, _ error: any Error) -> CryptoError {
      CryptoError("\(message) (CryptoKit: \(error))")
    }
  }

  /// The little DER reading the CryptoKit backend does itself.
  enum DER {
    struct NotOneElement: Error, CustomStringConvertible {
      var description: String { "bytes after the DER element" }
    }

    /// Whether `bytes` is exactly one DER element (tag, definite length, contents).
    static func isOneElement(_ bytes: [UInt8]) -> Bool {
      guard bytes.count >= 2 else { return false }
      let first = Int(bytes[1])
      guard first >= 0x80 else { return 2 + first == bytes.count }
      let count = first & 0x7f
      guard (1...4).contains(count), bytes.count >= 2 + count else { return false }
      let length = bytes[2..<(2 + count)].reduce(0) { $0 << 8 | Int($1) }
      return 2 + count + length == bytes.count
    }

    /// The key type or curve a SubjectPublicKeyInfo names when it is not P-256 ("a ED25519 key",
    /// "on curve secp256k1"), from the object identifiers in its algorithm; nil for P-256 or one
    /// not recognized (CryptoKit then judges it).
    static func otherKeyType(_ der: [UInt8]) -> String? {
      // The algorithm identifier sits in the first few dozen bytes; an OID elsewhere (inside the
      // key's bits) is not looked for.
      let head = Array(der.prefix(40))
      let identifiers: [(name: String, oid: [UInt8])] = [
        ("on curve secp256k1", [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a]),
        ("on curve secp384r1", [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22]),
        ("on curve secp521r1", [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23]),
        ("a ED25519 key", [0x06, 0x03, 0x2b, 0x65, 0x70]),
        ("a ED448 key", [0x06, 0x03, 0x2b, 0x65, 0x71]),
        ("a X25519 key", [0x06, 0x03, 0x2b, 0x65, 0x6e]),
        ("a RSA key", [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]),
      ]
      for (name, oid) in identifiers where contains(head, oid) { return name }
      return nil
    }

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
      guard bytes.count >= needle.count else { return false }
      return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }
  }

  /// A PEM block inside text (text around it is ignored, as OpenSSL ignores it).
  enum PEMBlock {
    /// nil when there is no `-----BEGIN type-----` … `-----END type-----` block; `.some(nil)` when
    /// its body is not base64.
    static func decode(_ text: String, type: String) -> [UInt8]?? {
      guard let begin = text.range(of: "-----BEGIN \(type)-----"),
        let end = text.range(of: "-----END \(type)-----", range: begin.upperBound..<text.endIndex)
      else { return nil }
      let body = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
      return .some(Data(base64Encoded: String(body)).map { Array($0) })
    }
  }
#endif
