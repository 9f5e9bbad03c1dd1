// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "MediationKit",
  products: [
    .library(name: "MediationKit", targets: ["MediationKit"]),
    .library(name: "MediationKitTesting", targets: ["MediationKitTesting"]),
    .library(name: "EmpowerSim", targets: ["EmpowerSim"]),
    .library(name: "MaxSim", targets: ["MaxSim"]),
    .library(name: "GoogleSim", targets: ["GoogleSim"]),
    .library(name: "S2SDelivery", targets: ["S2SDelivery"]),
    .library(name: "MediateCLI", targets: ["MediateCLI"]),
    .executable(name: "mediate", targets: ["mediate"]),
  ],
  targets: [
    .target(name: "MediationKit"),
    .target(name: "MediationKitTesting", dependencies: ["MediationKit"]),
    .target(name: "EmpowerSim", dependencies: ["MediationKit"], path: "Sources/Adapters/EmpowerSim"),
    .target(name: "MaxSim", dependencies: ["MediationKit"], path: "Sources/Adapters/MaxSim"),
    .target(name: "GoogleSim", dependencies: ["MediationKit"], path: "Sources/Adapters/GoogleSim"),
    .target(name: "S2SDelivery", dependencies: ["MediationKit"], path: "Sources/Adapters/S2SDelivery"),
    .target(name: "MediateCLI", dependencies: ["MediationKit", "EmpowerSim", "MaxSim", "GoogleSim"]),
    .executableTarget(name: "mediate", dependencies: ["MediateCLI"]),
    .testTarget(name: "MediationKitTests", dependencies: ["MediationKit", "MediationKitTesting"]),
    .testTarget(
      name: "EmpowerSimTests", dependencies: ["EmpowerSim", "MediationKit", "MediationKitTesting"]),
    .testTarget(name: "MaxSimTests", dependencies: ["MaxSim", "MediationKit", "MediationKitTesting"]),
    .testTarget(name: "GoogleSimTests", dependencies: ["GoogleSim", "MediationKit", "MediationKitTesting"]),
    .testTarget(
      name: "S2SDeliveryTests", dependencies: ["S2SDelivery", "MediationKit", "MediationKitTesting"]),
    .testTarget(
      name: "MediateCLITests", dependencies: ["MediateCLI", "MediationKit", "MediationKitTesting"]),
  ],
  swiftLanguageModes: [.v6]
)
