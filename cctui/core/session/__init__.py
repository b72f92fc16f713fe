"""The session machinery: one Claude Code session as cctui drives it, below the decisions
and the verbs.

- ``session``: ``Session``, which composes the rest around one shared ``SessionState``.
- ``process``: the claude process behind it (its owner task, the verbs that reach it).
- ``translate``: the process's frames become state changes and events.
- ``session_state``, ``states``: what the helpers share; the status machine.
- ``events``, ``buffer``: what a session tells its readers, kept in a ring by seq.
- ``turns``, ``prompts``: the turn ledger; the prompts sent (rewind points).
- ``models``, ``inputs``: the models the core hands its front ends; a pending input and its
  decision.
- ``host``: what a session needs from the manager (``SessionHost``) and its desk (``Desk``,
  made by ``decisions/``: this package never imports the decisions, which publish into it).
- ``session_log``: a session's output appended to a file.

Nothing is imported here: ``cctui.core`` re-exports the public names.
"""
