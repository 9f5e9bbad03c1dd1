#!/usr/bin/env python3
"""Self-test of check_dependency_closure.py on fixture package descriptions.

`fixtures/dependency-closure/openssl.json` is a package whose reward ledger reaches OpenSSL
through the callback verifiers (the tree before the replay guard moved out); `clean.json` is the
same package with the replay guard in its own target. Run: `python3 scripts/test_check_dependency_closure.py`.
"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check_dependency_closure.py"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "dependency-closure"


def check(*arguments: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *arguments], input=stdin, capture_output=True,
                          text=True, check=False)


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


class DependencyClosureTests(unittest.TestCase):
    def test_a_clean_closure_passes(self):
        result = check("--describe-json", str(FIXTURES / "clean.json"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("MediationKit, MediationKitUI, MediationKitTesting, RewardLedgerSQLite, MediationKitRemoteConfig reach none of "
                      "COpenSSLCrypto", result.stdout)

    def test_a_product_reaching_openssl_fails_naming_the_path(self):
        result = check("--describe-json", str(FIXTURES / "openssl.json"))
        self.assertEqual(result.returncode, 1)
        self.assertEqual(
            result.stderr.strip(),
            "error: RewardLedgerSQLite: RewardLedgerSQLite -> RewardCallbacks -> RewardCrypto -> COpenSSLCrypto "
            "(needs OpenSSL, which the iOS SDK lacks)")

    def test_a_target_depending_on_openssl_directly_is_caught_in_any_product(self):
        description = fixture("clean.json")
        for target in description["targets"]:
            if target["name"] == "MediationKitTesting":
                target["target_dependencies"] = ["MediationKit", "RewardCrypto"]
        result = check("--describe-json", "-", stdin=json.dumps(description))
        self.assertEqual(result.returncode, 1)
        self.assertIn("MediationKitTesting: MediationKitTesting -> RewardCrypto -> COpenSSLCrypto", result.stderr)

    def test_a_missing_product_is_reported_not_passed(self):
        description = fixture("clean.json")
        description["products"] = [p for p in description["products"] if p["name"] != "MediationKitUI"]
        result = check("--describe-json", "-", stdin=json.dumps(description))
        self.assertEqual(result.returncode, 1)
        self.assertIn("MediationKitUI: the package declares no such product", result.stderr)
        self.assertIn("--products", result.stderr)

    def test_the_products_to_check_can_be_listed(self):
        result = check("--describe-json", str(FIXTURES / "openssl.json"),
                       "--products", "MediationKit,MediationKitTesting")
        self.assertEqual(result.returncode, 0, result.stderr)
        result = check("--describe-json", str(FIXTURES / "openssl.json"), "--products", "RewardCallbacks")
        self.assertEqual(result.returncode, 1)
        self.assertIn("RewardCallbacks: RewardCallbacks -> RewardCrypto -> COpenSSLCrypto", result.stderr)

    def test_a_product_whose_name_differs_from_its_target_names_both(self):
        description = fixture("openssl.json")
        description["products"].append({"name": "Ledger", "targets": ["RewardLedgerSQLite"], "type": {}})
        result = check("--describe-json", "-", "--products", "Ledger", stdin=json.dumps(description))
        self.assertEqual(result.returncode, 1)
        self.assertIn("Ledger: Ledger -> RewardLedgerSQLite -> RewardCallbacks", result.stderr)

    def manifest_check(self, dependencies: list) -> subprocess.CompletedProcess:
        manifest = {"targets": [{"name": "MediationKit", "dependencies": []},
                                {"name": "RewardCrypto", "dependencies": dependencies}]}
        with tempfile.NamedTemporaryFile("w", suffix=".json") as file:
            json.dump(manifest, file)
            file.flush()
            return check("--describe-json", str(FIXTURES / "clean.json"), "--dump-json", file.name)

    def test_openssl_conditioned_to_linux_passes(self):
        result = self.manifest_check([{"target": ["COpenSSLCrypto", {"platformNames": ["linux"]}]}])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("COpenSSLCrypto only on Linux", result.stdout)

    def test_openssl_on_every_platform_fails_naming_the_target(self):
        result = self.manifest_check([{"byName": ["COpenSSLCrypto", None]}])
        self.assertEqual(result.returncode, 1)
        self.assertIn("RewardCrypto -> COpenSSLCrypto on every platform; expected "
                      ".target(name: \"COpenSSLCrypto\", condition: .when(platforms: [.linux]))", result.stderr)

    def test_openssl_on_an_apple_platform_fails(self):
        result = self.manifest_check([{"target": ["COpenSSLCrypto", {"platformNames": ["linux", "macos"]}]}])
        self.assertEqual(result.returncode, 1)
        self.assertIn("RewardCrypto -> COpenSSLCrypto on macos; expected Linux only", result.stderr)

    def test_a_manifest_without_targets_is_bad_input(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json") as file:
            file.write('{"name": "x"}')
            file.flush()
            result = check("--describe-json", str(FIXTURES / "clean.json"), "--dump-json", file.name)
        self.assertEqual(result.returncode, 2)
        self.assertIn("expected `swift package dump-package` output", result.stderr)

    def test_bad_input_says_what_was_expected(self):
        result = check("--describe-json", "-", stdin="warning: something\n{")
        self.assertEqual(result.returncode, 2)
        self.assertIn("standard input is not JSON", result.stderr)
        self.assertIn("expected `swift package describe --type json` output", result.stderr)
        result = check("--describe-json", "-", stdin='{"name": "x"}')
        self.assertEqual(result.returncode, 2)
        self.assertIn("has no 'products' and 'targets' lists", result.stderr)
        result = check("--describe-json", str(FIXTURES / "nope.json"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("cannot read", result.stderr)
        self.assertIn("nope.json", result.stderr)


if __name__ == "__main__":
    unittest.main()
