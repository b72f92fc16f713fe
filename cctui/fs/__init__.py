"""Files, paths and git: the leaf every room that touches the disk stands on.

``safepath`` is the one path policy (a caller's path stays inside its root: the checks, the
resolution, and opening without following links), ``reading`` reads files in bounded pieces,
``atomic`` replaces files whole, ``git`` asks git read-only questions. Nothing here knows of
sessions, projects or front ends.
"""
