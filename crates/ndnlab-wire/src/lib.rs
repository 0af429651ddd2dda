//! ndnlab-wire (placeholder, filled in by its issue).
