/// One ``ZoneInput`` as the flight recorder keeps it: the input's kind and its plain fields, one
/// JSON object per input in a recording. A cancellation handle is left out (a replay makes its
/// own), an ad is named by a token, a setup is written out whole.
struct RecordedInput: Codable, Sendable, Equatable {
  enum Kind: String, Codable, Sendable, CaseIterable {
    case load
    case auctionStarted = "auction_started"
    case sent
    case awaitingStart = "awaiting_start"
    case startEnded = "start_ended"
    case notStarted = "not_started"
    case bidAnswered = "bid_answered"
    case loaded
    case loadFailed = "load_failed"
    case withdrawn
    case show
    case signal
    case timerArmed = "timer_armed"
    case timerFired = "timer_fired"
    case apply
  }

  var type: Kind
  /// `load`: whether the app asked for it (else the zone reloads on its own).
  var requested: Bool?
  var networks: RecordedAvailability?
  var privacy: RecordedPrivacy?
  /// The load a request, answer, auction id or signal belongs to (a signal's: the load that made
  /// the ad shown).
  var load: Int?
  /// The request's plan entry.
  var entry: Int?
  /// The network, placement and kind (`bid` or `load`) of the request a request's input is about,
  /// as the zone sent it; `show`: `load` names the ad it put on screen.
  var network: String?
  var placementID: String?
  var requestKind: String?
  var auctionID: UInt64?
  /// `start_ended`: why the waiting request is skipped (`nil`: it goes out); `not_started`: why.
  var reason: String?
  var bid: RecordedBid?
  var error: RecordedError?
  var ad: RecordedAd?
  var withdrawal: RecordedWithdrawal?
  /// `show`: whether the app passed custom data (its content is never recorded).
  var hasCustomData: Bool?
  /// `show`: whether the full-screen gate was taken for it, and else which zone held it.
  var screenAcquired: Bool?
  var screenHolder: String?
  var signal: RecordedSignal?
  var timer: RecordedTimer?
  var change: RecordedChange?

  init(type: Kind) { self.type = type }

  /// The record of `input`; `adToken` names an ad object (the same object, the same token).
  init(_ input: ZoneInput, keepingConsentStrings: Bool, adToken: (any AdapterAd) -> Int) {
    func request(_ kind: Kind, _ id: RequestID) -> RecordedInput {
      var record = RecordedInput(type: kind)
      record.load = id.load
      record.entry = id.entry
      return record
    }
    switch input {
    case .load(let requested, let networks, let privacy):
      self.init(type: .load)
      self.requested = requested
      self.networks = RecordedAvailability(networks)
      self.privacy = RecordedPrivacy(privacy, keepingStrings: keepingConsentStrings)
    case .auctionStarted(let load, let auctionID):
      self.init(type: .auctionStarted)
      self.load = load
      self.auctionID = auctionID
    case .sent(let id, _): self = request(.sent, id)
    case .awaitingStart(let id, _): self = request(.awaitingStart, id)
    case .startEnded(let id, let refusal):
      self = request(.startEnded, id)
      reason = refusal.map(recordedText)
    case .notStarted(let id, let reason):
      self = request(.notStarted, id)
      self.reason = recordedText(reason)
    case .bidAnswered(let id, let result):
      self = request(.bidAnswered, id)
      switch result {
      case .success(let bid): self.bid = RecordedBid(bid)
      case .failure(let error): self.error = RecordedError(error)
      }
    case .loaded(let id, let loaded):
      self = request(.loaded, id)
      ad = RecordedAd(
        token: adToken(loaded.value.ad), ecpm: loaded.value.ecpm,
        lifetimeNS: loaded.value.lifetime.map { Int64(clamping: $0.nanoseconds) })
    case .loadFailed(let id, let error):
      self = request(.loadFailed, id)
      self.error = RecordedError(error)
    case .withdrawn(let id, let withdrawal):
      self = request(.withdrawn, id)
      self.withdrawal = RecordedWithdrawal(withdrawal)
    case .show(let customData, let screen):
      self.init(type: .show)
      hasCustomData = customData != nil
      switch screen {
      case .acquired: screenAcquired = true
      case .taken(let holder):
        screenAcquired = false
        screenHolder = holder.map(recordedText)
      }
    case .signal(let ad, let signal):
      self.init(type: .signal)
      load = ad
      self.signal = RecordedSignal(signal)
    case .timerArmed(let id, _):
      self.init(type: .timerArmed)
      timer = RecordedTimer(id)
    case .timerFired(let id):
      self.init(type: .timerFired)
      timer = RecordedTimer(id)
    case .apply(let change):
      self.init(type: .apply)
      self.change = RecordedChange(change)
    }
  }

  /// The input in a few words, for a timeline.
  var summary: String {
    let request = [network, placementID].compactMap { $0 }.joined(separator: "/")
    let load = self.load.map { "load \($0)" } ?? ""
    switch type {
    case .load: return requested == true ? "the app asked for a load" : "the zone reloads on its own"
    case .auctionStarted: return "\(load) is auction \(auctionID ?? 0)"
    case .sent: return "\(load): \(requestKind ?? "request") sent to \(request)"
    case .awaitingStart: return "\(load): \(request) waits for its network's start"
    case .startEnded: return "\(load): \(request)'s start ended" + (reason.map { " (\($0))" } ?? "")
    case .notStarted: return "\(load): \(request) not started (\(reason ?? ""))"
    case .bidAnswered:
      return "\(load): \(request) "
        + (bid.map { "bid \($0.price)" } ?? "did not bid (\(error?.kind.rawValue ?? ""))")
    case .loaded: return "\(load): \(request) loaded" + (ad?.ecpm.map { " at eCPM \($0)" } ?? "")
    case .loadFailed: return "\(load): \(request) failed (\(error?.kind.rawValue ?? ""))"
    case .withdrawn: return "\(load): \(request) withdrew its ad (\(withdrawal?.kind.rawValue ?? ""))"
    case .show:
      return screenAcquired == false
        ? "the app asked to show while zone '\(screenHolder ?? "?")' held the screen"
        : "the app asked to show" + (self.load.map { " (ad of load \($0))" } ?? "")
    case .signal: return "the ad of \(load) signalled \(signal?.type.rawValue ?? "?")"
    case .timerArmed: return "\(timer?.kind ?? "?") timer armed (\(timer?.generation ?? 0))"
    case .timerFired: return "\(timer?.kind ?? "?") timer fired (\(timer?.generation ?? 0))"
    case .apply:
      switch change?.type {
      case .removed: return "the zone was removed (\(change?.reason ?? ""))"
      case .user: return "the user changed: arms \(change?.setup?.experimentArms ?? [:])"
      default: return "a configuration was applied (\(change?.setup?.configurationVersion ?? "no version"))"
      }
    }
  }

  /// The request this input is about, for the kinds that carry one.
  var requestID: RequestID? {
    guard let load, let entry else { return nil }
    return RequestID(load: load, entry: entry)
  }

  /// Whether this input can begin a session: something from outside the zone's own chain of
  /// inputs (the app, a network's answer, a timer, a change). The inputs a zone feeds itself while
  /// performing another's effects (an auction id, a request's handle, a timer's handle, its own
  /// reload, a request refused at once) always belong to the session of the input that caused them;
  /// so do show signals, which at rest can only be an ended show's late ones: they stay with the
  /// show.
  var beginsSession: Bool {
    switch type {
    case .load: requested == true
    case .auctionStarted, .sent, .awaitingStart, .notStarted, .timerArmed, .signal: false
    case .startEnded, .bidAnswered, .loaded, .loadFailed, .withdrawn, .show, .timerFired, .apply: true
    }
  }
}

extension Duration {
  /// The whole nanoseconds of this duration, saturated at `Int64`'s bounds.
  var nanoseconds: Int64 {
    let (seconds, attoseconds) = secondsAndAttoseconds
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return seconds < 0 ? .min : .max }
    let (sum, sumOverflow) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    return sumOverflow ? (seconds < 0 ? .min : .max) : sum
  }
}
