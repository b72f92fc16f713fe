"""`python -m cctui` is the same as `cctui`."""

from cctui.cli import main

raise SystemExit(main())
