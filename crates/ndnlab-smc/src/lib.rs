//! Statistical model checking (SMC) for ndnlab's stochastic models.
