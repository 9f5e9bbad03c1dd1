import Foundation
import MediationKit
import MediationKitTesting
import Testing

@Suite("Server callback settings: validation and forwarding")
struct ServerCallbackConfigTests {
  static func issues(_ lineItems: String) -> [String] { ConfigTests.issues(ConfigTests.zone(lineItems)) }

  static func json(_ network: String, _ placement: String, callback: String) -> String {
    #"{"network": "\#(network)", "placementId": "\#(placement)", "priority": 0, "ecpm": 3, "timeoutSeconds": 5, "serverCallback": \#(callback)}"#
  }

  static let plain =
    #"{"network": "empower", "placementId": "e", "priority": 0, "ecpm": 3, "timeoutSeconds": 5}"#

  @Test func goodCallbacksLoadAndRoundTrip() throws {
    let json = ConfigTests.zone(
      Self.plain + ", "
        + Self.json(
          "max", "m",
          callback:
            #"{"url": "https://rewards.example.com/max?u={USER_ID}&e={EVENT_ID}&t={EVENT_TOKEN}", "eventKey": "k3y"}"#
        ) + ", "
        + Self.json("google", "g", callback: #"{"url": "http://127.0.0.1:8080/ssv"}"#))
    let config = try MediationConfig.load(Data(json.utf8), source: "t", knownNetworks: ConfigTests.known)
    let items = config.zones[0].lineItems
    #expect(items[0].serverCallback == nil)
    #expect(
      items[1].serverCallback
        == ZoneConfig.ServerCallbackConfig(
          url: "https://rewards.example.com/max?u={USER_ID}&e={EVENT_ID}&t={EVENT_TOKEN}", eventKey: "k3y"))
    #expect(items[2].serverCallback == ZoneConfig.ServerCallbackConfig(url: "http://127.0.0.1:8080/ssv"))
    let reloaded = try MediationConfig.load(JSONEncoder().encode(config), source: "round trip")
    #expect(reloaded == config)
  }

  @Test(arguments: [
    ("ftp://rewards.example.com/cb", "found \"ftp://rewards.example.com/cb\""),
    ("rewards.example.com/cb", "found \"rewards.example.com/cb\""),
    ("/relative/cb", "found \"/relative/cb\""),
    ("https://", "found \"https://\""),
    ("", "found \"\""),
  ])
  func aBadURLIsReportedWithItsPath(url: String, found: String) {
    let issues = Self.issues(
      Self.plain + ", " + Self.json("google", "g", callback: #"{"url": "\#(url)"}"#))
    #expect(
      issues == ["zones[0].lineItems[1].serverCallback.url: must be an absolute http or https URL, \(found)"])
  }

  @Test func spacesAndFragmentsAreNamed() {
    #expect(
      Self.issues(Self.json("google", "g", callback: #"{"url": "https://a.example/cb?x=a b"}"#)) == [
        "zones[0].lineItems[0].serverCallback.url: must be an absolute http or https URL without spaces or control characters, found \"https://a.example/cb?x=a b\""
      ])
    #expect(
      Self.issues(Self.json("google", "g", callback: #"{"url": "https://a.example/cb#top"}"#)) == [
        "zones[0].lineItems[0].serverCallback.url: must be an absolute http or https URL without a fragment (#…), found \"https://a.example/cb#top\""
      ])
  }

  @Test(arguments: [
    "https://rewards.example.com/cb?user={USER_ID", "https://rewards.example.com/cb?user={user_id}",
    "https://rewards.example.com/cb?user=}", "https://rewards.example.com/cb?user={}",
  ])
  func aStrayBraceIsNotAMacro(url: String) {
    #expect(
      Self.issues(Self.json("max", "m", callback: #"{"url": "\#(url)", "eventKey": "k"}"#)) == [
        "zones[0].lineItems[0].serverCallback.url: must be an absolute http or https URL with '{' and '}' only around a macro name such as {USER_ID}, found \"\(url)\""
      ])
  }

  @Test(arguments: ["https://a.example/cb?x=é", "https://a.example/cb?x=<y>", "https://a.example/cb?x=\\\\"])
  func charactersToPercentEncodeAreNamed(url: String) {
    let json = #"{"url": "\#(url)"}"#
    let decoded = try? JSONDecoder().decode(ZoneConfig.ServerCallbackConfig.self, from: Data(json.utf8))
    #expect(
      Self.issues(Self.json("google", "g", callback: json)) == [
        "zones[0].lineItems[0].serverCallback.url: must be an absolute http or https URL (percent-encode other characters), found \"\(decoded?.url ?? "?")\""
      ])
  }

  @Test func anOversizeURLIsRejectedWithoutEchoingIt() {
    let url = "https://a.example/?" + String(repeating: "x", count: 9000)
    #expect(
      Self.issues(Self.json("google", "g", callback: #"{"url": "\#(url)"}"#)) == [
        "zones[0].lineItems[0].serverCallback.url: must be an absolute http or https URL of at most 8192 characters, found 9019 characters"
      ])
  }

  @Test func maxNeedsAnEventKey() {
    #expect(
      Self.issues(Self.plain + ", " + Self.json("max", "m", callback: #"{"url": "https://a.example/cb"}"#))
        == [
          "zones[0].lineItems[1].serverCallback.eventKey: required for network 'max' (the account's S2S event key, which keys {EVENT_TOKEN} and {EVENT_TOKEN_ALL}), found none"
        ])
  }

  @Test func anEmptyEventKeyIsRejectedOnAnyNetwork() {
    #expect(
      Self.issues(Self.json("max", "m", callback: #"{"url": "https://a.example/cb", "eventKey": " "}"#)) == [
        "zones[0].lineItems[0].serverCallback.eventKey: must be a non-empty string, found \" \""
      ])
    #expect(
      Self.issues(Self.json("google", "g", callback: #"{"url": "https://a.example/cb", "eventKey": ""}"#))
        == [
          "zones[0].lineItems[0].serverCallback.eventKey: must be a non-empty string, found \"\""
        ])
  }

  @Test func anEventKeyIsAllowedOnOtherNetworks() {
    #expect(
      Self.issues(Self.json("google", "g", callback: #"{"url": "https://a.example/cb", "eventKey": "k"}"#))
        .isEmpty)
  }

  @Test func aCallbackOfTheWrongTypeIsNamed() {
    #expect(
      Self.issues(Self.json("google", "g", callback: #""https://a.example/cb""#)) == [
        "zones[0].lineItems[0].serverCallback: expected an object, found a string"
      ])
    #expect(
      Self.issues(Self.json("google", "g", callback: #"{"eventKey": "k"}"#)) == [
        "zones[0].lineItems[0].serverCallback: missing required field 'url'"
      ])
  }

  @Test func theMediatorRefusesAnInvalidCallback() {
    let bad = ZoneConfig.LineItem(
      network: "max", placementId: "m", priority: 0, ecpm: 1,
      serverCallback: ZoneConfig.ServerCallbackConfig(url: "https://a.example/cb"))
    #expect(throws: MediationError.self) {
      _ = try Harness(zones: [zone([bad])], scripts: [:])
    }
  }

  @Test func eachLoadCarriesItsLineItemsCallback() throws {
    let callback = ZoneConfig.ServerCallbackConfig(url: "https://a.example/{USER_ID}", eventKey: "k")
    var withCallback = item("a", "a1", ecpm: 5)
    withCallback.serverCallback = callback
    let harness = try Harness(
      zones: [zone([item("b", "b1", ecpm: 9), withCallback])],
      scripts: ["a": ["a1": [.fill(after: .seconds(1))]], "b": ["b1": [.fail(after: .seconds(1), noFill)]]])
    try harness.mediator.rewardedAd(zone: "z").load()
    harness.settle()
    #expect(harness.adapters["b"]!.loadRequests.map(\.serverCallback) == [nil])
    #expect(harness.adapters["a"]!.loadRequests.map(\.serverCallback) == [callback])
  }
}

@Suite("User id")
struct UserIDTests {
  static func harness() throws -> Harness {
    try Harness(
      zones: [zone([item("a", "a1", ecpm: 5)])], scripts: ["a": ["a1": [.fill(after: .seconds(1))]]])
  }

  @Test func isForwardedWithEachShow() throws {
    let harness = try Self.harness()
    #expect(harness.mediator.userID == nil)
    try harness.mediator.setUserID("user-42")
    #expect(harness.mediator.userID == "user-42")
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter(), customData: "a&b=c d/é")
    harness.settle()
    let request = try #require(harness.adapters["a"]!.showRequests.first)
    #expect(request.userID == "user-42")
    #expect(request.customData == "a&b=c d/é")
    #expect(request.zoneID == "z")
  }

  @Test func noUserIDMeansNil() throws {
    let harness = try Self.harness()
    let ad = try harness.mediator.rewardedAd(zone: "z")
    ad.load()
    harness.settle()
    try ad.show(from: HeadlessPresenter())
    harness.settle()
    #expect(try #require(harness.adapters["a"]!.showRequests.first).userID == nil)
  }

  @Test func theLimitIs8192UTF16CodeUnits() throws {
    let harness = try Self.harness()
    let longest = String(repeating: "u", count: Mediator.maxUserIDLength)
    try harness.mediator.setUserID(longest)
    #expect(harness.mediator.userID == longest)
    let error = #expect(throws: MediationError.self) {
      try harness.mediator.setUserID(longest + "u")
    }
    #expect(error?.code == .invalidUserID)
    #expect(error?.message == "user id is 8193 UTF-16 code units long; at most 8192 are allowed")
    #expect(harness.mediator.userID == longest)  // the previous id is kept
    // "é" is one UTF-16 code unit, an emoji two.
    #expect(throws: MediationError.self) {
      try harness.mediator.setUserID(String(repeating: "😀", count: 4097))
    }
    try harness.mediator.setUserID(String(repeating: "é", count: 8192))
    try harness.mediator.setUserID(nil)
    #expect(harness.mediator.userID == nil)
  }

  @Test func theErrorCodeSaysWhatToDo() {
    #expect(MediationError.Code.invalidUserID.rawValue == "invalid_user_id")
    #expect(MediationError.Code.invalidUserID.resolution.contains("8192"))
  }
}
