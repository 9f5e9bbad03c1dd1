import Dispatch
import Foundation
import RewardCrypto
import Testing

/// Fixtures written by the `openssl` command line (see each comment).
enum KeyFixtures {
  /// `openssl ec` of the RFC 6979 A.2.5 key: SEC1, the format `openssl ecparam -genkey` writes.
  static let rfcKeySEC1 = """
    -----BEGIN EC PRIVATE KEY-----
    MHcCAQEEIMmvqdhFunUWa1whV2ex1pNOUMPbNuibEnuKYisSD2choAoGCCqGSM49
    AwEHoUQDQgAEYP7UuiVanTHJYet0xjVtaMBJuJI7Yfps5mliLmDyn7Z5A/4QCLi8
    maQa6elWKLxk8vGyDC1+n1F3o8KU1EYimQ==
    -----END EC PRIVATE KEY-----
    """
  /// `openssl pkey` of the same key: PKCS#8, without the optional public key.
  static let rfcKeyPKCS8 = """
    -----BEGIN PRIVATE KEY-----
    MEECAQAwEwYHKoZIzj0CAQYIKoZIzj0DAQcEJzAlAgEBBCDJr6nYRbp1FmtcIVdn
    sdaTTlDD2zbomxJ7imIrEg9nIQ==
    -----END PRIVATE KEY-----
    """
  /// `openssl pkey -pubout` of the same key.
  static let rfcPublicKey = """
    -----BEGIN PUBLIC KEY-----
    MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEYP7UuiVanTHJYet0xjVtaMBJuJI7
    Yfps5mliLmDyn7Z5A/4QCLi8maQa6elWKLxk8vGyDC1+n1F3o8KU1EYimQ==
    -----END PUBLIC KEY-----

    """
  /// A secp256k1 public key (`openssl ecparam -name secp256k1 -genkey`, then `pkey -pubout`).
  static let secp256k1PublicKey = """
    -----BEGIN PUBLIC KEY-----
    MFYwEAYHKoZIzj0CAQYFK4EEAAoDQgAEI2QhsnZIEhQJxtMkwGzXphC+QD84wyCB
    QaL0cpqPMHn7UxDKcQSP23uQzzaK6PYAwr+P8yun3SH+ARFWWZzQ4Q==
    -----END PUBLIC KEY-----
    """
  /// An Ed25519 public key (`openssl genpkey -algorithm ed25519`, then `pkey -pubout`).
  static let ed25519PublicKey = """
    -----BEGIN PUBLIC KEY-----
    MCowBQYDK2VwAyEABqJvczIRkNCnPYS488w6nvsAXg0BqOXTi1IfRmc6YPs=
    -----END PUBLIC KEY-----
    """
  /// The RFC key, encrypted (`openssl pkey -aes128 -passout pass:secret`).
  static let encryptedKey = """
    -----BEGIN ENCRYPTED PRIVATE KEY-----
    MIGrMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjmhVZw/qHbAwICCAAw
    DAYIKoZIhvcNAgkFADAdBglghkgBZQMEAQIEEKCaLHTzCxYWA6GTmIE0jjMEUCaR
    mjXsL+dnC4y/s4NU/Uu/ws7VG72XAy1g4OSC8wIAT6SnZ9BFFLSv+lEmQGqg1yJs
    4atLmOhiLA26FU7zi5G4dj8aXfc0ES1Cq6tnWUqD
    -----END ENCRYPTED PRIVATE KEY-----
    """
}

@Suite("P-256 keys: import, export, sign, verify")
struct KeyTests {
  @Test func generatedKeysSignAndVerify() throws {
    let key = P256SigningKey()
    let message = Array("ad_network=5450213213286189855&reward_amount=1".utf8)
    let signature = try key.signature(for: message)
    #expect(key.publicKey.isValidSignature(signature, for: message))
    #expect(!key.publicKey.isValidSignature(signature, for: message + [0x20]))
    // Fresh keys differ; ECDSA nonces are random, so signatures differ too.
    #expect(P256SigningKey().publicKey != key.publicKey)
    #expect(try key.signature(for: message) != signature)
  }

  @Test func sec1AndPKCS8PEMImportToTheSameKey() throws {
    let sec1 = try P256SigningKey(pemRepresentation: KeyFixtures.rfcKeySEC1)
    let pkcs8 = try P256SigningKey(pemRepresentation: KeyFixtures.rfcKeyPKCS8)
    #expect(sec1.publicKey == pkcs8.publicKey)
    #expect(sec1.publicKey.x963Representation == RFC6979P256.point)
    #expect(sec1.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
    #expect(sec1.publicKey.pemRepresentation == KeyFixtures.rfcPublicKey)
  }

  @Test func exportsRoundTrip() throws {
    let key = P256SigningKey()
    let fromPEM = try P256SigningKey(pemRepresentation: key.pemRepresentation)
    let fromDER = try P256SigningKey(derRepresentation: key.derRepresentation)
    #expect(try fromPEM.rawScalar() == key.rawScalar())
    #expect(try fromDER.rawScalar() == key.rawScalar())
    let publicKey = key.publicKey
    #expect(try P256PublicKey(pemRepresentation: publicKey.pemRepresentation) == publicKey)
    #expect(try P256PublicKey(derRepresentation: publicKey.derRepresentation) == publicKey)
    #expect(try P256PublicKey(x963Representation: publicKey.x963Representation) == publicKey)
    #expect(publicKey.derRepresentation.count == 91)
  }

  @Test func rawScalarIsDeterministic() throws {
    let scalar = [UInt8](repeating: 0, count: 31) + [7]
    #expect(try P256SigningKey(rawScalar: scalar).publicKey == P256SigningKey(rawScalar: scalar).publicKey)
  }

  @Test func rawScalarOutOfRangeIsRefused() throws {
    let order = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
    let cases: [[UInt8]] = [
      [UInt8](repeating: 0, count: 32), Hex.decode(order)!, [UInt8](repeating: 0xff, count: 32),
      [UInt8](repeating: 1, count: 31), [UInt8](repeating: 1, count: 33),
    ]
    for scalar in cases {
      #expect(throws: CryptoError.self, "\(Hex.encode(scalar))") { try P256SigningKey(rawScalar: scalar) }
    }
    let error = try #require(throws: CryptoError.self) { try P256SigningKey(rawScalar: [1, 2, 3]) }
    #expect(error.description.contains("32 bytes"))
  }

  @Test func keysOnOtherCurvesOrOfOtherTypesAreRefused() throws {
    let k1 = try #require(throws: CryptoError.self) {
      try P256PublicKey(pemRepresentation: KeyFixtures.secp256k1PublicKey)
    }
    #expect(k1.description.contains("secp256k1"))
    #expect(k1.description.contains("expected P-256"))
    let ed = try #require(throws: CryptoError.self) {
      try P256PublicKey(pemRepresentation: KeyFixtures.ed25519PublicKey)
    }
    #expect(ed.description.contains("ED25519"))
  }

  @Test func aPrivateKeyWithBytesAfterItIsRefusedOnEveryBackend() throws {
    let key = try P256SigningKey(pemRepresentation: KeyFixtures.rfcKeyPKCS8)
    #expect(try P256SigningKey(derRepresentation: key.derRepresentation).publicKey == key.publicKey)
    #expect(throws: CryptoError.self) {
      try P256SigningKey(derRepresentation: key.derRepresentation + [0x00])
    }
    #expect(throws: CryptoError.self) {
      try P256PublicKey(derRepresentation: key.publicKey.derRepresentation + [0x00])
    }
  }

  @Test func malformedKeysAreRefusedWithAReason() throws {
    #expect(throws: CryptoError.self) { try P256PublicKey(derRepresentation: []) }
    #expect(throws: CryptoError.self) { try P256PublicKey(derRepresentation: [0x30, 0x59, 0x30]) }
    #expect(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: "MFkw") }
    let truncated = KeyFixtures.rfcPublicKey.replacingOccurrences(of: "Yfps5", with: "")
    let error = try #require(throws: CryptoError.self) { try P256PublicKey(pemRepresentation: truncated) }
    #if canImport(CryptoKit)
      #expect(error.openSSLReason == nil)  // no OpenSSL where CryptoKit does the work
    #else
      #expect(error.openSSLReason != nil)
    #endif
    // Trailing bytes after the DER structure.
    let der = try RFC6979P256.publicKey().derRepresentation
    #expect(throws: CryptoError.self) { try P256PublicKey(derRepresentation: der + [0]) }
    // A point that is not on the curve.
    var offCurve = RFC6979P256.point
    offCurve[64] ^= 0x01
    #expect(throws: CryptoError.self) { try P256PublicKey(x963Representation: offCurve) }
    #expect(throws: CryptoError.self) { try P256PublicKey(x963Representation: Array(offCurve.prefix(33))) }
  }

  @Test func encryptedOrMissingPrivateKeysAreRefused() throws {
    let encrypted = try #require(throws: CryptoError.self) {
      try P256SigningKey(pemRepresentation: KeyFixtures.encryptedKey)
    }
    #expect(encrypted.description.contains("encrypted"))
    #expect(throws: CryptoError.self) { try P256SigningKey(pemRepresentation: KeyFixtures.rfcPublicKey) }
    #expect(throws: CryptoError.self) { try P256SigningKey(derRepresentation: [0x30, 0x00]) }
  }

  @Test func keysAreUsableFromManyThreadsAtOnce() async throws {
    let key = P256SigningKey()
    let publicKey = key.publicKey
    let results = try await withThrowingTaskGroup(of: Bool.self) { group in
      for index in 0..<32 {
        group.addTask {
          let message = Array("message \(index)".utf8)
          let signature = try key.signature(for: message)
          return publicKey.isValidSignature(signature, for: message)
            && !publicKey.isValidSignature(signature, for: message + [1])
        }
      }
      return try await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(results.count == 32 && results.allSatisfy { $0 })
  }
}

@Suite("P256PublicKey: one key verifying from many threads")
struct P256PublicKeySharingTests {
  /// The decoded OpenSSL keys are reused, one verification at a time each: many threads
  /// verifying with one key (and its copies) all get the right answers.
  @Test func oneKeyVerifiesFromManyThreadsAtOnce() throws {
    let signer = try P256SigningKey(rawScalar: [UInt8](repeating: 0x11, count: 32))
    let key = signer.publicKey
    let messages = (0..<64).map { Array("message \($0)".utf8) }
    let signatures = try messages.map { try signer.signature(for: $0) }
    let wrong = Tally()
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      let copy = key  // copies share the decoded keys
      for (index, message) in messages.enumerated() {
        let valid = copy.isValidSignature(signatures[index], for: message)
        let forged = copy.isValidSignature(signatures[(index + 1) % messages.count], for: message)
        if !valid || forged { wrong.add() }
      }
    }
    #expect(wrong.count == 0)
  }

  @Test func keysAreEqualAndHashAlikeByTheirBytes() throws {
    let signer = try P256SigningKey(rawScalar: [UInt8](repeating: 0x11, count: 32))
    let reimported = try P256PublicKey(derRepresentation: signer.publicKey.derRepresentation)
    #expect(reimported == signer.publicKey)
    #expect(Set([reimported, signer.publicKey]).count == 1)
    let other = try P256SigningKey(rawScalar: [UInt8](repeating: 0x12, count: 32)).publicKey
    #expect(other != reimported)
  }
}

/// A count several threads add to.
private final class Tally: @unchecked Sendable {
  // @unchecked Sendable is safe: `value` is read and written only while `lock` is held.
  private let lock = NSLock()
  private var value = 0

  func add() {
    lock.lock()
    value += 1
    lock.unlock()
  }

  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return value
  }
}
