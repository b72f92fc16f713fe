"""Fakes for tests: a fake Anthropic Messages API and pytest fixtures for the real CLI."""
