"""Seed 004 (@ebowwa/claude-code-mcp): its eight tools, validated against its Zod schemas."""
