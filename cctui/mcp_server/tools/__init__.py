"""The MCP tools, resources and prompts: one module per family, each with a ``register()``."""
