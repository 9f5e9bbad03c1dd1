import MaxSim
import Testing
