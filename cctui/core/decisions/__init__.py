"""Decisions: what a session (or cctui itself) asks, who is asked, and the one answer.

A *pending input* is the question (``PendingInput``: a permission, a plan review, a
question for the user, a confirmation); a *decision* is its answer (``Decision``). The
models are ``core/session/inputs.py``, below both the session machinery and this package.

- ``requests``: turning the CLI's permission asks into pending inputs and decisions back
  into the CLI's answers.
- ``pending``: the open inputs, each answered exactly once; withdrawal.
- ``routing``: the one ``Router``: who is asked (a client or the human), until when.
- ``desk``: one session's inputs: asks in, answers out, timeout, publish and audit.
- ``allowances``: what "allow for the rest of the session" and "always allow in this
  project" allow.
- ``grants``: a client asking to always allow in a project (gated: config or the human).
- ``confirmations``: cctui's own questions with a few choices, outside any session.
- ``service``: ``Decisions``, the object the manager holds and front ends call; it makes
  each session's desk (``Decisions.desk``), which the session sees as ``core.host.Desk``.

The package sits above the session machinery (it publishes events into sessions, and
changes their ``SessionState``); the machinery never imports it (an import-linter
contract). Nothing is imported here: ``cctui.core`` re-exports the public names.
"""
