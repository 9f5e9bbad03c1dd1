#if canImport(CryptoKit)
  import CryptoKit
#endif

extension MediatorOptions {
  /// The flight recorder: what a mediator keeps of each zone's inputs so that a session can be
  /// exported (``Mediator/exportRecording()``) and replayed exactly (`mediate replay`, or
  /// `MediationKitTesting`'s `FlightRecordingReplay` in a test).
  ///
  /// Off by default. What a recording holds: each zone's inputs (the app's loads and shows, every
  /// network answer and show signal, every timer firing and configuration change) with their
  /// times and the events each published; each session's checkpoint (the zone's ready ads,
  /// counters, learned eCPMs); the zone's configuration, version and experiment arms; the
  /// registered networks' ids and adapter and SDK versions; the privacy flags each load was
  /// given. What it never holds: the user id, an advertising id, the custom data of a show, the
  /// content of the IAB consent strings (unless ``keepsConsentStrings``). Texts from outside are
  /// capped at 256 characters.
  ///
  /// Bounded per zone: the last ``maxSessions`` sessions and at most ``maxInputs`` inputs (an
  /// input's record is under about 1 KB, so the defaults hold at most about 2 MB per zone, and
  /// typically a tenth of that), plus up to ``keptAnomalies`` sessions with an anomaly that left
  /// the ring. Recording an input is one conversion to plain values inside the lock round that
  /// handles it; encoding happens only on export.
  public struct FlightRecorder: Sendable {
    /// Whether every zone records. A remote configuration can also switch recording on for
    /// chosen users (``MediationConfig/flightRecorder``).
    public var isEnabled: Bool
    /// Sessions kept per zone (at least 1).
    public var maxSessions: Int
    /// Inputs kept per zone, across its sessions.
    public var maxInputs: Int
    /// Sessions with an anomaly (a show ended without a reward, a show that failed, a reward past
    /// the grace window, a load every network timed out on) kept per zone after they leave the
    /// ring.
    public var keptAnomalies: Int
    /// Whether the IAB consent strings' content is recorded (off: only whether each was present).
    public var keepsConsentStrings: Bool
    /// SHA-256 of a user id, in lowercase hex, for the configuration's
    /// ``FlightRecorderRule/hashedUserIDs``: CryptoKit's on Apple platforms; elsewhere `nil` (hashed
    /// ids then select no one) unless you pass one.
    public var userIDHash: (@Sendable (String) -> String)?

    public init(
      isEnabled: Bool = false, maxSessions: Int = 20, maxInputs: Int = 2_000, keptAnomalies: Int = 5,
      keepsConsentStrings: Bool = false,
      userIDHash: (@Sendable (String) -> String)? = FlightRecorder.sha256Hex
    ) {
      self.userIDHash = userIDHash
      self.isEnabled = isEnabled
      self.maxSessions = max(1, maxSessions)
      self.maxInputs = max(1, maxInputs)
      self.keptAnomalies = max(0, keptAnomalies)
      self.keepsConsentStrings = keepsConsentStrings
    }
  }
}

extension MediatorOptions.FlightRecorder {
  /// The platform's SHA-256 of a user id's UTF-8 bytes, in lowercase hex; `nil` without CryptoKit.
  public static var sha256Hex: (@Sendable (String) -> String)? {
    #if canImport(CryptoKit)
      return { id in
        SHA256.hash(data: Array(id.utf8)).map { byte in
          let hex = String(byte, radix: 16)
          return byte < 16 ? "0" + hex : hex
        }.joined()
      }
    #else
      return nil
    #endif
  }
}
