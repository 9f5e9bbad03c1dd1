import Foundation
import MediateCLI

exit(
  MediateCLI.run(
    Array(CommandLine.arguments.dropFirst()), registry: BuiltInNetworks.registry(), output: .standard))
