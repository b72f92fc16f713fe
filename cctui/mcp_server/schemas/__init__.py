"""The wire models: what the tools return, one module per tool family."""
