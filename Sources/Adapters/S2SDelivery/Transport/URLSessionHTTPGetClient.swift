import Dispatch
import Foundation
import MediationKit

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends real HTTP(S) GETs with `URLSession` (FoundationNetworking's, on Linux).
///
/// Each attempt has its own timeout, enforced by the client itself as well as by the request's
/// `timeoutInterval`: when it passes, the task is cancelled and the attempt reports
/// ``HTTPGetOutcome/timedOut``. Nothing is cached and no cookies are kept; the body of the
/// response is ignored (only the status counts).
public final class URLSessionHTTPGetClient: HTTPGetClient {
  private let session: URLSession
  private let userAgent: String

  /// Creates a client with its own ephemeral session.
  ///
  /// - Parameter userAgent: The `User-Agent` header every request carries.
  public init(userAgent: String = "MediationKit-ServerCallback/1.0") {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    self.session = URLSession(configuration: configuration)
    self.userAgent = userAgent
  }

  deinit {
    session.invalidateAndCancel()
  }

  public func get(_ url: URL, timeout: Duration, completion: @escaping @Sendable (HTTPGetOutcome) -> Void) {
    let seconds = max(0.001, timeout.seconds)
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: seconds)
    request.httpMethod = "GET"
    request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
    // The first of the task's answer and the deadline wins; the other is ignored.
    let finish = Locked<(@Sendable (HTTPGetOutcome) -> Void)?>(completion)
    let task = session.dataTask(with: request) { _, response, error in
      let outcome: HTTPGetOutcome
      if let response = response as? HTTPURLResponse {
        outcome = .response(status: response.statusCode)
      } else if let error = error as? URLError, error.code == .timedOut {
        outcome = .timedOut
      } else if let error {
        outcome = .failed(Self.describe(error))
      } else {
        outcome = .failed("no HTTP response")
      }
      finish.exchange(nil)?(outcome)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak task] in
      guard let report = finish.exchange(nil) else { return }
      task?.cancel()
      report(.timedOut)
    }
    task.resume()
  }

  private static func describe(_ error: any Error) -> String {
    if let error = error as? URLError {
      switch error.code {
      case .cannotConnectToHost: return "cannot connect to host"
      case .networkConnectionLost: return "connection lost"
      case .cannotFindHost: return "cannot find host"
      case .notConnectedToInternet: return "not connected"
      case .secureConnectionFailed: return "TLS handshake failed"
      case .badServerResponse: return "bad server response"
      default: return "URL error \(error.code.rawValue): \(error.localizedDescription)"
      }
    }
    return "\(error)"
  }
}
