import Foundation
import RewardCallbacks
import RewardCrypto
import Testing

/// The `openssl` command line, an implementation independent of this library's calls into
/// libcrypto (its own argument parsing, PEM handling and signature encoding).
enum OpenSSLTool {
  /// The `openssl` executable on `PATH`, if there is one.
  static let path: String? = {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/openssl" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  static var isAvailable: Bool { path != nil }

  struct Failure: Error, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let standardError: String
    var description: String {
      "openssl \(arguments.joined(separator: " ")) exited \(status): \(standardError)"
    }
  }

  /// Runs `openssl arguments`, feeding `input` on standard input; returns standard output, or throws
  /// with standard error when the exit status is not 0. Waits for the child to exit (no timer).
  @discardableResult
  static func run(_ arguments: [String], input: Data = Data(), in directory: URL) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path!)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let standardInput = Pipe()
    let standardOutput = Pipe()
    let standardError = Pipe()
    process.standardInput = standardInput
    process.standardOutput = standardOutput
    process.standardError = standardError
    try process.run()
    standardInput.fileHandleForWriting.write(input)
    try standardInput.fileHandleForWriting.close()
    let output = standardOutput.fileHandleForReading.readDataToEndOfFile()
    let errors = standardError.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw Failure(
        arguments: arguments, status: process.terminationStatus,
        standardError: String(decoding: errors, as: UTF8.self))
    }
    return output
  }

  /// The hex digest `openssl dgst -<algorithm>` prints for `text` on standard input.
  static func digest(_ algorithm: String, of text: String, in directory: URL) throws -> String {
    let output = String(
      decoding: try run(["dgst", "-\(algorithm)"], input: Data(text.utf8), in: directory), as: UTF8.self)
    // "SHA1(stdin)= 9c1185a5…" (the label varies between versions; the digest follows "= ").
    return String(output.components(separatedBy: "= ").last!.trimmingCharacters(in: .whitespacesAndNewlines))
  }
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "reward-callbacks-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

@Suite(
  "Callbacks against the openssl command line",
  .enabled(
    if: OpenSSLTool.isAvailable,
    "the openssl command line is not installed (apt-get install openssl); these interop tests need it"))
struct OpenSSLCommandLineTests {
  /// A key pair made by `openssl ecparam -genkey` (SEC1 PEM) and its `openssl pkey -pubout` PEM.
  struct ToolKey {
    let directory: URL
    var privatePEM: String {
      try! String(contentsOf: directory.appendingPathComponent("key.pem"), encoding: .utf8)
    }
    var publicPEM: String {
      try! String(contentsOf: directory.appendingPathComponent("pub.pem"), encoding: .utf8)
    }

    init() throws {
      directory = try temporaryDirectory()
      try OpenSSLTool.run(
        ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "key.pem"], in: directory)
      try OpenSSLTool.run(["pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"], in: directory)
    }

    /// `openssl dgst -sha256 -sign`: a DER signature over `content`.
    func sign(_ content: [UInt8]) throws -> [UInt8] {
      try Data(content).write(to: directory.appendingPathComponent("content.bin"))
      try OpenSSLTool.run(
        ["dgst", "-sha256", "-sign", "key.pem", "-out", "sig.der", "content.bin"], in: directory)
      return Array(try Data(contentsOf: directory.appendingPathComponent("sig.der")))
    }

    /// `openssl dgst -sha256 -verify`: whether `signature` verifies over `content`.
    func verify(_ signature: [UInt8], over content: [UInt8]) throws -> Bool {
      try Data(content).write(to: directory.appendingPathComponent("content.bin"))
      try Data(signature).write(to: directory.appendingPathComponent("sig.der"))
      do {
        let output = try OpenSSLTool.run(
          ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "content.bin"], in: directory)
        return String(decoding: output, as: UTF8.self).contains("Verified OK")
      } catch let failure as OpenSSLTool.Failure where failure.status == 1 {
        return false
      }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
  }

  @Test func callbackSignedByOpenSSLVerifies() throws {
    let tool = try ToolKey()
    defer { tool.remove() }
    // The query Google would send, and the decoded content it signs (custom data with %26 %3D %20
    // and non-ASCII text).
    let query =
      "ad_network=5450213213286189855&ad_unit=1234567890&custom_data=a%3Db%20c%20d%20%C3%A9%E2%9C%93"
      + "&reward_amount=1&reward_item=Reward&timestamp=1507770365237&transaction_id=tx-openssl&user_id=1234567"
    let content = try #require(PercentEncoding.decode(query))
    #expect(content.contains("custom_data=a=b c d é✓&"))
    let signature = try tool.sign(Array(content.utf8))
    let url = "https://publisher.example/ssv?\(query)&signature=\(Base64URL.encode(signature))&key_id=77"
    // Google's JSON, written from openssl's PEM.
    let pemJSON = String(decoding: try JSONEncoder().encode(tool.publicPEM), as: UTF8.self)
    let keys = try VerifierKeys(json: Data(#"{"keys":[{"keyId":77,"pem":\#(pemJSON)}]}"#.utf8))
    let verifier = GoogleSSVVerifier(keys: keys)
    let reward = try verifier.verify(url)
    #expect(reward.customData == "a=b c d é✓")
    #expect(reward.transactionID == "tx-openssl")
    let tampered = url.replacingFirst("reward_amount=1", with: "reward_amount=2")
    #expect(
      rejection { () throws(CallbackRejection) in try verifier.verify(tampered) }?.reason == .invalidSignature
    )
  }

  @Test func signatureMadeHereVerifiesWithOpenSSL() throws {
    let tool = try ToolKey()
    defer { tool.remove() }
    let key = try P256SigningKey(pemRepresentation: tool.privatePEM)  // SEC1, as openssl wrote it
    #expect(key.publicKey.pemRepresentation == tool.publicPEM)
    let callback = Fixture.callback
    let query = try callback.signedQuery(with: key, keyID: 5)
    let signatureText = try #require(
      query.components(separatedBy: "&signature=").last?.components(separatedBy: "&key_id=").first)
    let signature = try #require(Base64URL.decode(signatureText))
    let content = try #require(PercentEncoding.decode(callback.unsignedQuery))
    #expect(try tool.verify(signature, over: Array(content.utf8)))
    #expect(try !tool.verify(signature, over: Array((content + "x").utf8)))
    // The PKCS#8 PEM written here reads back in openssl.
    try key.pemRepresentation.write(
      to: tool.directory.appendingPathComponent("ours.pem"), atomically: true, encoding: .utf8)
    let publicFromOurs = try OpenSSLTool.run(["pkey", "-in", "ours.pem", "-pubout"], in: tool.directory)
    #expect(String(decoding: publicFromOurs, as: UTF8.self) == tool.publicPEM)
  }

  @Test func publicKeyDERMatchesOpenSSLs() throws {
    let tool = try ToolKey()
    defer { tool.remove() }
    let der = try OpenSSLTool.run(
      ["pkey", "-pubin", "-in", "pub.pem", "-outform", "DER"], in: tool.directory)
    #expect(try P256PublicKey(pemRepresentation: tool.publicPEM).derRepresentation == Array(der))
  }

  @Test func eventTokensMatchOpenSSLDigests() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let template = MaxCallbackTemplate.standard
    let values = Fixture.maxValues
    let url = template.expand(values, eventKey: Fixture.eventKey)
    let token = try OpenSSLTool.digest("sha1", of: Fixture.eventID + Fixture.eventKey, in: directory)
    #expect(token.count == 40)
    #expect(url.contains("&token=\(token)&"))
    // EVENT_TOKEN_ALL: the template's macros but the tokens, by name, decoded, then the key.
    // AD_UNIT_ID, AMOUNT, CURRENCY, CUSTOM_DATA, EVENT_ID, IMPRESSION_TIMESTAMP, NETWORK_NAME,
    // PLACEMENT, USER_ID.
    let byName =
      "9ad0816ac071552a" + "100" + "coins" + "a&b=c d" + Fixture.eventID + "1700000000"
      + "APPLOVIN_BIDDING" + "level_complete" + "user-42"
    let tokenAll = try OpenSSLTool.digest("sha256", of: byName + Fixture.eventKey, in: directory)
    #expect(url.contains("&token_all=\(tokenAll)&"))
    #expect(try MaxCallbackVerifier(eventKey: Fixture.eventKey).verify(url).transactionID == Fixture.eventID)
  }
}
