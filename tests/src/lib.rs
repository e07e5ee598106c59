//! End-to-end tests of the real `signet-api` and `signet-worker` binaries live in `tests/tests/`.
