"""bench_tui under tmux: ``cctui`` in a real terminal (placeholder, filled below)."""
