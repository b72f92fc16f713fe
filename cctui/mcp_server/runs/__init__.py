"""The long tool calls: a one-shot query and a project invoke, followed to their end."""
