//! A stochastic model of a forwarder's data plane.
