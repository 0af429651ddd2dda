//! ndnlab-security (placeholder, filled in by its issue).
