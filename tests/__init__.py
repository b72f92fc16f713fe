"""cctui test suite."""
