import Foundation
import RewardCallbacks

/// `mediate verify-callback`: checks one server-to-server reward callback URL, as the publisher's
/// server would — a MAX callback against its event key (and template), a Google SSV callback
/// against Google's verifier keys.
///
/// Exit 0 valid (the verified fields are printed), 1 rejected (the reason on standard error),
/// 64 bad usage, 65 a malformed URL, template, keys file or `--seen` file, 66 a keys file that does
/// not exist or a `--seen` that is a directory, 74 when the `--seen` guard's storage fails while
/// opening it or claiming the id (the callback is not accepted, and is not a replay either; nothing
/// was recorded). With `--seen FILE` the accepted
/// ids are kept in that SQLite replay guard, so a replay is refused across runs (and across
/// processes running at once); without it, within one run only.
struct VerifyCallbackCommand {
  let context: CommandContext

  init(_ context: CommandContext) { self.context = context }

  private var arguments: Arguments { context.arguments }

  func run() throws(CLIError) -> Int32 {
    guard let url = arguments.positional.first else {
      throw .usage("missing the callback URL to verify", .verifyCallback)
    }
    if arguments.positional.count > 1 {
      throw .usage(
        "unexpected argument '\(arguments.positional[1])'; expected one URL (quote it: it contains '&')",
        .verifyCallback)
    }
    let known = CallbackNetwork.allCases.map(\.rawValue).joined(separator: ", ")
    guard let name = arguments.value(.callbackNetwork) else {
      throw .usage("missing --network; networks: \(known)", .verifyCallback)
    }
    guard let network = CallbackNetwork(rawValue: name) else {
      throw .usage("unknown network '\(name)'; networks: \(known)", .verifyCallback)
    }
    let result: Result<VerifiedReward, CallbackRejection>
    switch network {
    case .max:
      let verifier = try maxVerifier()
      result = Result { () throws(CallbackRejection) in try verifier.verify(url) }
    case .google:
      let verifier = try googleVerifier()
      result = Result { () throws(CallbackRejection) in try verifier.verify(url) }
    }
    switch result {
    case .success(let reward):
      print(reward)
      return ExitCode.success
    case .failure(let rejection) where rejection.isMalformed:
      throw .data("malformed callback URL: \(rejection.message)")
    case .failure(let rejection) where rejection.reason == .storageFailure:
      throw CLIError(kind: .io, message: rejection.message)
    case .failure(let rejection):
      if context.json {
        context.output.out(
          JSONLine.encode([
            "valid": false, "network": network.rawValue, "reason": rejection.reason.rawValue,
            "parameter": rejection.parameter ?? NSNull(), "message": rejection.message,
          ]))
      }
      context.output.err("Rejected (\(rejection.reason.rawValue)): \(rejection.message)")
      return ExitCode.failure
    }
  }

  private func maxVerifier() throws(CLIError) -> MaxCallbackVerifier {
    if arguments.value(.verifierKeys) != nil {
      throw .usage("--keys is for --network google; a MAX callback is checked with --key", .verifyCallback)
    }
    guard let key = arguments.value(.eventKey) else {
      throw .usage("--network max needs --key KEY, the ad unit's S2S event key", .verifyCallback)
    }
    guard !key.isEmpty else {
      throw .usage("--key is empty; expected the ad unit's S2S event key", .verifyCallback)
    }
    var template = MaxCallbackTemplate.standard
    if let text = arguments.value(.callbackTemplate) {
      do {
        template = try MaxCallbackTemplate(text)
      } catch {
        throw .data("--template: \(error)")
      }
      for macro in [MaxMacro.EVENT_ID, .EVENT_TOKEN] where template.parameterName(for: macro) == nil {
        throw .data(
          "--template: the template has no \(macro.placeholder); expected {EVENT_ID} and {EVENT_TOKEN}, without which no callback can be verified"
        )
      }
    }
    return MaxCallbackVerifier(template: template, eventKey: key, replayGuard: try context.openReplayGuard())
  }

  private func googleVerifier() throws(CLIError) -> GoogleSSVVerifier {
    if arguments.value(.eventKey) != nil || arguments.value(.callbackTemplate) != nil {
      throw .usage(
        "--key and --template are for --network max; a Google callback is checked with --keys",
        .verifyCallback)
    }
    guard let path = arguments.value(.verifierKeys) else {
      throw .usage("--network google needs --keys FILE, Google's verifier-keys JSON", .verifyCallback)
    }
    guard let data = FileManager.default.contents(atPath: path) else { throw .noInput(path) }
    let keys: VerifierKeys
    do {
      keys = try VerifierKeys(json: data)
    } catch {
      throw .data("\(path): \(error)")
    }
    return GoogleSSVVerifier(keys: keys, replayGuard: try context.openReplayGuard())
  }

  /// The verified fields: one JSON object with `--json`, aligned lines otherwise.
  private func print(_ reward: VerifiedReward) {
    let fields: [(label: String, key: String, value: Any?)] = [
      ("transaction id", "transaction_id", reward.transactionID),
      ("user id", "user_id", reward.userID),
      ("amount", "amount", reward.amount),
      ("currency", "currency", reward.currency),
      ("custom data", "custom_data", reward.customData),
      ("ad unit", "ad_unit", reward.adUnit),
      ("ad network", "ad_network", reward.adNetwork),
      ("timestamp", "timestamp", reward.timestamp),
      ("key id", "key_id", reward.keyID),
    ]
    let unverified = reward.unverifiedFields.map(\.rawValue)
    if context.json {
      var object: [String: Any] = ["valid": true, "network": reward.network.rawValue]
      for field in fields { object[field.key] = field.value ?? NSNull() }
      object["unverified_fields"] = unverified
      context.output.out(JSONLine.encode(object))
      return
    }
    context.output.out("valid \(reward.network.rawValue) callback")
    for field in fields {
      guard let value = field.value else { continue }
      context.output.out("  " + field.label.padding(toLength: 16, withPad: " ", startingAt: 0) + "\(value)")
    }
    if !unverified.isEmpty {
      context.output.out(
        "  unverified      \(unverified.joined(separator: ", ")): no token covers them (the template has no {EVENT_TOKEN_ALL})"
      )
    }
  }
}
