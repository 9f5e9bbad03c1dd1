import Foundation
import MediationKit
import S2SDelivery

/// How `mediate run` reports the server callbacks it delivered: one line per delivery on standard
/// error (standard output keeps the cycle's deterministic report), or with `--json` one JSON
/// object per delivery on standard output, after the timeline.
enum DeliveryReport {
  /// `{"event":"server_callback","network":"max","url":…,"delivered":true,"status":200,"attempts":1,"error":null}`.
  static func jsonLine(_ delivery: CallbackDelivery) -> String {
    JSONLine.encode([
      "event": "server_callback", "network": delivery.network.rawValue, "url": delivery.url,
      "delivered": delivery.isDelivered, "status": delivery.finalStatus.map { $0 as Any } ?? NSNull(),
      "attempts": delivery.attempts.count, "error": error(delivery).map { $0 as Any } ?? NSNull(),
    ])
  }

  /// `server callback: max GET https://… → HTTP 200 after 1 attempt`.
  static func text(_ delivery: CallbackDelivery) -> String {
    "server callback: \(delivery)"
  }

  /// Why a delivery failed, `nil` when it was delivered.
  static func error(_ delivery: CallbackDelivery) -> String? {
    switch delivery.outcome {
    case .delivered: nil
    case .failed(let last): "\(last)"
    case .invalidURL: "not an absolute http or https URL"
    }
  }

  /// The line for callbacks still in flight when the run stopped waiting.
  static func stillInFlight(_ count: Int, after wait: Duration) -> String {
    "server callback: \(count) still in flight after \(Int(wait.components.seconds)) s; not waited for"
  }
}
