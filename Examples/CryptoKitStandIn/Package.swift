// swift-tools-version:6.2
import PackageDescription

// RewardCrypto's CryptoKit branch, built and tested on Linux: against a stand-in `CryptoKit`
// module (StandIns/CryptoKit) with CryptoKit's signatures, which computes with OpenSSL's libcrypto.
// RewardCrypto, RewardCallbacks and their test targets are the root package's own folders, by
// path (symbolic links under Sources/ and Tests/), so the same key, digest and ECDSA vectors,
// Google's signed SSV callbacks and the openssl-CLI-signed callbacks run through the branch an
// Apple platform compiles. The stand-in's module for libcrypto has its own name, so RewardCrypto
// here sees no `COpenSSLCrypto` and has no OpenSSL code of its own.
let package = Package(
  name: "CryptoKitStandIn",
  platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
  targets: [
    .systemLibrary(
      name: "CStandInLibcrypto", path: "StandIns/CStandInLibcrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    .target(name: "CryptoKit", dependencies: ["CStandInLibcrypto"], path: "StandIns/CryptoKit"),
    .target(name: "RewardCrypto", dependencies: ["CryptoKit"]),
    .target(name: "RewardCallbacks", dependencies: ["RewardCrypto"]),
    .testTarget(name: "RewardCryptoTests", dependencies: ["RewardCrypto"]),
    .testTarget(name: "RewardCallbacksTests", dependencies: ["RewardCallbacks", "RewardCrypto"]),
  ],
  swiftLanguageModes: [.v6]
)
