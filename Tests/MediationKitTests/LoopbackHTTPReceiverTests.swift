import Foundation
import MediationKitTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Loopback HTTP receiver")
struct LoopbackHTTPReceiverTests {
  @Test func answersAndRecordsAGet() throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    #expect(receiver.port > 0)
    #expect(receiver.baseURL == "http://127.0.0.1:\(receiver.port)")
    let answer = try RawClient.exchange(
      port: receiver.port, "GET /cb?user=a%26b&n=1 HTTP/1.1\r\nHost: x\r\nUser-Agent:  t/1 \r\n\r\n")
    #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
    #expect(answer.contains("Connection: close"))
    let request = try #require(receiver.requests.first)
    #expect(request.method == "GET")
    #expect(request.target == "/cb?user=a%26b&n=1")
    #expect(request.path == "/cb")
    #expect(request.query == "user=a%26b&n=1")
    #expect(request.version == "HTTP/1.1")
    #expect(request.headers == ["host": "x", "user-agent": "t/1"])
  }

  @Test func followsItsScriptThenTheFallback() throws {
    let receiver = try LoopbackHTTPReceiver(script: [.status(500), .status(404)], fallback: .status(204))
    defer { receiver.stop() }
    var statuses: [String] = []
    for index in 0..<4 {
      let answer = try RawClient.exchange(port: receiver.port, "GET /\(index) HTTP/1.1\r\n\r\n")
      statuses.append(String(answer.prefix(12)))
    }
    #expect(statuses == ["HTTP/1.1 500", "HTTP/1.1 404", "HTTP/1.1 204", "HTTP/1.1 204"])
    #expect(receiver.requests.map(\.target) == ["/0", "/1", "/2", "/3"])
  }

  @Test func aHeadSentInPiecesIsAssembled() throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let answer = try RawClient.exchange(
      port: receiver.port, pieces: ["GET /sp", "lit HTTP/1.1\r\nHo", "st: y\r\n\r\n"])
    #expect(answer.hasPrefix("HTTP/1.1 200"))
    #expect(receiver.requests.map(\.target) == ["/split"])
  }

  @Test(arguments: [
    "NOT A REQUEST LINE AT ALL\r\n\r\n", "GET /x\r\n\r\n", "get /x HTTP/1.1\r\n\r\n",
    "GET /x HTTP/1.1\r\nno colon\r\n\r\n",
  ])
  func malformedRequestsGetFourHundredAndAreNotRecorded(request: String) throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let answer = try RawClient.exchange(port: receiver.port, request)
    #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request"))
    #expect(receiver.requests.isEmpty)
    #expect(receiver.malformedRequests.count == 1)
  }

  @Test func anOversizeHeadGetsFourThirtyOne() throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    let long = "GET /" + String(repeating: "a", count: LoopbackHTTPReceiver.maxHeadLength + 10)
    let answer = try RawClient.exchange(port: receiver.port, long)
    #expect(answer.hasPrefix("HTTP/1.1 431"))
    #expect(receiver.malformedRequests == ["request head longer than 65536 bytes"])
  }

  @Test func aSilentAnswerHoldsTheConnectionUntilStopped() throws {
    let receiver = try LoopbackHTTPReceiver(script: [.silent])
    let client = try RawClient(port: receiver.port)
    try client.send("GET /quiet HTTP/1.1\r\n\r\n")
    #expect(receiver.waitForRequests(1, timeout: .seconds(10)))
    #expect(client.readReady(timeoutMilliseconds: 100) == false)  // recorded, yet unanswered
    receiver.stop()
    #expect(client.readReady(timeoutMilliseconds: 10_000))
    #expect(client.readAll() == "")  // closed without an answer
  }

  @Test func afterStopNothingListens() throws {
    let receiver = try LoopbackHTTPReceiver()
    let port = receiver.port
    receiver.stop()
    receiver.stop()  // idempotent
    #expect(throws: RawClient.Failure.self) { try RawClient(port: port) }
  }

  @Test func droppingTheReceiverStopsItToo() throws {
    var port: UInt16 = 0
    do {
      let receiver = try LoopbackHTTPReceiver(script: [.silent])
      port = receiver.port
      let client = try RawClient(port: port)
      try client.send("GET /held HTTP/1.1\r\n\r\n")
      #expect(receiver.waitForRequests(1, timeout: .seconds(10)))
    }
    #expect(throws: RawClient.Failure.self) { try RawClient(port: port) }
  }

  @Test func waitingForRequestsTimesOutWhenNoneCome() throws {
    let receiver = try LoopbackHTTPReceiver()
    defer { receiver.stop() }
    #expect(receiver.waitForRequests(0, timeout: .zero))
    #expect(receiver.waitForRequests(1, timeout: .milliseconds(20)) == false)
  }

  @Test func parsesHeadsAndSaysWhatIsWrong() throws {
    let head = try HTTPRequestHead.parse(Array("GET /a?b HTTP/1.0\nX-One: 1\nx-one: 2".utf8))
    #expect(
      head == HTTPRequestHead(method: "GET", target: "/a?b", version: "HTTP/1.0", headers: ["x-one": "2"]))
    #expect(head.query == "b")
    #expect(HTTPRequestHead(method: "GET", target: "/a", version: "HTTP/1.1").query == nil)
    #expect(throws: HTTPRequestHead.ParseError.badRequestLine("GET  HTTP/1.1")) {
      try HTTPRequestHead.parse(Array("GET  HTTP/1.1".utf8))
    }
    #expect(throws: HTTPRequestHead.ParseError.badHeaderLine(": v")) {
      try HTTPRequestHead.parse(Array("GET / HTTP/1.1\r\n: v".utf8))
    }
    #expect(throws: HTTPRequestHead.ParseError.notText) { try HTTPRequestHead.parse([0x47, 0xFF, 0x20]) }
    #expect(
      HTTPRequestHead.ParseError.badRequestLine("x").description
        == "request line must be 'METHOD TARGET HTTP/x.y', found \"x\"")
  }
}

/// A blocking TCP client on 127.0.0.1, for talking to the receiver byte by byte.
final class RawClient {
  struct Failure: Error { let message: String }

  let fd: Int32

  init(port: UInt16) throws {
    // Glibc imports SOCK_STREAM as an enum case and has SOCK_CLOEXEC; Darwin has an Int32 and no
    // SOCK_CLOEXEC (the test process does not exec, so the flag is only tidiness there).
    #if canImport(Glibc)
      fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw Failure(message: "socket") }
    #if !canImport(Glibc)
      var on: Int32 = 1
      guard setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
        close(fd)
        throw Failure(message: "setsockopt SO_NOSIGPIPE: \(String(cString: strerror(errno)))")
      }
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      throw Failure(message: "connect: \(String(cString: strerror(errno)))")
    }
  }

  deinit { close(fd) }

  func send(_ text: String) throws {
    let bytes = Array(text.utf8)
    var sent = 0
    while sent < bytes.count {
      let result = bytes[sent...].withUnsafeBytes {
        #if canImport(Glibc)
          Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        #else
          // No MSG_NOSIGNAL on Darwin: SO_NOSIGPIPE, set on the socket in `init`.
          Darwin.send(fd, $0.baseAddress, $0.count, 0)
        #endif
      }
      guard result > 0 else { throw Failure(message: "send") }
      sent += result
    }
  }

  /// Whether something (data or the end of the stream) can be read within the timeout.
  func readReady(timeoutMilliseconds: Int32) -> Bool {
    var pending = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&pending, 1, timeoutMilliseconds) > 0
  }

  /// Reads until the server closes the connection (each read waits at most 10 s).
  func readAll() -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while readReady(timeoutMilliseconds: 10_000) {
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  static func exchange(port: UInt16, _ request: String) throws -> String {
    try exchange(port: port, pieces: [request])
  }

  static func exchange(port: UInt16, pieces: [String]) throws -> String {
    let client = try RawClient(port: port)
    for piece in pieces { try client.send(piece) }
    return client.readAll()
  }
}
