import MediationKit

/// What the simulated MAX demand answers for one request: fill or not, the error when it does
/// not fill, the price, and how long the load and a bid take.
///
/// A pure function of the request's random stream (keyed by the SDK's seed, the ad unit and the
/// auction), the line item's eCPM, the privacy signals and the profile: the same request always
/// gets the same answer, whatever was loaded or shown before, which is what lets
/// ``MaxAdapter/quote(_:)`` predict a load exactly.
struct MaxMarketOutcome: Sendable, Equatable {
  /// Whether the load fills.
  var fills: Bool
  /// When it does not fill: `nil` for `204` no fill, else the index of the transport error in
  /// ``MaxMarketOutcome/transportErrors``.
  var transportError: Int?
  /// The price, USD per thousand, privacy factors applied (drawn even when it does not fill).
  var ecpm: Double
  /// Which of the profile's ``MaxBehaviorProfile/networkNames`` fills.
  var networkIndex: Int
  /// How long the load takes.
  var loadLatency: Duration
  /// How long a bid request takes.
  var bidLatency: Duration
  /// Whether the network may bid at all (not for an age-restricted user).
  var canBid: Bool

  /// The transport errors a load fails with, equally likely.
  static let transportErrors: [(code: MAErrorCode, message: String)] = [
    (.networkTimeout, "Request timed out"),
    (.networkError, "Network error"),
    (.adLoadFailed, "All mediated networks failed to load an ad"),
  ]

  /// Draws the outcome from `stream`. Always the same draws in the same order, so no branch
  /// shifts another.
  init(
    _ stream: SeededRandom, profile: borrowing MaxBehaviorProfile, lineItemECPM: Double, privacy: MaxPrivacy
  ) {
    var random = stream
    var fillFactor = 1.0
    var priceFactor = 1.0
    if privacy.personalizedAds == false {
      fillFactor *= profile.noConsentFillFactor
      priceFactor *= profile.noConsentPriceFactor
    }
    if privacy.doNotSell == true { priceFactor *= profile.doNotSellPriceFactor }
    if privacy.isAgeRestrictedUser {
      fillFactor *= profile.ageRestrictedFillFactor
      priceFactor *= profile.ageRestrictedPriceFactor
    }
    let fills = random.chance(profile.fillRate * fillFactor)
    let transport = random.chance(profile.loadErrorShare)
    let errorPick = Int(random.nextUnit() * Double(Self.transportErrors.count))
    let networkPick = random.nextUnit()
    let noise = random.logNormal(median: 1, sigma: profile.priceSigma)
    let loadSeconds = random.logNormal(
      median: profile.loadLatencyMedian.seconds, sigma: profile.loadLatencySigma)
    let bidSeconds = random.logNormal(
      median: profile.bidLatencyMedian.seconds, sigma: profile.bidLatencySigma)

    self.fills = fills
    self.transportError = !fills && transport ? min(errorPick, Self.transportErrors.count - 1) : nil
    self.ecpm = lineItemECPM * noise * priceFactor
    let names = max(profile.networkNames.count, 1)
    self.networkIndex = min(Int(networkPick * Double(names)), names - 1)
    self.loadLatency = .milliseconds(roundingSeconds: loadSeconds)
    self.bidLatency = .milliseconds(roundingSeconds: bidSeconds)
    self.canBid = !privacy.isAgeRestrictedUser
  }
}

extension MaxBehaviorProfile {
  /// The name of the mediated network at `index` (``networkNames``, or "AppLovin" when empty).
  func networkName(at index: Int) -> String {
    networkNames.isEmpty ? "AppLovin" : networkNames[min(index, networkNames.count - 1)]
  }
}

/// The bids an ad unit answered and that were not loaded yet, at most a fixed number: a new bid
/// expires the oldest one, so bids that lost their auction never pile up.
///
/// Bid `n` sits in slot `n % capacity` of a ring until bid `n + capacity` takes it, and its token,
/// `maxsim-<n in base 36>-<check in base 36>`, names its slot: a redemption reads the sequence
/// number back instead of hashing the token into a dictionary (a bidding run redeems a bid per
/// auction).
struct MaxBidBook: Sendable {
  struct Bid: Sendable {
    var auctionID: UInt64
    var price: Double
    var networkIndex: Int
  }

  private struct Entry: Sendable {
    var token: String
    var bid: Bid
    var open: Bool
  }

  private static let tokenPrefix = "maxsim-"

  private let capacity: Int
  private var issued: UInt64 = 0
  private var ring: [Entry] = []
  private var openCount = 0

  init(capacity: Int) { self.capacity = max(1, capacity) }

  /// How many bids can still be loaded.
  var count: Int { openCount }

  /// The sequence number the next bid gets.
  var nextSequence: UInt64 { issued }

  /// Records a bid, expiring the oldest one when full, and returns its token; `check` is the
  /// token's unguessable part.
  mutating func issue(_ bid: Bid, check: UInt64) -> String {
    let token = Self.token(sequence: issued, check: check)
    let entry = Entry(token: token, bid: bid, open: true)
    if ring.count < capacity {
      ring.append(entry)
    } else {
      let slot = Int(issued % UInt64(capacity))
      if ring[slot].open { openCount -= 1 }
      ring[slot] = entry
    }
    openCount += 1
    issued += 1
    return token
  }

  /// Takes the bid of `token` for `auctionID`; `nil` when unknown, expired, used or for another
  /// auction. A token is used up by its first load, whatever the answer.
  mutating func redeem(_ token: String, auctionID: UInt64) -> Bid? {
    guard let sequence = Self.sequence(of: token), sequence < issued,
      issued - sequence <= UInt64(capacity)
    else { return nil }
    let slot = Int(sequence % UInt64(capacity))
    guard ring[slot].open, ring[slot].token == token else { return nil }
    ring[slot].open = false
    openCount -= 1
    let bid = ring[slot].bid
    return bid.auctionID == auctionID ? bid : nil
  }

  /// `"maxsim-\(String(sequence, radix: 36))-\(String(check, radix: 36))"`, its bytes written in
  /// place: interpolating `String(_:radix:)` cost ten times as much, and bidding issues a bid per auction.
  static func token(sequence: UInt64, check: UInt64) -> String {
    func digitCount(_ value: UInt64) -> Int {
      var count = 1
      var rest = value
      while rest >= 36 {
        rest /= 36
        count += 1
      }
      return count
    }
    let prefix = tokenPrefix.utf8
    let sequenceDigits = digitCount(sequence)
    let checkDigits = digitCount(check)
    let length = prefix.count + sequenceDigits + 1 + checkDigits
    return String(unsafeUninitializedCapacity: length) { buffer in
      var position = 0
      for byte in prefix {
        buffer[position] = byte
        position += 1
      }
      func write(_ value: UInt64, digits: Int) {
        var rest = value
        for index in stride(from: position + digits - 1, through: position, by: -1) {
          let digit = UInt8(truncatingIfNeeded: rest % 36)
          buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit
          rest /= 36
        }
        position += digits
      }
      write(sequence, digits: sequenceDigits)
      buffer[position] = UInt8(ascii: "-")
      position += 1
      write(check, digits: checkDigits)
      return position
    }
  }

  /// The sequence number a token of this book would carry; `nil` when it cannot be one.
  private static func sequence(of token: String) -> UInt64? {
    guard token.hasPrefix(tokenPrefix) else { return nil }
    let rest = token.utf8.dropFirst(tokenPrefix.utf8.count)
    guard let dash = rest.firstIndex(of: UInt8(ascii: "-")) else { return nil }
    return UInt64(Substring(rest[..<dash]), radix: 36)
  }
}

/// MAX's answer to a bid request (simulation wiring).
enum MaxBidAnswer: Sendable {
  /// A bid: the price, USD per thousand, and the token to load it with.
  case bid(price: Double, token: String)
  /// No bid, and why.
  case noBid(MAError)
}
