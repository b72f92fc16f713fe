"""`python -m cctui` is the same as `cctui`."""

from cctui.entry import main

# Guarded: the history index's build worker (a spawned process) imports the main module again.
if __name__ == "__main__":
    raise SystemExit(main())
