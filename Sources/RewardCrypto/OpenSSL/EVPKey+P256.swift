// The OpenSSL backend: where the platform has no CryptoKit (Linux).
#if !canImport(CryptoKit) && canImport(COpenSSLCrypto)
  import COpenSSLCrypto

  extension EVPKey {
    /// OpenSSL's name of P-256 in key parameters.
    static let p256GroupName = "prime256v1"

    /// A fresh random P-256 key pair from OpenSSL's default random generator.
    static func generateP256() throws(CryptoError) -> EVPKey {
      guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
        throw .openSSL("could not create an EC key-generation context")
      }
      defer { EVP_PKEY_CTX_free(context) }
      var key: OpaquePointer?
      guard EVP_PKEY_keygen_init(context) == 1,
        EVP_PKEY_CTX_set_group_name(context, p256GroupName) == 1,
        EVP_PKEY_generate(context, &key) == 1, let key
      else { throw .openSSL("could not generate a P-256 key") }
      return EVPKey(key)
    }

    /// A P-256 key pair from its private scalar (32 bytes, big-endian, in [1, n-1]); the public point
    /// is computed from it.
    static func p256(privateScalar raw: [UInt8]) throws(CryptoError) -> EVPKey {
      guard raw.count == 32 else {
        throw CryptoError("a P-256 private scalar is 32 bytes, big-endian; got \(raw.count) bytes")
      }
      guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
        throw .openSSL("could not load the P-256 group")
      }
      defer { EC_GROUP_free(group) }
      guard let scalar = BN_bin2bn(raw, 32, nil) else { throw .openSSL("could not read the private scalar") }
      defer { BN_clear_free(scalar) }
      guard BN_is_zero(scalar) == 0, let order = EC_GROUP_get0_order(group), BN_cmp(scalar, order) < 0 else {
        throw CryptoError("the private scalar is 0 or not below the P-256 group order; expected 1 ≤ d < n")
      }
      guard let point = EC_POINT_new(group) else { throw .openSSL("could not allocate an EC point") }
      defer { EC_POINT_free(point) }
      var encoded = [UInt8](repeating: 0, count: 65)
      guard EC_POINT_mul(group, point, scalar, nil, nil, nil) == 1,
        EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &encoded, 65, nil) == 65
      else { throw .openSSL("could not compute the public point of the private scalar") }
      return try fromParameters(
        selection: copenssl_select_keypair, what: "P-256 key pair", point: encoded, scalar: scalar)
    }

    /// A P-256 public key from its uncompressed point `04 ‖ X ‖ Y` (65 bytes); OpenSSL checks that the
    /// point is on the curve.
    static func p256(publicPoint: [UInt8]) throws(CryptoError) -> EVPKey {
      guard publicPoint.count == 65, publicPoint.first == 0x04 else {
        throw CryptoError(
          "a P-256 public point is 65 bytes starting with 04 (uncompressed X ‖ Y); got \(publicPoint.count) bytes"
            + (publicPoint.first.map { String(format: " starting with %02x", $0) } ?? ""))
      }
      return try fromParameters(
        selection: copenssl_select_public_key, what: "P-256 public key", point: publicPoint, scalar: nil)
    }

    /// Builds an EC key on P-256 from its public point and, for a key pair, its private scalar.
    ///
    /// `OSSL_PARAM_BLD` keeps pointers to the values pushed until `OSSL_PARAM_BLD_to_param` copies
    /// them, so they stay alive (`with…` scopes) until then; it never copies the parameter names, so
    /// those are OpenSSL's own literals (from the shim).
    private static func fromParameters(
      selection: Int32, what: String, point: [UInt8], scalar: OpaquePointer?
    ) throws(CryptoError) -> EVPKey {
      let built: UnsafeMutablePointer<OSSL_PARAM>? = p256GroupName.withCString { groupName in
        point.withUnsafeBytes { pointBytes in
          guard let builder = OSSL_PARAM_BLD_new() else { return nil }
          defer { OSSL_PARAM_BLD_free(builder) }
          guard
            OSSL_PARAM_BLD_push_utf8_string(builder, copenssl_param_group_name(), groupName, 0) == 1,
            OSSL_PARAM_BLD_push_octet_string(
              builder, copenssl_param_public_key(), pointBytes.baseAddress, pointBytes.count) == 1,
            scalar.map({ OSSL_PARAM_BLD_push_BN(builder, copenssl_param_private_key(), $0) == 1 }) ?? true
          else { return nil }
          return OSSL_PARAM_BLD_to_param(builder)
        }
      }
      guard let parameters = built else { throw .openSSL("could not build the parameters of a \(what)") }
      defer { OSSL_PARAM_free(parameters) }
      guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
        throw .openSSL("could not create an EC key context")
      }
      defer { EVP_PKEY_CTX_free(context) }
      var key: OpaquePointer?
      guard EVP_PKEY_fromdata_init(context) == 1,
        EVP_PKEY_fromdata(context, &key, selection, parameters) == 1, let key
      else { throw .openSSL("OpenSSL refused the \(what) (is the point on the curve?)") }
      return EVPKey(key)
    }

    // MARK: ECDSA with SHA-256

    /// A DER ECDSA signature over SHA-256 of `message`, from a fresh signing context.
    func signSHA256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
      guard let context = EVP_MD_CTX_new() else { throw .openSSL("could not create a signing context") }
      defer { EVP_MD_CTX_free(context) }
      guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
        throw .openSSL("could not start an ECDSA-SHA256 signature")
      }
      return try message.withUnsafeBufferPointer { input throws(CryptoError) -> [UInt8] in
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) == 1 else {
          throw .openSSL("could not size the ECDSA-SHA256 signature")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count) == 1 else {
          throw .openSSL("could not compute the ECDSA-SHA256 signature")
        }
        return Array(signature.prefix(length))
      }
    }

    /// Whether `signature` (DER) is a valid ECDSA signature over SHA-256 of `message`.
    func verifySHA256(_ signature: [UInt8], message: [UInt8]) -> Bool {
      defer { OpenSSLErrors.clear() }
      guard !signature.isEmpty, let context = EVP_MD_CTX_new() else { return false }
      defer { EVP_MD_CTX_free(context) }
      guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
      return signature.withUnsafeBufferPointer { signatureBytes in
        message.withUnsafeBufferPointer { messageBytes in
          EVP_DigestVerify(
            context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress,
            messageBytes.count) == 1
        }
      }
    }
  }
#endif
