import Dispatch
import Foundation
import MediationKit

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One answer of the configuration server.
struct ConfigResponse: Sendable {
  var status: Int
  /// The `ETag` header, as sent (quotes included).
  var etag: String?
  /// The `Cache-Control` header.
  var cacheControl: String?
  /// The body, decoded when the server sent it with a `Content-Encoding` (gzip, deflate).
  var body: Data
}

/// One GET of the configuration URL with `URLSession` (FoundationNetworking's on Linux): the body
/// is counted as it arrives and the download stopped once it passes the size limit, and the whole
/// request has a deadline of its own (the request's `timeoutInterval` is only an idle timeout).
final class ConfigDownload: NSObject, URLSessionDataDelegate, Sendable {
  private struct State {
    var body = Data()
    var continuation: CheckedContinuation<Result<ConfigResponse, ConfigFetchFailure>, Never>?
  }

  private let state = Locked(State())
  private let url: URL
  private let limit: Int
  private let timeout: Duration

  private init(url: URL, limit: Int, timeout: Duration) {
    self.url = url
    self.limit = limit
    self.timeout = timeout
  }

  /// Fetches `url`, sending `If-None-Match: etag` when there is one.
  static func fetch(
    _ url: URL, etag: String?, timeout: Duration, limit: Int
  ) async -> Result<ConfigResponse, ConfigFetchFailure> {
    let download = ConfigDownload(url: url, limit: limit, timeout: timeout)
    let seconds = max(0.001, timeout.seconds)
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: seconds)
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil  // ETags and max-age are this source's job, not URLSession's
    configuration.httpCookieStorage = nil
    let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
    let task = session.dataTask(with: request)
    session.finishTasksAndInvalidate()  // releases the delegate once the task ends
    return await withCheckedContinuation { continuation in
      download.state.withLock { $0.continuation = continuation }
      DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak task] in
        // Finish first: the cancel's own completion (URL error -999) must not win the race.
        download.finish(.failure(.timedOut(after: timeout)))
        task?.cancel()
      }
      task.resume()
    }
  }

  /// Resumes the caller once: the first of the answer, the size limit and the deadline wins.
  private func finish(_ result: Result<ConfigResponse, ConfigFetchFailure>) {
    state.withLock { $0.continuation.take() }?.resume(returning: result)
  }

  /// Whether `other` has the scheme, host and port of `url` (the port a scheme implies included).
  static func sameOrigin(_ url: URL, _ other: URL) -> Bool {
    func origin(_ url: URL) -> (String, String, Int?) {
      let scheme = url.scheme?.lowercased() ?? ""
      let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
      return (scheme, url.host?.lowercased() ?? "", port)
    }
    return origin(url) == origin(other)
  }

  /// Follows a redirect only within the configuration URL's origin: the configuration in use is
  /// then always one `url` names, and the source reports no URL it did not fetch.
  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    guard let target = request.url, Self.sameOrigin(url, target) else {
      finish(.failure(.redirectRefused(to: request.url?.absoluteString ?? "an unreadable URL")))
      completionHandler(nil)
      task.cancel()
      return
    }
    completionHandler(request)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    // A declared length over the limit stops the download at its first bytes; a body without
    // one (or with a false one) is counted.
    let declared = dataTask.response?.expectedContentLength ?? -1
    let over = state.withLock { state -> Bool in
      state.body.append(data)
      return state.body.count > limit || declared > Int64(limit)
    }
    if over {
      finish(.failure(.tooLarge(limit: limit)))
      dataTask.cancel()
    }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    // URLSession's idle timeout may fire before the deadline on a loaded machine: a time-out too.
    if let error = error as? URLError, error.code == .timedOut {
      finish(.failure(.timedOut(after: timeout)))
      return
    }
    let body = state.withLock { $0.body }
    guard let response = task.response as? HTTPURLResponse else {
      finish(.failure(.transport(error.map(Self.describe) ?? "no HTTP response")))
      return
    }
    let expected = response.expectedContentLength
    // A connection closed early: an error on some platforms, a short body on others. The declared
    // length counts the bytes on the wire: an encoded (gzip) body is checked by its decoder, its
    // own trailer holding the length and CRC, not against the decoded body's length.
    let encoding = response.value(forHTTPHeaderField: "Content-Encoding")?
      .trimmingCharacters(in: .whitespaces).lowercased()
    let encoded = encoding.map { !$0.isEmpty && $0 != "identity" } ?? false
    if !encoded && expected >= 0 && Int64(body.count) < expected {
      finish(.failure(.truncated(expected: Int(expected), received: body.count)))
      return
    }
    if let error {
      finish(.failure(.transport(Self.describe(error))))
      return
    }
    if expected > Int64(limit) {
      finish(.failure(.tooLarge(limit: limit)))
      return
    }
    finish(
      .success(
        ConfigResponse(
          status: response.statusCode, etag: response.value(forHTTPHeaderField: "ETag"),
          cacheControl: response.value(forHTTPHeaderField: "Cache-Control"), body: body)))
  }

  private static func describe(_ error: any Error) -> String {
    guard let error = error as? URLError else { return "\(error)" }
    return "URL error \(error.code.rawValue) (\(error.localizedDescription))"
  }
}
