import GoogleSim
import Testing
