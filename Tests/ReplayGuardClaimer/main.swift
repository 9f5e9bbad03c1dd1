import Foundation
import ReplayGuardPostgres

// A test helper: one server process of a fleet sharing a PostgreSQL replay guard. It connects,
// waits for a line on standard input (so every process of a test starts claiming at once), then
// claims the ids PREFIX-0 … PREFIX-(ROUNDS-1) for MAX in order and prints `won N` for each round
// it won. Exit 0, or 74 with the error on standard error.
//
//   ReplayGuardClaimer URL TABLE PREFIX ROUNDS

let arguments = CommandLine.arguments
guard arguments.count == 5, let rounds = Int(arguments[4]) else {
  FileHandle.standardError.write(Data("usage: ReplayGuardClaimer URL TABLE PREFIX ROUNDS\n".utf8))
  exit(64)
}
do {
  let replayGuard = try PostgresReplayGuard(url: arguments[1], table: arguments[2], maximumConnections: 1)
  _ = readLine()
  var won: [String] = []
  for round in 0..<rounds where try replayGuard.claim("\(arguments[3])-\(round)", network: .max) {
    won.append("won \(round)")
  }
  print(won.joined(separator: "\n"))
} catch {
  FileHandle.standardError.write(Data("error: \(error)\n".utf8))
  exit(74)
}
