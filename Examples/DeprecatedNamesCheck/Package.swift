// swift-tools-version:6.0
import PackageDescription

// Compiles code written against MediationKit 1.x's public names against this MediationKit: every
// deprecated alias must still resolve (warnings expected, errors not). CI builds it and fails on
// an error or on any warning other than a deprecation.
let package = Package(
  name: "DeprecatedNamesCheck",
  platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
  dependencies: [.package(name: "MediationKit", path: "../..")],
  targets: [
    .target(
      name: "DeprecatedNamesCheck",
      dependencies: [
        .product(name: "MediationKit", package: "MediationKit"),
        .product(name: "MediationKitTesting", package: "MediationKit"),
      ])
  ],
  swiftLanguageModes: [.v6]
)
