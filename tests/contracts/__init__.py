"""Per seed: a client that calls cctui exactly as that seed's examples and schemas do."""
