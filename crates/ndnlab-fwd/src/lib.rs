//! ndnlab-fwd (placeholder, filled in by its issue).
