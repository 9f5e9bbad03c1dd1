import Foundation
import MediationKit
import Testing

@testable import MediateCLI

/// Control characters a configuration or a server puts in a line never reach the terminal raw.
@Suite("Text output is safe to print")
struct TerminalEscapeTests {
  /// An OSC sequence that retitles the terminal window, then one that clears the screen.
  static let hostile = "z\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m\u{202E}"
  static let escaped = #"z\u001B]0;pwned\u0007\u001B[2J\u009B31m\u202E"#

  static func config(zoneID: String, network: String = "max") -> String {
    let id = JSONLine.encode(array: [["id": zoneID]]).dropFirst(7).dropLast(2)
    let network = JSONLine.encode(array: [["id": network]]).dropFirst(7).dropLast(2)
    return #"{"version": "#
      + id
      + #", "zones": [{"id": "#
      + id
      + #", "reward": {"type": "coins", "amount": 1}, "loadTimeoutSeconds": 30, "adExpirySeconds": 60, "rewardGraceSeconds": 1, "autoReload": false, "lineItems": [{"network": "#
      + network + #", "placementId": "a", "priority": 0, "ecpm": 3, "timeoutSeconds": 5}]}]}"#
  }

  static func isRaw(_ line: String) -> Bool {
    line.unicodeScalars.contains { TerminalText.needsEscape($0) }
  }

  @Test func theEscapeWritesEveryControlButTheLineFeedAsJSONDoes() {
    #expect(TerminalText.escape(Self.hostile) == Self.escaped)
    #expect(TerminalText.escape("a\nb\tc\r\u{7F}\u{0}") == "a\nb" + #"\u0009c\u000D\u007F\u0000"#)
    #expect(TerminalText.escape("level_complete — 100 coins ✓") == "level_complete — 100 coins ✓")
    // A JSON line escaped reads back the same.
    let line = JSONLine.encode(["id": Self.hostile])
    let object =
      try? JSONSerialization.jsonObject(with: Data(TerminalText.escape(line).utf8)) as? [String: String]
    #expect(object?["id"] == Self.hostile)
  }

  @Test func zonesTheCycleAndValidateEscapeAZoneIDFromTheConfiguration() {
    let path = temporaryFile(Self.config(zoneID: Self.hostile))
    let zones = mediate(["zones", "--config", path])
    #expect(zones.code == 0)
    #expect(zones.out.contains { $0.hasPrefix(Self.escaped + " — reward 1 coins") }, "\(zones.out)")
    let cycle = mediate(["--config", path, "--networks", "max"])
    #expect(cycle.code == 0)
    #expect(cycle.out.contains { $0.contains(Self.escaped) }, "\(cycle.out)")
    let bad = temporaryFile(Self.config(zoneID: Self.hostile, network: Self.hostile))
    let validate = mediate(["validate", bad])
    #expect(validate.code == 65)
    #expect(validate.err.contains { $0.contains("unknown network '\(Self.escaped)'") }, "\(validate.err)")
    for result in [
      zones, cycle, validate, mediate(["--config", bad]), mediate(["zones", "--config", path, "--json"]),
    ] {
      for line in result.out + result.err { #expect(!Self.isRaw(line), "\(line.debugDescription)") }
    }
  }
}
