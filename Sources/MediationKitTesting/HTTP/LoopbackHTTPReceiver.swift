import Dispatch
import Foundation
import MediationKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#else
  #error("LoopbackHTTPReceiver needs Glibc (Linux) or Darwin (Apple platforms) sockets")
#endif

/// A tiny HTTP server on 127.0.0.1 for tests: it records each request's head and answers from a
/// script — a status code, a full answer (headers, a body, a truncated body), or no answer at all
/// (to make the client time out).
///
/// It binds port 0 (the system picks a free port; read ``port``), runs one thread that multiplexes
/// the listening socket and every connection with `poll`, and closes each connection after its
/// answer (`Connection: close`). ``stop()`` (or `deinit`) closes every socket and joins the thread,
/// so nothing outlives the receiver.
/// ```swift
/// let receiver = try LoopbackHTTPReceiver(script: [.status(500), .status(500)])  // then 200s
/// // point a client at "\(receiver.baseURL)/rewards?…"
/// #expect(receiver.waitForRequests(3, timeout: .seconds(10)))
/// receiver.stop()
/// ```
public final class LoopbackHTTPReceiver: Sendable {
  /// How the receiver answers one request.
  public enum Response: Sendable, Equatable {
    /// An empty response with this status code.
    case status(Int)
    /// No answer: the connection stays open, unanswered, until the client gives up.
    case silent
    /// A full answer: the status, these header fields (`Content-Length` and `Connection: close`
    /// are added) and this body. `declaredLength`, when given, is the `Content-Length` sent
    /// instead of the body's length: a larger one makes a truncated answer (the connection closes
    /// after the body).
    case answer(status: Int, headers: [String: String] = [:], body: [UInt8] = [], declaredLength: Int? = nil)
  }

  /// A failure to start: which system call failed and why.
  public struct StartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failed call and its `errno` text.
    public var message: String
    public var description: String { message }
  }

  fileprivate struct State {
    var script: [Response]
    var requests: [HTTPRequestHead] = []
    var malformed: [String] = []
    var waiters: [(count: Int, semaphore: DispatchSemaphore)] = []
    var stopped = false
  }

  /// The port the receiver listens on, on 127.0.0.1.
  public let port: UInt16
  private let state: Locked<State>
  /// The write end of the wake pipe: a byte written makes the loop stop.
  private let wakeWrite: Int32
  private let finished = DispatchSemaphore(value: 0)

  /// The longest request head accepted; a longer one is answered `431` and closed.
  public static let maxHeadLength = 64 * 1024

  /// Starts a receiver on 127.0.0.1 and an ephemeral port.
  ///
  /// - Parameters:
  ///   - script: How to answer the first requests, in order.
  ///   - fallback: How to answer every request after the script ran out (200 by default).
  /// - Throws: ``StartError`` when a socket cannot be made, bound or listened on.
  public init(script: [Response] = [], fallback: Response = .status(200)) throws(StartError) {
    let fd = Self.makeStreamSocket()
    guard fd >= 0 else { throw StartError(message: "socket: \(Self.errnoText())") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0, listen(fd, 64) == 0 else {
      let error = StartError(message: "bind/listen on 127.0.0.1: \(Self.errnoText())")
      close(fd)
      throw error
    }
    var actual = sockaddr_in()
    var actualLength = length
    let named = withUnsafeMutablePointer(to: &actual) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
    }
    var pipeFDs: [Int32] = [-1, -1]
    guard named == 0, pipe(&pipeFDs) == 0 else {
      let error = StartError(message: "getsockname/pipe: \(Self.errnoText())")
      close(fd)
      throw error
    }
    guard Self.configureSocket(fd), Self.configure(pipeFDs[0]), Self.configure(pipeFDs[1]) else {
      let error = StartError(message: "fcntl/setsockopt: \(Self.errnoText())")
      close(fd)
      close(pipeFDs[0])
      close(pipeFDs[1])
      throw error
    }
    self.port = UInt16(bigEndian: actual.sin_port)
    self.wakeWrite = pipeFDs[1]
    let state = Locked(State(script: script))
    self.state = state
    // The thread holds the loop, not the receiver, so `deinit` can stop and join it.
    let loop = Loop(state: state, listenFD: fd, wakeRead: pipeFDs[0], fallback: fallback)
    let finished = self.finished
    let thread = Thread {
      loop.run()
      finished.signal()
    }
    thread.name = "LoopbackHTTPReceiver:\(port)"
    thread.start()
  }

  deinit {
    stop()
  }

  /// `http://127.0.0.1:PORT`, to build request URLs from.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Every well-formed request received so far, oldest first.
  public var requests: [HTTPRequestHead] { state.withLock { $0.requests } }

  /// Why each malformed request was rejected (answered `400` or `431`), oldest first.
  public var malformedRequests: [String] { state.withLock { $0.malformed } }

  /// Waits until at least `count` well-formed requests arrived, or `timeout` passed.
  ///
  /// - Returns: Whether `count` requests arrived in time.
  public func waitForRequests(_ count: Int, timeout: Duration) -> Bool {
    let semaphore = DispatchSemaphore(value: 0)
    let arrived = state.withLock { state -> Bool in
      if state.requests.count >= count { return true }
      state.waiters.append((count, semaphore))
      return false
    }
    if arrived { return true }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    _ = semaphore.wait(timeout: .now() + max(0, seconds))
    return state.withLock { state in
      state.waiters.removeAll { $0.semaphore === semaphore }
      return state.requests.count >= count
    }
  }

  /// Stops listening, closes every connection (unanswered ones too) and joins the thread.
  /// Idempotent.
  public func stop() {
    let first = state.withLock { state -> Bool in
      defer { state.stopped = true }
      return !state.stopped
    }
    guard first else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
    finished.wait()
    close(wakeWrite)
  }

  // MARK: The loop (its own thread)

  fileprivate struct Loop: Sendable {
    let state: Locked<State>
    let listenFD: Int32
    /// The read end of the wake pipe.
    let wakeRead: Int32
    let fallback: Response
  }
}

extension LoopbackHTTPReceiver.Loop {
  private struct Connection {
    let fd: Int32
    var buffer: [UInt8] = []
    /// Answered `silent`: waiting for the client to close.
    var silent = false
  }

  func run() {
    var connections: [Connection] = []
    defer {
      for connection in connections { close(connection.fd) }
      close(listenFD)
      close(wakeRead)
    }
    while true {
      var fds = [
        pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      fds += connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
      let ready = poll(&fds, nfds_t(fds.count), -1)
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      if fds[1].revents != 0 || state.withLock({ $0.stopped }) { return }
      // Connections first (their indices match `fds[2...]`), then new ones.
      var kept: [Connection] = []
      for (index, var connection) in connections.enumerated() {
        if fds[index + 2].revents == 0 || service(&connection) { kept.append(connection) }
      }
      connections = kept
      if fds[0].revents & Int16(POLLIN) != 0 {
        while true {
          let client = accept(listenFD, nil, nil)
          guard client >= 0 else { break }
          guard LoopbackHTTPReceiver.configureSocket(client) else {
            close(client)
            continue
          }
          connections.append(Connection(fd: client))
        }
      }
    }
  }

  /// Reads what arrived on `connection` and answers a complete request head; `false` once the
  /// connection is closed.
  private func service(_ connection: inout Connection) -> Bool {
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = chunk.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
    if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return true }
    if count <= 0 {
      close(connection.fd)
      return false
    }
    if connection.silent { return true }  // the unanswered client sent more: ignore it
    connection.buffer += chunk[..<count]
    guard let end = Self.headEnd(connection.buffer) else {
      if connection.buffer.count > LoopbackHTTPReceiver.maxHeadLength {
        reject(
          connection.fd, status: 431,
          reason: "request head longer than \(LoopbackHTTPReceiver.maxHeadLength) bytes")
        return false
      }
      return true
    }
    let head: HTTPRequestHead
    do {
      head = try HTTPRequestHead.parse(connection.buffer[..<end])
    } catch {
      reject(connection.fd, status: 400, reason: error.description)
      return false
    }
    let (response, satisfied) = state.withLock {
      state -> (LoopbackHTTPReceiver.Response, [DispatchSemaphore]) in
      let response = state.script.isEmpty ? fallback : state.script.removeFirst()
      state.requests.append(head)
      let count = state.requests.count
      let satisfied = state.waiters.filter { $0.count <= count }.map(\.semaphore)
      state.waiters.removeAll { $0.count <= count }
      return (response, satisfied)
    }
    for semaphore in satisfied { semaphore.signal() }
    switch response {
    case .status(let status):
      Self.answer(connection.fd, status: status)
      close(connection.fd)
      return false
    case .answer(let status, let headers, let body, let declaredLength):
      Self.answer(connection.fd, status: status, headers: headers, body: body, declaredLength: declaredLength)
      close(connection.fd)
      return false
    case .silent:
      connection.silent = true
      connection.buffer = []
      return true
    }
  }

  private func reject(_ fd: Int32, status: Int, reason: String) {
    state.withLock { $0.malformed.append(reason) }
    Self.answer(fd, status: status)
    close(fd)
  }

  /// The index just past the head's last line (before the blank line), if the head is complete.
  static func headEnd(_ buffer: [UInt8]) -> Int? {
    guard buffer.count >= 2 else { return nil }
    for index in 1..<buffer.count where buffer[index] == 0x0A {
      if buffer[index - 1] == 0x0A { return index - 1 }
      if index >= 3, buffer[index - 1] == 0x0D, buffer[index - 2] == 0x0A, buffer[index - 3] == 0x0D {
        return index - 3
      }
    }
    return nil
  }

  private static func answer(
    _ fd: Int32, status: Int, headers: [String: String] = [:], body: [UInt8] = [], declaredLength: Int? = nil
  ) {
    let reason =
      switch status {
      case 200: "OK"
      case 204: "No Content"
      case 400: "Bad Request"
      case 404: "Not Found"
      case 431: "Request Header Fields Too Large"
      case 304: "Not Modified"
      case 500: "Internal Server Error"
      case 503: "Service Unavailable"
      default: "Status"
      }
    var head = "HTTP/1.1 \(status) \(reason)\r\n"
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
    head += "Content-Length: \(declaredLength ?? body.count)\r\nConnection: close\r\n\r\n"
    let bytes = Array(head.utf8) + body
    var sent = 0
    while sent < bytes.count {
      let result = bytes[sent...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, LoopbackHTTPReceiver.sendFlags)
      }
      if result < 0 && errno == EINTR { continue }
      if result < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
        var pending = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        if poll(&pending, 1, 1000) <= 0 { return }
        continue
      }
      guard result > 0 else { return }
      sent += result
    }
  }

}

extension LoopbackHTTPReceiver {
  fileprivate static func errnoText() -> String { String(cString: strerror(errno)) }

  /// Makes `fd` non-blocking and closed on `exec` (so a test's child process inherits no socket).
  fileprivate static func configure(_ fd: Int32) -> Bool {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) == 0
  }

  /// ``configure(_:)`` for a socket, which also must not raise `SIGPIPE` (killing the test
  /// process) when the client has gone before its answer is sent.
  fileprivate static func configureSocket(_ fd: Int32) -> Bool {
    configure(fd) && suppressSIGPIPE(fd)
  }
}

// MARK: Platform spellings
//
// Glibc imports `SOCK_STREAM` as an enum case (`__socket_type`) and has `SOCK_CLOEXEC` and
// `MSG_NOSIGNAL`; Darwin imports `SOCK_STREAM` as an `Int32` and has neither, but has the
// per-socket `SO_NOSIGPIPE` option instead.
extension LoopbackHTTPReceiver {
  #if canImport(Glibc)
    /// A TCP socket, closed on `exec` from the start.
    fileprivate static func makeStreamSocket() -> Int32 {
      socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    /// Every `send` says not to raise `SIGPIPE`: Linux has no per-socket option for it.
    fileprivate static var sendFlags: Int32 { Int32(MSG_NOSIGNAL) }

    fileprivate static func suppressSIGPIPE(_ fd: Int32) -> Bool { true }
  #elseif canImport(Darwin)
    /// A TCP socket; `configureSocket` sets `FD_CLOEXEC` right after (Darwin has no `SOCK_CLOEXEC`).
    fileprivate static func makeStreamSocket() -> Int32 {
      socket(AF_INET, SOCK_STREAM, 0)
    }

    /// No flags: `SIGPIPE` is off per socket (``suppressSIGPIPE(_:)``).
    fileprivate static var sendFlags: Int32 { 0 }

    /// Sets `SO_NOSIGPIPE` (Darwin has no `MSG_NOSIGNAL`); set on every accepted socket too.
    fileprivate static func suppressSIGPIPE(_ fd: Int32) -> Bool {
      var on: Int32 = 1
      return setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
  #endif
}
