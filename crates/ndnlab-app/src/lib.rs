//! ndnlab-app (placeholder, filled in by its issue).
