/// Why a reward callback was refused: what was wrong, where (which parameter) and what was
/// expected.
///
/// ``Reason/malformed`` is the only "bad data" reason (the URL itself cannot be read; `mediate
/// verify-callback` exits 65); ``Reason/storageFailure`` is the verifier's own failure (exit 74);
/// every other reason is a callback that was read and refused (exit 1).
public struct CallbackRejection: Error, Sendable, Equatable, CustomStringConvertible {
  /// The class of refusal.
  public enum Reason: String, Sendable, Equatable, CaseIterable {
    /// The URL cannot be read: not an http(s) URL or request target, a character not allowed in a
    /// URL, a bad percent-escape, text that is not UTF-8, a parameter given twice.
    case malformed = "malformed"
    /// A parameter the check needs is absent.
    case missingParameter = "missing_parameter"
    /// A parameter is present but not of the expected form (an event id that is not 40 hex digits,
    /// a `key_id` that is not an integer, `signature` and `key_id` not last).
    case invalidParameter = "invalid_parameter"
    /// A MAX `{EVENT_TOKEN}` or `{EVENT_TOKEN_ALL}` does not match: forged or tampered.
    case invalidToken = "invalid_token"
    /// A Google SSV signature is not base64, not DER, or does not verify: forged or tampered.
    case invalidSignature = "invalid_signature"
    /// A Google SSV `key_id` names no key the verifier has.
    case unknownKey = "unknown_key"
    /// The event or transaction id was already accepted once.
    case replayed = "replayed"
    /// The replay guard's storage failed, so whether the id was already accepted is unknown: the
    /// callback is not accepted. Not the callback's fault — answer with a server error (5xx) so the
    /// network sends it again; a later attempt is accepted once the storage works, since the
    /// failed claim recorded nothing.
    case storageFailure = "storage_failure"
    /// A field is longer than allowed (user id or custom data over 8192 characters).
    case oversize = "oversize"
  }

  /// The class of refusal.
  public let reason: Reason
  /// The query parameter at fault, when one is.
  public let parameter: String?
  /// What was wrong, where and what was expected.
  public let message: String

  /// Creates a rejection.
  public init(_ reason: Reason, parameter: String? = nil, _ message: String) {
    self.reason = reason
    self.parameter = parameter
    self.message = message
  }

  /// Whether the URL could not be read at all (bad data, not a refused callback).
  public var isMalformed: Bool { reason == .malformed }

  /// `reason: message`, e.g. `invalid_token: parameter 'token' does not match sha1(EVENT_ID + event key)`.
  public var description: String { "\(reason.rawValue): \(message)" }
}

/// A callback format that cannot be used: a MAX URL template or a Google verifier-keys file that
/// does not parse. ``description`` names where (an offset in the template, a JSON path) and what was
/// expected.
public struct CallbackFormatError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Where the problem is: `offset 42` in a template, a JSON path like `keys[1].keyId`; nil when it
  /// concerns the whole input.
  public let location: String?
  /// What was wrong and what was expected.
  public let message: String

  /// Creates a format error.
  public init(at location: String? = nil, _ message: String) {
    self.location = location
    self.message = message
  }

  public var description: String { location.map { "\($0): \(message)" } ?? message }
}
