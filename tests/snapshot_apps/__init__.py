"""Apps for snapshot tests and screenshots: the real CctuiApp over the fake driver."""
