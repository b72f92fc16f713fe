"""Asking the client: elicitation and input-required rounds, in both protocol eras."""
