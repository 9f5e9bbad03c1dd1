#!/usr/bin/env python3
"""Self-test of check_simulation_out_of_core.py on small trees written to a temporary directory,
and on the repository itself. Run: `python3 scripts/test_check_simulation_out_of_core.py`.
"""

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "check_simulation_out_of_core.py"

SIMULATION = """
public struct SimulatedQuote {}
public protocol SimulatedNetwork {}
public struct ServerCallbackRequest {}
public protocol ServerCallbackSender {}
"""
CLEAN_CORE = """
/// What an adapter is made with.
public struct AdapterEnvironment: Sendable {
  public var scheduler: Int
}
public struct MediatorOptions { public var wallClockMilliseconds: () -> Int64 }
"""


class SimulationOutOfCoreTests(unittest.TestCase):
    def run_check(self, core: str, simulation: str | None = SIMULATION, article: str = "") -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory)
            (root / "core" / "Doc.docc").mkdir(parents=True)
            (root / "core" / "Core.swift").write_text(core)
            (root / "core" / "Doc.docc" / "Article.md").write_text(article)
            arguments = ["--core", str(root / "core"), "--simulation", str(root / "simulation")]
            if simulation is not None:
                (root / "simulation").mkdir()
                (root / "simulation" / "Simulation.swift").write_text(simulation)
            return subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True,
                                  check=False)

    def test_a_clean_core_passes(self):
        result = self.run_check(CLEAN_CORE, article="Conform to `SimulatedNetwork`, from `MediationKitSimulation`.")
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_simulation_type_back_in_the_core_fails(self):
        result = self.run_check(CLEAN_CORE + "public protocol SimulatedNetwork {}\n")
        self.assertEqual(result.returncode, 1)
        self.assertIn("Core.swift:7: 'SimulatedNetwork' is simulation", result.stderr)

    def test_a_callback_sender_option_fails(self):
        result = self.run_check(CLEAN_CORE + "extension MediatorOptions { var serverCallbacks: Int { 0 } }\n")
        self.assertEqual(result.returncode, 1)
        self.assertIn("'serverCallbacks' in the core", result.stderr)

    def test_a_wall_clock_in_the_adapter_environment_fails(self):
        core = CLEAN_CORE.replace("public var scheduler: Int", "public var scheduler: Int\n  public var wallClockMilliseconds: () -> Int64")
        result = self.run_check(core)
        self.assertEqual(result.returncode, 1)
        self.assertIn("AdapterEnvironment carries 'wallClockMilliseconds'", result.stderr)

    def test_a_docc_link_to_a_simulation_symbol_fails(self):
        result = self.run_check(CLEAN_CORE, article="- ``ServerCallbackSender``\n")
        self.assertEqual(result.returncode, 1)
        self.assertIn("Article.md:1: 'ServerCallbackSender'", result.stderr)

    def test_a_missing_simulation_target_fails(self):
        self.assertEqual(self.run_check(CLEAN_CORE, simulation=None).returncode, 1)
        result = self.run_check(CLEAN_CORE, simulation="public struct SimulatedQuote {}\n")
        self.assertEqual(result.returncode, 1)
        self.assertIn("does not declare SimulatedNetwork", result.stderr)

    def test_the_repository_passes(self):
        result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    unittest.main()
