import EmpowerSim
import Testing
