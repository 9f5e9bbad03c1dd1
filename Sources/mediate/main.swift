import Foundation
import MediateCLI

exit(
  MediateCLI.run(
    Array(CommandLine.arguments.dropFirst()), networks: BuiltInNetworks.registry(serverCallbacks:),
    output: .standard))
