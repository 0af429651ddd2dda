//! ndnlab-core (placeholder, filled in by its issue).
