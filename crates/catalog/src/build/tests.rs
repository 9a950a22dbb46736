//! Unit tests of the build stages on in-memory inputs.
