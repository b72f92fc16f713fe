"""How the server is reached: streamable HTTP with bearer auth, the stdio bridge, the entries."""
