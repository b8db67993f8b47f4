//! Workspace-level tests live in `tests/tests/`; this library is empty.
