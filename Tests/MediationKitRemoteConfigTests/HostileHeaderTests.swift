import Foundation
import MediationKit
import MediationKitTesting
import Testing

@testable import MediationKitRemoteConfig

/// Response headers a careless or hostile server may send: none traps, each is read as RFC 9111
/// says or ignored.
@Suite("RemoteConfigSource: hostile headers")
struct HostileHeaderTests {
  static let limit = Duration.seconds(maxAgeLimit)

  @Test(
    arguments: [
      ("", nil),
      ("=", nil),
      ("==", nil),
      (",,,", nil),
      (" , = , ", nil),
      ("max-age", nil),
      ("max-age=", nil),
      ("max-age= ", nil),
      ("max-age=-1", nil),
      ("max-age=+5", nil),
      ("max-age=1e30", nil),
      ("max-age=1.5", nil),
      ("max-age=0x10", nil),
      ("max-age=\"\"", nil),
      ("max-age=\"", nil),
      ("max-age=\u{0661}\u{0662}", nil),  // Arabic-Indic digits are not delta-seconds
      ("max-âge=60", nil),
      ("=max-age=60", nil),
      ("max-age=60", Duration.seconds(60)),
      ("MAX-AGE = 60", Duration.seconds(60)),
      ("public, max-age=60, must-revalidate", Duration.seconds(60)),
      ("max-age=\"60\"", Duration.seconds(60)),
      ("max-age=0", Duration.zero),
      ("max-age=99999999999999999999", HostileHeaderTests.limit),
      ("max-age=\(String(repeating: "9", count: 10_000))", HostileHeaderTests.limit),
      ("max-age=2147483647", Duration.seconds(2_147_483_647)),
      ("max-age=60, max-age=60", Duration.seconds(60)),
      ("max-age=60, max-age=120", Duration.zero),  // contradictory: stale
      ("max-age=60, max-age=-1", Duration.seconds(60)),  // the invalid one is ignored
      ("max-age=60, no-cache", Duration.zero),
      ("no-store, max-age=60", Duration.zero),
      ("no-cache=\"Set-Cookie\"", Duration.zero),
    ] as [(String, Duration?)])
  func cacheControlIsParsedWithoutTrapping(header: String, expected: Duration?) {
    #expect(maxAge(cacheControl: header) == expected)
  }

  @Test func aTenKilobyteHeaderOfJunkIsIgnored() {
    let junk = (0..<1_200).map { "x\($0)=\"=,\"" }.joined(separator: ",")
    #expect(junk.utf8.count > 10_000)
    #expect(maxAge(cacheControl: junk) == nil)
    #expect(maxAge(cacheControl: junk + ", max-age=30") == .seconds(30))
    #expect(maxAge(cacheControl: String(repeating: "=", count: 10_240)) == nil)
    #expect(maxAge(cacheControl: String(repeating: "max-age=1,", count: 1_024)) == .seconds(1))
  }

  @Test func nonASCIIAndControlCharactersAreIgnored() {
    #expect(maxAge(cacheControl: "max-age=６０") == nil)  // full-width digits
    #expect(maxAge(cacheControl: "🙂=🙂, max-age=5") == .seconds(5))
    #expect(maxAge(cacheControl: "max-age=5\u{0}") == nil)
    #expect(maxAge(cacheControl: "\u{1b}]0;title\u{7}") == nil)
  }

  /// End to end: the header that trapped the source now leaves the default freshness.
  @Test(arguments: ["=", "max-age=", "max-age=-1", "max-age=1e30", "max-age=99999999999999999999"])
  func aHostileCacheControlFromTheServerIsSurvived(header: String) async throws {
    let receiver = try LoopbackHTTPReceiver(script: [
      ok(configJSON(ecpm: 7), etag: "\"v1\"", cacheControl: header),
      ok(configJSON(ecpm: 8), etag: "\"v2\""),
    ])
    let scheduler = VirtualScheduler()
    let remote = try source(receiver, scheduler: scheduler)
    let active = await remote.start()
    #expect(active.origin == .remote(etag: "\"v1\"", notModified: false))
    // Fresh for the default 15 minutes, or the 2^31-second cap: not refetched a second later.
    scheduler.advance(by: .seconds(1))
    #expect(await remote.refresh() == active)
    #expect(receiver.requests.count == 1)
  }

  /// A gzip member of `content` in stored (uncompressed) deflate blocks, its header carrying
  /// `comment` (FCOMMENT): longer on the wire than the content it decodes to.
  static func gzip(_ content: [UInt8], comment: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x1f, 0x8b, 8, 0x10, 0, 0, 0, 0, 0, 0xff] + comment + [0]
    var rest = content[...]
    repeat {
      let chunk = rest.prefix(65_535)
      rest = rest.dropFirst(chunk.count)
      out.append(rest.isEmpty ? 1 : 0)
      let length = UInt16(chunk.count)
      out += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8(~length >> 8)]
      out += chunk
    } while !rest.isEmpty
    var crc: UInt32 = 0xffff_ffff
    for byte in content {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
    }
    crc = ~crc
    let size = UInt32(truncatingIfNeeded: content.count)
    for value in [crc, size] { out += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    return out
  }

  @Test func aGzipBodyLongerOnTheWireThanDecodedIsNotTruncated() async throws {
    let content = Array(configJSON(ecpm: 7).utf8)
    let body = Self.gzip(content, comment: Array(repeating: UInt8(ascii: "c"), count: 20_000))
    #expect(body.count > content.count + 20_000)
    let receiver = try LoopbackHTTPReceiver(script: [
      .answer(status: 200, headers: ["Content-Encoding": "gzip", "ETag": "\"gz\""], body: body)
    ])
    let active = try await source(receiver).start()
    #expect(active.skipped.isEmpty, "\(active.skipped)")
    #expect(active.origin == .remote(etag: "\"gz\"", notModified: false))
    #expect(active.config == (try config(ecpm: 7)))
  }

  @Test func aRedirectToAnotherOriginIsRefused() async throws {
    let elsewhere = try LoopbackHTTPReceiver(script: [ok(configJSON(ecpm: 9))])
    let target = "\(elsewhere.baseURL)/mediation.json"
    let receiver = try LoopbackHTTPReceiver(script: [.answer(status: 302, headers: ["Location": target])])
    let active = try await source(receiver).start()
    #expect(active.origin == .bundled(name: "built-in"))
    #expect(active.skipped.first == SkippedConfig(source: .remote, reason: .redirectRefused(to: target)))
    #expect(elsewhere.requests.isEmpty)
  }

  @Test func aRedirectWithinTheOriginIsFollowed() async throws {
    let receiver = try LoopbackHTTPReceiver(script: [
      .answer(status: 302, headers: ["Location": "/moved.json"]), ok(configJSON(ecpm: 9), etag: "\"m\""),
    ])
    let active = try await source(receiver).start()
    #expect(active.origin == .remote(etag: "\"m\"", notModified: false))
    #expect(receiver.requests.map(\.path) == ["/mediation.json", "/moved.json"])
  }

  @Test func sameOriginComparesSchemeHostAndPort() throws {
    func url(_ text: String) throws -> URL { try #require(URL(string: text)) }
    #expect(ConfigDownload.sameOrigin(try url("http://a.example/x"), try url("http://A.example:80/y")))
    #expect(ConfigDownload.sameOrigin(try url("https://a.example/x"), try url("https://a.example:443/y")))
    #expect(!ConfigDownload.sameOrigin(try url("https://a.example/x"), try url("http://a.example/x")))
    #expect(
      !ConfigDownload.sameOrigin(try url("http://a.example:8080/x"), try url("http://a.example:8081/x")))
    #expect(!ConfigDownload.sameOrigin(try url("http://a.example/x"), try url("http://b.example/x")))
  }

  @Test(arguments: ["\"caf\u{e9}\"", "\"a\u{1}b\"", "\"" + String(repeating: "e", count: 9_000) + "\""])
  func anETagThatCannotGoBackInAHeaderIsNotSent(etag: String) async throws {
    let receiver = try LoopbackHTTPReceiver(script: [
      ok(configJSON(ecpm: 7), etag: etag), .answer(status: 304, headers: ["ETag": "\"v1\""]),
    ])
    let remote = try source(receiver)
    let first = await remote.start()
    #expect(first.config == (try config(ecpm: 7)))
    // Revalidation would echo it: not sent, so a 304 cannot refer to it and is refused.
    let again = await remote.refresh(force: true)
    #expect(again == first)
    #expect(receiver.requests.count == 2)
    #expect(receiver.requests.last?.headers["if-none-match"] == nil)
  }

  @Test(arguments: ["no-store", "max-age=0", "max-age=1, max-age=2"])
  func aServerThatIsNeverFreshIsNotAskedInALoop(header: String) async throws {
    let receiver = try LoopbackHTTPReceiver(
      script: [], fallback: ok(configJSON(ecpm: 7), etag: "\"v1\"", cacheControl: header))
    let scheduler = VirtualScheduler()
    let policy = RemoteConfigPolicy(
      requestTimeout: .seconds(10), maxAttempts: 1, minimumRefreshInterval: .seconds(30))
    let remote = try source(receiver, scheduler: scheduler, policy: policy)
    var events = remote.events.makeAsyncIterator()
    _ = await remote.start()
    #expect(await events.next() != nil)
    await remote.startRefreshing()
    // Stale at once, yet the one refresh waits for 30 s: nothing runs in the first 29.
    #expect(scheduler.run(until: scheduler.now + .seconds(29)) == false)
    #expect(receiver.requests.count == 1)
    await remote.stopRefreshing()
    await remote.finish()
  }
}
